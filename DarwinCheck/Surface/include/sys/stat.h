// Stand-in for <sys/stat.h> (xnu-11417.101.15: bsd/sys/stat.h), with 64-bit inodes
// (_DARWIN_FEATURE_64_BIT_INODE, the default): struct stat is the __DARWIN_STRUCT_STAT64 layout,
// and the times are timespec fields named st_atimespec ... (not Linux's st_atim).
// S_IFMT, S_IFREG ... reach Swift through the overlay as mode_t (swift stdlib/public/Platform/Platform.swift).
#ifndef STOWAGE_STANDIN_SYS_STAT_H
#define STOWAGE_STANDIN_SYS_STAT_H

#include <sys/types.h>

struct stat {
    dev_t st_dev;
    mode_t st_mode;
    nlink_t st_nlink;
    ino_t st_ino;
    uid_t st_uid;
    gid_t st_gid;
    dev_t st_rdev;
    struct timespec st_atimespec;
    struct timespec st_mtimespec;
    struct timespec st_ctimespec;
    struct timespec st_birthtimespec;
    off_t st_size;
    blkcnt_t st_blocks;
    blksize_t st_blksize;
    __uint32_t st_flags;
    __uint32_t st_gen;
    __int32_t st_lspare;
    __int64_t st_qspare[2];
};

// C code tests file types with these (Swift uses the overlay's mode_t constants).
#define S_IFMT   0170000
#define S_IFDIR  0040000
#define S_IFREG  0100000
#define S_IFLNK  0120000
#define S_ISDIR(m) (((m) & S_IFMT) == S_IFDIR)
#define S_ISREG(m) (((m) & S_IFMT) == S_IFREG)

int fchmod(int, mode_t);
int fstat(int, struct stat *);
int lstat(const char *, struct stat *);
int mkdir(const char *, mode_t);
int stat(const char *, struct stat *);
int fstatat(int, const char *, struct stat *, int) __attribute__((availability(macos, introduced=10.10), availability(ios, introduced=8.0)));
int mkdirat(int, const char *, mode_t) __attribute__((availability(macos, introduced=10.10), availability(ios, introduced=8.0)));

#define UTIME_NOW  -1
#define UTIME_OMIT -2

int futimens(int __fd, const struct timespec __times[2])
    __attribute__((availability(macos, introduced=10.13), availability(ios, introduced=11.0),
                   availability(tvos, introduced=11.0), availability(watchos, introduced=4.0)));
int utimensat(int __fd, const char *__path, const struct timespec __times[2], int __flag)
    __attribute__((availability(macos, introduced=10.13), availability(ios, introduced=11.0),
                   availability(tvos, introduced=11.0), availability(watchos, introduced=4.0)));

#endif
