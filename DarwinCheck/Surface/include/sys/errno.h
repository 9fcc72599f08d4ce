// Stand-in for <sys/errno.h> (xnu-11417.101.15: bsd/sys/errno.h): the errno values Stowage
// names, with Darwin's numbers (ENOTSUP 45 and EOPNOTSUPP 102 differ on Darwin; Linux has one
// value for both). `errno` itself reaches Swift through the overlay (Darwin.swiftinterface).
#ifndef STOWAGE_STANDIN_SYS_ERRNO_H
#define STOWAGE_STANDIN_SYS_ERRNO_H

extern int *__error(void);
#define errno (*__error())

#define EPERM           1
#define ENOENT          2
#define EINTR           4
#define EIO             5
#define ESRCH           3
#define ENXIO           6
#define EACCES          13
#define EEXIST          17
#define EXDEV           18
#define ENOTDIR         20
#define EISDIR          21
#define EINVAL          22
#define ENOTTY          25
#define ECHILD          10
#define ENODEV          19
#define EBUSY           16
#define ENOSPC          28
#define EROFS           30
#define ERANGE          34
#define EAGAIN          35
#define EWOULDBLOCK     EAGAIN
#define ENOTSUP         45
#define EOPNOTSUPP      102
#define ELOOP           62
#define ENAMETOOLONG    63
#define ENOTEMPTY       66
#define EDQUOT          69
#define ENOSYS          78
#define EILSEQ          92
#define ENOATTR         93
#define EOVERFLOW       84
#define ETIMEDOUT       60

#endif
