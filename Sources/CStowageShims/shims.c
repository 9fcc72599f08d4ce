#define _GNU_SOURCE
#include "CStowageShims.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
#if defined(__linux__)
#include <sys/syscall.h>
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

long cstowage_utime_now(void) { return UTIME_NOW; }
long cstowage_utime_omit(void) { return UTIME_OMIT; }

int cstowage_errno(void) { return errno; }
