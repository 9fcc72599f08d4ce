#define _GNU_SOURCE
#include <errno.h>
#include "CStowageTestShims.h"
#if defined(__linux__)
#include <sys/ioctl.h>
#include <linux/fs.h>
#endif

int cstowage_test_set_immutable(int descriptor, int immutable) {
#if defined(__linux__)
    int flags = 0;
    if (ioctl(descriptor, FS_IOC_GETFLAGS, &flags) != 0) return -1;
    flags = immutable ? (flags | FS_IMMUTABLE_FL) : (flags & ~FS_IMMUTABLE_FL);
    return ioctl(descriptor, FS_IOC_SETFLAGS, &flags);
#else
    (void)descriptor; (void)immutable;
    errno = ENOTSUP;
    return -1;
#endif
}

#if defined(__linux__)
#include <sys/fsuid.h>
#endif

int cstowage_test_set_file_system_user(unsigned int uid) {
#if defined(__linux__)
    setfsuid(uid);
    // setfsuid returns the previous value, whether it changed or not: ask again to know.
    return (unsigned int)setfsuid((uid_t)-1) == uid ? 0 : -1;
#else
    (void)uid;
    errno = ENOTSUP;
    return -1;
#endif
}
