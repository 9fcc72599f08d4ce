#ifndef CSTOWAGE_TEST_SHIMS_H
#define CSTOWAGE_TEST_SHIMS_H

#include <sys/types.h>

/// Starts `path` with `argv` and `envp` through posix_spawn(3), for the tests' child processes:
/// standard input, output and error on the descriptors given (a negative one: that stream
/// closed, as `>&-` leaves it), the working folder `directory`
/// (when not NULL), every other descriptor closed, the signal mask empty and every signal's
/// action the default, in a process group of its own (so that a timeout can kill what it
/// started too). Returns 0 or an errno value; the child's id goes to `pid`.
///
/// Foundation's Process is not used: on Linux its run() reads past a buffer while listing
/// /proc/self/fd and crashes now and then (swift-corelibs-foundation #5472, Swift 6.3).
int cstowage_test_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[],
                        const char *directory, int input, int output, int error);

/// pipe2(2) with O_CLOEXEC (not imported by Swift's Glibc module): both ends close on exec.
int cstowage_test_pipe(int descriptors[2]);

/// Sets or clears a file's immutable flag (`chattr +i`, FS_IOC_SETFLAGS; Linux only): an
/// immutable file cannot be removed, even by root. Returns 0, or -1 with errno (`ENOTTY` or
/// `EOPNOTSUPP` where the file system has no such flag).
int cstowage_test_set_immutable(int descriptor, int immutable);

/// Sets the file system user of the calling thread, and of it only (setfsuid(2), Linux only):
/// permissions are then checked as that user's, and a change from root to another user drops
/// the thread's capabilities to bypass them. Returns 0, or -1 when the user was not taken.
int cstowage_test_set_file_system_user(unsigned int uid);
#endif
