// Stand-in for <stdio.h> (Libc-1725.0.11: include/stdio.h); renameat and renameatx_np come from
// xnu-11417.101.15 bsd/sys/stdio.h, which it includes.
#ifndef STOWAGE_STANDIN_STDIO_H
#define STOWAGE_STANDIN_STDIO_H

#include <sys/types.h>

#define RENAME_SWAP 0x00000002  // exchange the two names atomically
#define RENAME_EXCL 0x00000004  // fail with EEXIST when the new name exists

int renameat(int, const char *, int, const char *) __attribute__((availability(macos, introduced=10.10), availability(ios, introduced=8.0)));
int renameatx_np(int, const char *, int, const char *, unsigned int)
    __attribute__((availability(macos, introduced=10.12), availability(ios, introduced=10.0),
                   availability(tvos, introduced=10.0), availability(watchos, introduced=3.0)));

#endif
