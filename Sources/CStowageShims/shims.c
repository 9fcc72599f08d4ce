#define _GNU_SOURCE
#include "CStowageShims.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <linux/openat2.h>
#endif
#if defined(__APPLE__)
#include <sys/xattr.h>
#endif

int cstowage_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags) {
#if defined(__linux__) && defined(SYS_renameat2)
    return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, flags);
#else
    (void)olddirfd; (void)oldpath; (void)newdirfd; (void)newpath; (void)flags;
    errno = ENOSYS;
    return -1;
#endif
}

int cstowage_fallocate(int fd, int64_t offset, int64_t length) {
#if defined(__linux__)
    return fallocate(fd, 0, (off_t)offset, (off_t)length);
#else
    (void)fd; (void)offset; (void)length;
    errno = ENOSYS;
    return -1;
#endif
}

int cstowage_posix_fallocate(int fd, int64_t offset, int64_t length) {
#if defined(__linux__)
    return posix_fallocate(fd, (off_t)offset, (off_t)length);
#else
    (void)fd; (void)offset; (void)length;
    return ENOSYS;
#endif
}

long cstowage_getdents64(int fd, void *buffer, size_t size) {
#if defined(__linux__) && defined(SYS_getdents64)
    return syscall(SYS_getdents64, fd, buffer, size);
#else
    (void)fd; (void)buffer; (void)size;
    errno = ENOSYS;
    return -1;
#endif
}

int cstowage_open_unnamed(int directory, mode_t mode) {
#if defined(__linux__) && defined(O_TMPFILE)
    return openat(directory, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
#else
    (void)directory; (void)mode;
    errno = ENOSYS;
    return -1;
#endif
}

int cstowage_syncfs(int fd) {
#if defined(__linux__)
    return syncfs(fd);
#else
    return fsync(fd);
#endif
}

ssize_t cstowage_fgetxattr(int fd, const char *name, void *value, size_t size) {
#if defined(__linux__)
    return fgetxattr(fd, name, value, size);
#else
    (void)fd; (void)name; (void)value; (void)size;
    errno = ENOTSUP;
    return -1;
#endif
}

int cstowage_fsetxattr(int fd, const char *name, const void *value, size_t size, int flags) {
#if defined(__linux__)
    return fsetxattr(fd, name, value, size, flags);
#else
    (void)fd; (void)name; (void)value; (void)size; (void)flags;
    errno = ENOTSUP;
    return -1;
#endif
}

int cstowage_fremovexattr(int fd, const char *name) {
#if defined(__linux__)
    return fremovexattr(fd, name);
#else
    (void)fd; (void)name;
    errno = ENOTSUP;
    return -1;
#endif
}

ssize_t cstowage_lgetxattr(const char *path, const char *name, void *value, size_t size) {
#if defined(__linux__)
    return lgetxattr(path, name, value, size);
#else
    (void)path; (void)name; (void)value; (void)size;
    errno = ENOTSUP;
    return -1;
#endif
}

int cstowage_mount_identity(int fd, uint64_t *device, uint64_t *inode, uint64_t *mount_id) {
#if defined(__linux__) && defined(SYS_statx)
    // The kernel's `struct statx` (a stable ABI), declared here because glibc's declaration
    // hides `stx_mnt_id` in padding in some versions.
    struct {
        uint32_t mask, blksize;
        uint64_t attributes;
        uint32_t nlink, uid, gid;
        uint16_t mode, spare0;
        uint64_t ino, size, blocks, attributes_mask;
        struct { int64_t sec; uint32_t nsec; int32_t reserved; } atime, btime, ctime, mtime;
        uint32_t rdev_major, rdev_minor, dev_major, dev_minor;
        uint64_t mnt_id;
        uint64_t spare[13];
    } result;
    const unsigned int wanted = 0x1000U | 0x100U;  // STATX_MNT_ID | STATX_INO (the device always comes)
    if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, wanted, &result) != 0) return -1;
    if ((result.mask & wanted) != wanted) {
        errno = ENOSYS;
        return -1;
    }
    *device = (uint64_t)makedev(result.dev_major, result.dev_minor);  // as `st_dev` holds it
    *inode = result.ino;
    *mount_id = result.mnt_id;
    return 0;
#else
    (void)fd; (void)device; (void)inode; (void)mount_id;
    errno = ENOSYS;
    return -1;
#endif
}

#if defined(__linux__) || defined(__APPLE__)
/// Opens the regular file or folder `name` in `directory` to read its attributes: never a link,
/// a device or a pipe, whose opening could have effects. Returns the descriptor; -1 with errno;
/// or -2 for an entry of another kind, which has no attributes to read here.
static int open_for_attributes(int directory, const char *name) {
    struct stat status;
    if (fstatat(directory, name, &status, AT_SYMLINK_NOFOLLOW) != 0) return -1;
    if (!S_ISREG(status.st_mode) && !S_ISDIR(status.st_mode)) return -2;
    return openat(directory, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
}

/// Closes `fd`, keeping the errno of the call made before.
static ssize_t close_keeping_errno(int fd, ssize_t result) {
    int saved = errno;
    close(fd);
    errno = saved;
    return result;
}
#endif

#if defined(__linux__)
/// Writes `/proc/self/fd/<directory>/<name>` into `path`: the entry, reachable by path without
/// opening it. Returns 0, or -1 when it does not fit.
static int proc_path(char path[64 + 256], int directory, const char *name) {
    int length = snprintf(path, 64 + 256, "/proc/self/fd/%d/%s", directory, name);
    return length > 0 && length < 64 + 256 ? 0 : -1;
}

/// After a call through `proc_path` failed: whether its errno is the answer (1), or the fallback
/// that opens the entry must answer instead (0: /proc is not there).
static int proc_answer_is_final(void) {
    int saved = errno;
    int final = saved != ENOENT || access("/proc/self/fd", X_OK) == 0;
    errno = saved;  // a real answer about the entry (ENOENT: it is gone)
    return final;
}
#endif

ssize_t cstowage_getxattr_at(int directory, const char *name, const char *attribute, void *value, size_t size) {
#if defined(__linux__)
    char path[64 + 256];
    if (proc_path(path, directory, name) == 0) {
        ssize_t result = lgetxattr(path, attribute, value, size);
        if (result >= 0 || proc_answer_is_final()) return result;
    }
#endif
#if defined(__linux__) || defined(__APPLE__)
    // No /proc (or a name too long for the buffer), or Darwin: open the entry itself.
    int fd = open_for_attributes(directory, name);
    if (fd == -2) {
#if defined(__APPLE__)
        errno = ENOATTR;
#else
        errno = ENODATA;
#endif
        return -1;
    }
    if (fd < 0) return -1;
#if defined(__APPLE__)
    return close_keeping_errno(fd, fgetxattr(fd, attribute, value, size, 0, 0));  // XATTR_NOFOLLOW is EINVAL on a descriptor
#else
    return close_keeping_errno(fd, fgetxattr(fd, attribute, value, size));
#endif
#else
    (void)directory; (void)name; (void)attribute; (void)value; (void)size;
    errno = ENOTSUP;
    return -1;
#endif
}

ssize_t cstowage_listxattr_at(int directory, const char *name, char *list, size_t size) {
#if defined(__linux__)
    char path[64 + 256];
    if (proc_path(path, directory, name) == 0) {
        ssize_t result = llistxattr(path, list, size);
        if (result >= 0 || proc_answer_is_final()) return result;
    }
#endif
#if defined(__linux__) || defined(__APPLE__)
    int fd = open_for_attributes(directory, name);
    if (fd == -2) return 0;  // no attributes listed for an entry of another kind
    if (fd < 0) return -1;
#if defined(__APPLE__)
    return close_keeping_errno(fd, flistxattr(fd, list, size, 0));
#else
    return close_keeping_errno(fd, flistxattr(fd, list, size));
#endif
#else
    (void)directory; (void)name; (void)list; (void)size;
    errno = ENOTSUP;
    return -1;
#endif
}

long cstowage_utime_now(void) { return UTIME_NOW; }
long cstowage_utime_omit(void) { return UTIME_OMIT; }

int cstowage_terminal_size(int fd, unsigned short *columns, unsigned short *rows) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0) return -1;
    *columns = size.ws_col;
    *rows = size.ws_row;
    return 0;
}

int cstowage_errno(void) { return errno; }

int64_t cstowage_seek_data(int fd, int64_t offset) {
#ifdef SEEK_DATA
    return (int64_t)lseek(fd, (off_t)offset, SEEK_DATA);
#else
    struct stat status;
    if (fstat(fd, &status) != 0) return -1;
    if (offset >= (int64_t)status.st_size) { errno = ENXIO; return -1; }
    return offset;
#endif
}

int64_t cstowage_seek_hole(int fd, int64_t offset) {
#ifdef SEEK_HOLE
    return (int64_t)lseek(fd, (off_t)offset, SEEK_HOLE);
#else
    struct stat status;
    if (fstat(fd, &status) != 0) return -1;
    return (int64_t)status.st_size;
#endif
}

int cstowage_open_beneath(int directory, const char *path, int flags) {
#if defined(__linux__) && defined(SYS_openat2)
    struct open_how how = {
        .flags = (uint64_t)(flags | O_CLOEXEC),
        .mode = 0,
        .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH,
    };
    int fd = (int)syscall(SYS_openat2, directory, path, &how, sizeof how);
    // EPERM: a seccomp filter (some containers) that refuses system calls it does not know.
    if (fd < 0 && errno == EPERM) errno = ENOSYS;
    return fd;
#elif defined(__APPLE__) && defined(O_NOFOLLOW_ANY)
    return openat(directory, path, flags | O_NOFOLLOW_ANY | O_CLOEXEC);
#else
    (void)directory; (void)path; (void)flags;
    errno = ENOSYS;
    return -1;
#endif
}
