// Stand-in for <sys/types.h> and the <sys/_types/*.h> headers it includes (xnu-11417.101.15:
// bsd/sys/types.h, bsd/sys/_types.h, bsd/arm/_types.h, bsd/i386/_types.h). Only the types Stowage
// uses, with Apple's widths: they differ from Linux (mode_t is 16 bits, dev_t is signed 32 bits,
// nlink_t 16 bits, fsblkcnt_t 32 bits), which is what this check is for.
#ifndef STOWAGE_STANDIN_SYS_TYPES_H
#define STOWAGE_STANDIN_SYS_TYPES_H

#include <stddef.h>  // size_t (the compiler's own header, as in the SDK)
#include <stdint.h>  // uint32_t, int64_t ... (the compiler's own header)

typedef unsigned char       __uint8_t;   // bsd/i386/_types.h, bsd/arm/_types.h
typedef unsigned short      __uint16_t;
typedef int                 __int32_t;
typedef unsigned int        __uint32_t;
typedef long long           __int64_t;
typedef unsigned long long  __uint64_t;

typedef __uint32_t u_int32_t;            // bsd/sys/_types/_u_int32_t.h
typedef long ssize_t;                    // bsd/sys/_types/_ssize_t.h (__darwin_ssize_t: long)
typedef __uint16_t mode_t;               // bsd/sys/_types/_mode_t.h (__darwin_mode_t)
typedef __int64_t off_t;                 // bsd/sys/_types/_off_t.h (__darwin_off_t)
typedef __int32_t dev_t;                 // bsd/sys/_types/_dev_t.h (__darwin_dev_t)
typedef __uint64_t ino_t;                // bsd/sys/_types/_ino_t.h (__darwin_ino64_t with 64-bit inodes)
typedef __uint16_t nlink_t;              // bsd/sys/_types/_nlink_t.h
typedef __uint32_t uid_t;                // bsd/sys/_types/_uid_t.h
typedef __uint32_t gid_t;                // bsd/sys/_types/_gid_t.h
typedef __int64_t blkcnt_t;              // bsd/sys/_types/_blkcnt_t.h
typedef __int32_t blksize_t;             // bsd/sys/_types/_blksize_t.h
typedef unsigned int fsblkcnt_t;         // bsd/sys/_types/_fsblkcnt_t.h (__darwin_fsblkcnt_t: 32 bits)
typedef unsigned int fsfilcnt_t;         // bsd/sys/_types/_fsfilcnt_t.h
typedef long time_t;                     // bsd/sys/_types/_time_t.h (__darwin_time_t: long)
typedef __int32_t pid_t;                 // bsd/sys/_types/_pid_t.h (__darwin_pid_t)

// bsd/sys/_types/_timespec.h
struct timespec {
    time_t tv_sec;
    long tv_nsec;
};

// bsd/sys/_types/_fsid_t.h
typedef struct fsid { __int32_t val[2]; } fsid_t;

#endif
