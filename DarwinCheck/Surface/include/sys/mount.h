// Stand-in for <sys/mount.h> (xnu-11417.101.15: bsd/sys/mount.h), with 64-bit inodes: struct
// statfs is the __DARWIN_STRUCT_STATFS64 layout, whose block counts are 64 bits (statvfs's are
// 32: fsblkcnt_t).
#ifndef STOWAGE_STANDIN_SYS_MOUNT_H
#define STOWAGE_STANDIN_SYS_MOUNT_H

#include <sys/types.h>
#include <sys/param.h>

#define MFSTYPENAMELEN 16

struct statfs {
    uint32_t f_bsize;       // fundamental file system block size
    int32_t f_iosize;       // optimal transfer block size
    uint64_t f_blocks;      // total data blocks
    uint64_t f_bfree;       // free blocks
    uint64_t f_bavail;      // free blocks available to a non-superuser
    uint64_t f_files;       // total file nodes
    uint64_t f_ffree;       // free file nodes
    fsid_t f_fsid;
    uid_t f_owner;
    uint32_t f_type;
    uint32_t f_flags;
    uint32_t f_fssubtype;
    char f_fstypename[MFSTYPENAMELEN];
    char f_mntonname[MAXPATHLEN];
    char f_mntfromname[MAXPATHLEN];
    uint32_t f_flags_ext;
    uint32_t f_reserved[7];
};

#define MNT_NOWAIT 2  // what the kernel has, without asking each file system

int fstatfs(int, struct statfs *);
int statfs(const char *, struct statfs *);
// The thread-safe getmntinfo: the caller frees the table.
int getmntinfo_r_np(struct statfs **, int)
    __attribute__((availability(macos, introduced=10.13), availability(ios, introduced=11.0),
                   availability(tvos, introduced=11.0), availability(watchos, introduced=4.0)));

#endif
