// Stand-in for <sys/xattr.h> (xnu-11417.101.15: bsd/sys/xattr.h). Darwin's calls take a
// position and options that Linux's lack; XATTR_NOFOLLOW replaces Linux's l* variants.
#ifndef STOWAGE_STANDIN_SYS_XATTR_H
#define STOWAGE_STANDIN_SYS_XATTR_H

#include <sys/types.h>

#define XATTR_NOFOLLOW 0x0001

ssize_t getxattr(const char *path, const char *name, void *value, size_t size, u_int32_t position, int options);
ssize_t fgetxattr(int fd, const char *name, void *value, size_t size, u_int32_t position, int options);
int fsetxattr(int fd, const char *name, const void *value, size_t size, u_int32_t position, int options);
int fremovexattr(int fd, const char *name, int options);
ssize_t flistxattr(int fd, char *namebuff, size_t size, int options);

#endif
