// Stand-in for <dirent.h> (Libc-1725.0.11: include/dirent.h) and <sys/dirent.h>
// (xnu-11417.101.15: bsd/sys/dirent.h), with 64-bit inodes: d_name holds up to 1024 bytes.
#ifndef STOWAGE_STANDIN_DIRENT_H
#define STOWAGE_STANDIN_DIRENT_H

#include <sys/types.h>

struct dirent {
    __uint64_t d_ino;
    __uint64_t d_seekoff;
    __uint16_t d_reclen;
    __uint16_t d_namlen;
    __uint8_t d_type;
    char d_name[1024];
};

#define DT_UNKNOWN 0
#define DT_DIR     4
#define DT_REG     8
#define DT_LNK     10

// The stream is opaque to its users (its fields are private to Libc).
typedef struct __dirdesc DIR;

int closedir(DIR *);
struct dirent *readdir(DIR *);
DIR *fdopendir(int) __attribute__((availability(macos, introduced=10.10), availability(ios, introduced=8.0)));

#endif
