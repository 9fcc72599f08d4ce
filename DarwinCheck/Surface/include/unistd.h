// Stand-in for <unistd.h> (Libc-1725.0.11: include/unistd.h; the *at calls from xnu
// bsd/sys/unistd.h).
#ifndef STOWAGE_STANDIN_UNISTD_H
#define STOWAGE_STANDIN_UNISTD_H

#include <sys/types.h>

#define X_OK (1<<0)  // access(2) modes: xnu bsd/sys/unistd.h
#define W_OK (1<<1)
#define R_OK (1<<2)
#define _SC_PAGESIZE 29

int access(const char *, int);
int pipe(int [2]);
long sysconf(int);
int close(int);
int dup(int);
int isatty(int);
uid_t geteuid(void);
gid_t getegid(void);
pid_t getpid(void);
char *getcwd(char *, size_t);
ssize_t read(int, void *, size_t);
ssize_t write(int __fd, const void *__buf, size_t __nbyte);
ssize_t pread(int __fd, void *__buf, size_t __nbyte, off_t __offset);
ssize_t pwrite(int __fd, const void *__buf, size_t __nbyte, off_t __offset);
int fsync(int);
int ftruncate(int, off_t);
ssize_t readlinkat(int, const char *, char *, size_t) __attribute__((availability(macos, introduced=10.10), availability(ios, introduced=8.0)));
int symlinkat(const char *, int, const char *) __attribute__((availability(macos, introduced=10.10), availability(ios, introduced=8.0)));
int unlinkat(int, const char *, int) __attribute__((availability(macos, introduced=10.10), availability(ios, introduced=8.0)));

#endif
