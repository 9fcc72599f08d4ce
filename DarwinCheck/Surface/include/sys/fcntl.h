// Stand-in for <sys/fcntl.h> (xnu-11417.101.15: bsd/sys/fcntl.h). open, openat and fcntl are
// variadic in C and so are not imported into Swift; the overlay declares their Swift forms.
#ifndef STOWAGE_STANDIN_SYS_FCNTL_H
#define STOWAGE_STANDIN_SYS_FCNTL_H

#include <sys/types.h>

#define O_RDONLY    0x0000
#define O_WRONLY    0x0001
#define O_RDWR      0x0002
#define O_NONBLOCK  0x00000004
#define O_NOFOLLOW  0x00000100
#define O_CREAT     0x00000200
#define O_TRUNC     0x00000400
#define O_EXCL      0x00000800
#define O_NOCTTY    0x00020000
#define O_DIRECTORY 0x00100000
#define O_CLOEXEC   0x01000000
#define O_NOFOLLOW_ANY 0x20000000  // no symbolic link anywhere in the path (macOS 11, iOS 14)

#define AT_FDCWD            -2      // the current folder, in place of a folder descriptor
#define AT_SYMLINK_NOFOLLOW 0x0020
#define AT_REMOVEDIR        0x0080

#define F_SETFD               2  // set the descriptor's flags
#define F_GETFL               3  // get the file status flags (O_NONBLOCK ...)
#define F_SETFL               4  // set the file status flags
#define FD_CLOEXEC            1  // close-on-exec
#define F_PREALLOCATE        42  // preallocate storage (fstore_t)
#define F_GETPATH            50  // the path of the descriptor, into a buffer of MAXPATHLEN bytes
#define F_FULLFSYNC          51  // fsync, and ask the drive to flush its cache to the media
#define F_SETPROTECTIONCLASS 64  // set the data-protection class (an int)

// fst_flags of fstore_t
#define F_ALLOCATECONTIG  0x00000002  // contiguous space
#define F_ALLOCATEALL     0x00000004  // all of the space asked for, or none
#define F_ALLOCATEPERSIST 0x00000008  // not freed by close(2)
// fst_posmode of fstore_t
#define F_PEOFPOSMODE 3  // from the physical end of the file; fst_length is the number of new bytes
#define F_VOLPOSMODE  4  // from the volume offset

// The argument of F_PREALLOCATE (fcntl(2): "fstore_t").
typedef struct fstore {
    u_int32_t fst_flags;
    int fst_posmode;
    off_t fst_offset;
    off_t fst_length;
    off_t fst_bytesalloc;     // out: the bytes allocated
} fstore_t;

#define LOCK_SH 0x01
#define LOCK_EX 0x02
#define LOCK_NB 0x04
#define LOCK_UN 0x08

int open(const char *, int, ...);
int openat(int, const char *, int, ...) __attribute__((availability(macos, introduced=10.10), availability(ios, introduced=8.0)));
int fcntl(int, int, ...);
int flock(int, int);

#endif
