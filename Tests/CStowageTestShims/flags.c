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
