// Thin C shims for system calls that Swift's Glibc module does not import
// (they are declared only under _GNU_SOURCE). Used by Stowage's Platform layer only.
#ifndef CSTOWAGE_SHIMS_H
#define CSTOWAGE_SHIMS_H

#include <stdint.h>
#include <sys/types.h>

#include "CStowageRoom.h"
#include "CStowageSignals.h"
#include "CStowageTerminal.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Flags for `cstowage_renameat2`, with the values of <linux/fs.h>.
#define CSTOWAGE_RENAME_NOREPLACE 1
#define CSTOWAGE_RENAME_EXCHANGE 2

/// `openat(directory, path, flags)` that follows no symbolic link anywhere in `path` and never
/// leaves `directory` (ELOOP or EXDEV otherwise): Linux's `openat2` with `RESOLVE_NO_SYMLINKS |
/// RESOLVE_BENEATH` (5.6 and later), Darwin's `O_NOFOLLOW_ANY`. ENOSYS where the system has
/// neither (an older kernel, a seccomp filter): open one name at a time instead.
int cstowage_open_beneath(int directory, const char *path, int flags);

/// Copies `count` 64-bit words from `words`, the start of a shared file mapping that other
/// processes may change (and cut short) at any time, into `out`, each by an acquiring atomic
/// load (Swift has no atomics on raw memory). Returns 0, or -1 when the mapping faulted (SIGBUS:
/// the file no longer reaches the page), with `out` then undefined: the load is abandoned, not
/// fatal. Call `cstowage_guard_mapped_loads` once first.
///
/// How: a per-thread jump point (`sigsetjmp` without the signal mask: no system call) is armed
/// around the loads; the SIGBUS handler jumps back to it when it is armed on the faulting thread,
/// and otherwise passes the signal on to the action that was in place before it (the default
/// ends the process as before). Costs about 30 ns, where an `fstat` per load costs ~0.5 µs.
/// Linux only: Apple platforms read the words with pread instead, which cannot fault (see
/// SharedMapping+Darwin.swift); elsewhere these load unguarded and always return 0.
int cstowage_guarded_load_u64(const uint64_t *words, int count, uint64_t *out);

/// Installs the SIGBUS handler of `cstowage_guarded_load_u64` (once per process; later calls do
/// nothing). Returns 0, or -1 with errno.
int cstowage_guard_mapped_loads(void);

/// `renameat2(2)` on Linux; on other systems sets errno to ENOSYS and returns -1.
int cstowage_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);

/// `fallocate(2)` with mode 0 (allocate and extend) on Linux; ENOSYS elsewhere.
int cstowage_fallocate(int fd, int64_t offset, int64_t length);

/// `posix_fallocate(3)`; returns an errno value (0 on success), as the C function does.
int cstowage_posix_fallocate(int fd, int64_t offset, int64_t length);

/// `openat(directory, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, mode)` on Linux: an unnamed file on
/// the folder's volume; ENOSYS elsewhere.
int cstowage_open_unnamed(int directory, mode_t mode);

/// `lseek(fd, offset, SEEK_DATA)` and `lseek(fd, offset, SEEK_HOLE)`: the next byte of data at or
/// after `offset` (-1 with ENXIO when there is none), and the next hole (the end of the file at
/// the latest). Where the system has no SEEK_DATA, the whole file is one range of data.
int64_t cstowage_seek_data(int fd, int64_t offset);
int64_t cstowage_seek_hole(int fd, int64_t offset);

/// `syncfs(2)` on Linux (writes back the whole file system holding `fd` and commits its
/// journal, so freed blocks count as available again); `fsync(2)` of `fd` elsewhere.
int cstowage_syncfs(int fd);

/// `fgetxattr(2)`, `fsetxattr(2)`, `fremovexattr(2)` with Linux's signatures; ENOTSUP elsewhere.
ssize_t cstowage_fgetxattr(int fd, const char *name, void *value, size_t size);
int cstowage_fsetxattr(int fd, const char *name, const void *value, size_t size, int flags);
int cstowage_fremovexattr(int fd, const char *name);

/// `lgetxattr(2)`: an attribute of a path, not following a final link; ENOTSUP elsewhere.
ssize_t cstowage_lgetxattr(const char *path, const char *name, void *value, size_t size);

/// The device (as `st_dev` holds it), the inode and the identity of the mount holding the open
/// file `fd`, in one `statx(2)` call: `stx_mnt_id` on Linux 5.8 and later (a bind mount has an
/// identity of its own, though it shares the device number). Returns 0, or -1 with errno ENOSYS
/// where the system does not tell the mount (older kernels, Darwin): callers then use `fstat`.
int cstowage_mount_identity(int fd, uint64_t *device, uint64_t *inode, uint64_t *mount_id);

/// The extended attribute `attribute` of the entry `name` in the folder `directory`, not
/// following a final link and without opening the entry (Linux: `lgetxattr` through
/// `/proc/self/fd`, or an `openat` + `fgetxattr` of a regular file or folder where /proc is
/// missing; Darwin: `openat` + `fgetxattr`). Returns the value's length, or -1 with errno.
ssize_t cstowage_getxattr_at(int directory, const char *name, const char *attribute, void *value, size_t size);

/// The names of the extended attributes of the entry `name` in the folder `directory`, not
/// following a final link and without opening the entry (as `cstowage_getxattr_at`): a list of
/// NUL-terminated names, as `listxattr(2)` writes it. Returns its length, or -1 with errno.
ssize_t cstowage_listxattr_at(int directory, const char *name, char *list, size_t size);

/// `getdents64(2)` on Linux: fills `buffer` with the folder's next entries, each a
/// `struct linux_dirent64` (inode, offset, record length, type, NUL-terminated name), and returns
/// the bytes filled, 0 at the end, or -1 with errno. ENOSYS elsewhere (Apple platforms read
/// folders with `readdir`).
long cstowage_getdents64(int fd, void *buffer, size_t size);

/// `UTIME_NOW` and `UTIME_OMIT`, whose values differ between systems.
long cstowage_utime_now(void);
long cstowage_utime_omit(void);

/// The size of the terminal `fd` is open on: `ioctl(fd, TIOCGWINSZ)` (a macro Swift cannot
/// import on Apple platforms). Returns 0, or -1 with errno (ENOTTY when `fd` is no terminal).
int cstowage_terminal_size(int fd, unsigned short *columns, unsigned short *rows);

/// The value of `errno` for the calling thread.
int cstowage_errno(void);

#ifdef __cplusplus
}
#endif

#endif
