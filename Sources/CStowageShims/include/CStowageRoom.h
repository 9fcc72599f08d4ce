// The child process of `stowage run` (Stowage's `RoomProcess`): a private mount namespace with a
// size-limited layer laid over chosen folders, then the command. Used by the Platform layer only.
#ifndef CSTOWAGE_ROOM_H
#define CSTOWAGE_ROOM_H

#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One folder the room is laid over.
typedef struct cstowage_room_folder {
    /// The folder's absolute path, without links (the parent resolved it).
    const char *path;
    /// Its permission bits (sticky bit included) and owner, given to its upper folder in the
    /// layer, which the merged folder shows as its own.
    unsigned int mode;
    unsigned int owner;
    unsigned int group;
    /// A mount found below a folder the caller named: when it cannot be opened or laid over, it
    /// is reported (`CSTOWAGE_ROOM_SKIPPED`) and left hidden, instead of failing the whole room.
    int is_optional;
} cstowage_room_folder;

/// Which namespaces the child makes.
#define CSTOWAGE_ROOM_MOUNT_NAMESPACE 0  // a mount namespace (root); a user namespace too where that is refused
#define CSTOWAGE_ROOM_USER_NAMESPACE 1   // a user namespace and a mount namespace (an ordinary user)

/// What the child is to do: everything prepared by the parent, because the child of a
/// multithreaded process may only make async-signal-safe calls (no allocation, no locks).
typedef struct cstowage_room_spec {
    const cstowage_room_folder *folders;
    int folder_count;
    /// The layer's file system: `mount(layer_source, folders[0].path, layer_type, 0, layer_options)`.
    const char *layer_type;
    const char *layer_source;
    const char *layer_options;
    int namespace_mode;
    /// The lines written to `/proc/self/uid_map` and `gid_map` in a user namespace ("1000 1000 1\n").
    const char *uid_map;
    const char *gid_map;
    /// Entered again after the mounts (NULL: stay), so that relative paths lead into the room.
    const char *working_directory;
    const char *executable;
    char *const *arguments;
    char *const *environment;
    /// This process's identifier: the child ends itself if it is no longer its parent.
    pid_t parent;
    /// The child's end of the report pipe (written by the child, init or the command; closed on
    /// the command's exec) and of the go-ahead pipe (read).
    int report_fd;
    int go_fd;
    /// The parent's ends of the same pipes, which the child closes at once.
    int parent_report_fd;
    int parent_go_fd;
    /// 1 for a series of rooms (`stowage run`'s range mode): the child makes no PID namespace of
    /// its own, keeps the namespace and the folders open, and, once the first room is mounted,
    /// answers requests (`cstowage_room_request`) read from `go_fd` until the parent closes it:
    /// a room made anew, a run of the command or of the check (each in a PID namespace and a mount
    /// namespace of its own, copies of the room's, so that its /proc goes with it), a limit lifted.
    int series;
    /// In a series: the check, run like the command; `check_environment` holds
    /// `check_status_entry`, a buffer of at least 48 bytes the child writes
    /// `STOWAGE_COMMAND_STATUS=<n>` into before each check.
    const char *check_executable;
    char *const *check_arguments;
    char *const *check_environment;
    char *check_status_entry;
    /// In a series: the descriptors the command and the check get as 0, 1 and 2 (-1: the child's own).
    int standard_input;
    int standard_output;
    int standard_error;
} cstowage_room_spec;

/// A request of a series (`series` 1), written whole on the go-ahead pipe.
#define CSTOWAGE_ROOM_REMAKE 1       // unmount the room and mount a fresh one, with `options` for the layer; READY
#define CSTOWAGE_ROOM_RUN_COMMAND 2  // run the command in the room, wait until its every process ended; ENDED
#define CSTOWAGE_ROOM_RUN_CHECK 3    // the same with the check; `value` is the command's status for its environment
#define CSTOWAGE_ROOM_LIFT 4         // remount the layer with `options` (a larger size); LIFTED

typedef struct cstowage_room_request {
    int32_t operation;
    int32_t value;
    /// The layer's mount options, NUL-terminated.
    char options[120];
} cstowage_room_request;

/// A record the child writes on `report_fd`.
#define CSTOWAGE_ROOM_READY 1    // the room is mounted; `value` is the descriptor of the layer's root
#define CSTOWAGE_ROOM_SKIPPED 2  // optional folder `index` was left hidden; `error` says why
#define CSTOWAGE_ROOM_FAILED 3   // step `stage` failed with `error` (for folder `index`); the child exits 127
#define CSTOWAGE_ROOM_ENDED 4    // a series' run ended; `value` is its raw wait status
#define CSTOWAGE_ROOM_LIFTED 5   // a series' layer was remounted

/// The steps of the child, for `CSTOWAGE_ROOM_FAILED` and `CSTOWAGE_ROOM_SKIPPED`.
#define CSTOWAGE_ROOM_STAGE_MOUNT_NAMESPACE 1  // unshare(CLONE_NEWNS)
#define CSTOWAGE_ROOM_STAGE_USER_NAMESPACE 2   // unshare(CLONE_NEWUSER | CLONE_NEWNS)
#define CSTOWAGE_ROOM_STAGE_ID_MAPS 3          // writing setgroups, uid_map, gid_map
#define CSTOWAGE_ROOM_STAGE_PRIVATE 4          // mount(MS_REC | MS_PRIVATE) of /
#define CSTOWAGE_ROOM_STAGE_OPEN_FOLDER 5      // opening a folder to lay the room over
#define CSTOWAGE_ROOM_STAGE_MOUNT_LAYER 6      // mounting the layer's file system
#define CSTOWAGE_ROOM_STAGE_LAYER_FOLDERS 7    // making the upper and work folders
#define CSTOWAGE_ROOM_STAGE_MOUNT_OVERLAY 8    // mounting an overlay
#define CSTOWAGE_ROOM_STAGE_PARENT_GONE 9      // the parent ended or gave up before the go-ahead
#define CSTOWAGE_ROOM_STAGE_WORKING_FOLDER 10  // chdir into the working folder
#define CSTOWAGE_ROOM_STAGE_EXECUTE 11         // execve of the command
#define CSTOWAGE_ROOM_STAGE_PID_NAMESPACE 12   // unshare(CLONE_NEWPID)
#define CSTOWAGE_ROOM_STAGE_START 13           // socketpair and fork of the namespace's init, fork of the command
#define CSTOWAGE_ROOM_STAGE_MOUNT_PROC 14      // mounting the PID namespace's /proc (in its init)
#define CSTOWAGE_ROOM_STAGE_UNMOUNT 15         // a series: unmounting the room before a fresh one
#define CSTOWAGE_ROOM_STAGE_LIFT 16            // a series: remounting the layer with a larger size
#define CSTOWAGE_ROOM_STAGE_REQUEST 17         // a series: reading a request, or an unknown one

typedef struct cstowage_room_report {
    int32_t kind;
    int32_t stage;
    int32_t error;
    int32_t index;
    int32_t value;
    /// 1 when the child made a user namespace.
    int32_t is_user_namespace;
} cstowage_room_report;

/// Forks the child described by `spec`. Returns its process identifier, or -1 with errno
/// (ENOSYS where the system has no mount namespaces). After the go-ahead the child forks the
/// init of the room's PID namespace, which forks the command; signals sent to the child reach
/// the command through both, and the child ends as the command did once every process of the
/// namespace has ended (see room.c). The fork is made by one thread that lives
/// as long as the process, with every signal blocked: a parent-death signal fires when the thread
/// that forked the child ends, so a caller's thread (retired from a pool, say) must not fork it.
/// The child resets caught signals to their default action and unblocks every signal before it
/// does anything else.
pid_t cstowage_room_spawn(const cstowage_room_spec *spec);

/// Attaches the open file `backing` to a free loop device with `LO_FLAGS_AUTOCLEAR` (the
/// device detaches itself when its last user, a mount, lets go). Returns the open device and
/// writes its number to `number`; -1 with errno (ENOSYS off Linux).
int cstowage_loop_attach(int backing, int *number);

/// `waitpid(pid, &status, 0)` retried on EINTR; returns 0 and the raw status, or -1 with errno.
int cstowage_wait(pid_t pid, int *status);

/// Waits, retrying on EINTR, until `pid` has ended, without reaping it (`waitid` with
/// `WNOWAIT`): its process identifier cannot be reused until `cstowage_wait`. Returns 0, or -1
/// with errno (ENOSYS off Linux).
int cstowage_wait_ended(pid_t pid);

/// The parts of a raw wait status: 1 and the exit code when the process exited, 2 and the signal
/// when a signal ended it, 0 otherwise.
int cstowage_wait_status(int status, int *value);

/// `pipe2(fds, O_CLOEXEC)` on Linux (no other thread's child can inherit the ends); `pipe` and
/// `FD_CLOEXEC` elsewhere. Returns 0, or -1 with errno.
int cstowage_pipe(int fds[2]);

/// The size of a memory page.
long cstowage_page_size(void);

#ifdef __cplusplus
}
#endif

#endif
