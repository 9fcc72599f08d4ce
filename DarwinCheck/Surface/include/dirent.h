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

// libpthread-536: include/sys/_pthread/_pthread_types.h. The lock inside a DIR: a signature word
// and private bytes, 56 of them where longs are 64 bits (LP64), 40 elsewhere (arm64_32).
#if defined(__LP64__)
#define __PTHREAD_MUTEX_SIZE__ 56
#else
#define __PTHREAD_MUTEX_SIZE__ 40
#endif
struct _opaque_pthread_mutex_t {
    long __sig;
    char __opaque[__PTHREAD_MUTEX_SIZE__];
};
typedef struct _opaque_pthread_mutex_t __darwin_pthread_mutex_t;

struct _telldir;

// An open directory stream. A complete struct in Apple's header (Libc-1725.0.11 include/dirent.h),
// unlike glibc's opaque one: Swift imports `DIR *` as UnsafeMutablePointer<DIR> on Apple platforms
// and as OpaquePointer on Linux. Fields in Apple's order, with Apple's types.
typedef struct {
    int __dd_fd;                        // the descriptor the stream reads
    long __dd_loc;                      // position in the buffer
    long __dd_size;                     // bytes in the buffer
    char *__dd_buf;                     // the buffer
    int __dd_len;                       // the buffer's size
    long __dd_seek;                     // cookie of the last read
    long __padding;                     // kept for binary compatibility
    int __dd_flags;                     // readdir's flags
    __darwin_pthread_mutex_t __dd_lock; // the stream's lock
    struct _telldir *__dd_td;           // telldir's bookkeeping
} DIR;

int closedir(DIR *);
struct dirent *readdir(DIR *);
DIR *fdopendir(int) __attribute__((availability(macos, introduced=10.10), availability(ios, introduced=8.0)));

#endif
