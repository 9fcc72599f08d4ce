// Stand-in for <sys/mman.h> (xnu-11417.101.15: bsd/sys/mman.h). mmap and munmap are declared
// there with __DARWIN_ALIAS (an assembler name, `$UNIX2003` on 32-bit Intel only), which changes
// nothing a compiler checks and is left out, as in the other stand-in headers. MAP_FAILED is
// Apple's cast macro, which Swift does not import (compare with UnsafeMutableRawPointer(bitPattern: -1)).
// PROT_WRITE is not declared: the mapping is read-only on purpose (Platform/SharedMapping says why).
#ifndef STOWAGE_STANDIN_SYS_MMAN_H
#define STOWAGE_STANDIN_SYS_MMAN_H

#include <sys/types.h>

#define PROT_READ       0x01    // [MC2] pages can be read

#define MAP_SHARED      0x0001  // [MF|SHM] share changes

#define MAP_FAILED      ((void *)-1)    // [MF|SHM] mmap failed

void *mmap(void *, size_t, int, int, int, off_t);
int munmap(void *, size_t);

#endif
