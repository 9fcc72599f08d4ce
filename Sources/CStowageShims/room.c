#define _GNU_SOURCE
#include "CStowageRoom.h"
#include "room_child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <poll.h>
#include <linux/loop.h>
#endif

#if defined(__linux__)


/// Mounts the layer (with `options`) on the first folder and an overlay over each folder whose
/// `lower` is open, and sets `mounted[index]` for each overlay mounted. Returns the layer's root,
/// open. The layer is mounted on the first folder, where the overlay mounted next hides it from
/// the command; its root stays reachable through the descriptor (and the parent's copy of it).
static int room_mount(const cstowage_room_spec *spec, const int *lower, int *mounted, const char *options, int user) {
    if (mount(spec->layer_source, spec->folders[0].path, spec->layer_type, 0, options) != 0) {
        room_fail(spec, CSTOWAGE_ROOM_STAGE_MOUNT_LAYER, 0, user);
    }
    int layer = open(spec->folders[0].path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (layer < 0) room_fail(spec, CSTOWAGE_ROOM_STAGE_LAYER_FOLDERS, 0, user);
    if (mkdirat(layer, "upper", 0700) != 0 || mkdirat(layer, "work", 0700) != 0) {
        room_fail(spec, CSTOWAGE_ROOM_STAGE_LAYER_FOLDERS, 0, user);
    }
    int upper = openat(layer, "upper", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int work = openat(layer, "work", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (upper < 0 || work < 0) room_fail(spec, CSTOWAGE_ROOM_STAGE_LAYER_FOLDERS, 0, user);

    for (int index = 0; index < spec->folder_count; index++) {
        mounted[index] = 0;
        if (lower[index] < 0) continue;
        const cstowage_room_folder *folder = &spec->folders[index];
        char name[24];
        *room_append_number(name, name + sizeof name - 1, index) = '\0';
        if (mkdirat(upper, name, 0700) != 0 || mkdirat(work, name, 0700) != 0) {
            room_fail(spec, CSTOWAGE_ROOM_STAGE_LAYER_FOLDERS, index, user);
        }
        // The merged folder shows its upper folder's owner and mode. The owner cannot be given
        // in a user namespace where it is not mapped; the folder then shows the user's own.
        (void)fchownat(upper, name, folder->owner, folder->group, AT_SYMLINK_NOFOLLOW);
        if (fchmodat(upper, name, folder->mode & 07777, 0) != 0) room_fail(spec, CSTOWAGE_ROOM_STAGE_LAYER_FOLDERS, index, user);

        // Paths through /proc/self/fd: no user path in the options, so no escaping of ',' or ':'.
        char overlay[256];
        char *end = overlay + sizeof overlay - 1;
        char *cursor = room_append(overlay, end, "lowerdir=/proc/self/fd/");
        cursor = room_append_number(cursor, end, lower[index]);
        cursor = room_append(cursor, end, ",upperdir=/proc/self/fd/");
        cursor = room_append_number(cursor, end, layer);
        cursor = room_append(cursor, end, "/upper/");
        cursor = room_append(cursor, end, name);
        cursor = room_append(cursor, end, ",workdir=/proc/self/fd/");
        cursor = room_append_number(cursor, end, layer);
        cursor = room_append(cursor, end, "/work/");
        cursor = room_append(cursor, end, name);
        *cursor = '\0';
        if (mount("stowage-room", folder->path, "overlay", 0, overlay) != 0) {
            if (!folder->is_optional) room_fail(spec, CSTOWAGE_ROOM_STAGE_MOUNT_OVERLAY, index, user);
            room_report(spec, CSTOWAGE_ROOM_SKIPPED, CSTOWAGE_ROOM_STAGE_MOUNT_OVERLAY, errno, index, 0, user);
            continue;
        }
        mounted[index] = 1;
    }
    close(upper);
    close(work);
    return layer;
}

/// A series: unmounts the overlays (the innermost first) and the layer beneath them. Only the
/// child's own mounts are in its namespace: each run mounts its /proc in a namespace of its own.
static void room_unmount(const cstowage_room_spec *spec, int *mounted, int user) {
    for (int index = spec->folder_count - 1; index >= 0; index--) {
        if (!mounted[index]) continue;
        if (umount2(spec->folders[index].path, MNT_DETACH | UMOUNT_NOFOLLOW) != 0) {
            room_fail(spec, CSTOWAGE_ROOM_STAGE_UNMOUNT, index, user);
        }
        mounted[index] = 0;
    }
    if (umount2(spec->folders[0].path, MNT_DETACH | UMOUNT_NOFOLLOW) != 0) room_fail(spec, CSTOWAGE_ROOM_STAGE_UNMOUNT, 0, user);
}

/// Runs `program` in the room as its command: enters the working folder, forks the PID
/// namespace's init (which forks the program), relays signals to it, and ends as the program
/// did once every process of the namespace has ended. The caller has made the PID namespace.
static void room_start(const cstowage_room_spec *spec, const room_program *program, int user) {
    if (spec->working_directory != NULL && chdir(spec->working_directory) != 0) {
        room_fail(spec, CSTOWAGE_ROOM_STAGE_WORKING_FOLDER, -1, user);
    }
    // The socket pair: init's ending report comes back on it, and init sees the child gone on it.
    int link[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, link) != 0) room_fail(spec, CSTOWAGE_ROOM_STAGE_START, -1, user);
    room_block_signals();  // a signal sent from here on waits for its relay's target
    room_take_signals();
    pid_t init = fork();
    if (init < 0) room_fail(spec, CSTOWAGE_ROOM_STAGE_START, -1, user);
    if (init == 0) {
        close(link[0]);
        room_init(spec, program, link[1], user);
    }
    close(link[1]);
    room_relay_target = init;
    close(spec->report_fd);
    room_unblock_signals();
    // Waits for init without reaping it until the relay stops, so no signal reaches a process
    // that took its number. Init ends once every process of the namespace has.
    for (;;) {
        siginfo_t info;
        memset(&info, 0, sizeof info);
        if (waitid(P_PID, (id_t)init, &info, WEXITED | WNOWAIT) == 0) break;
        if (errno != EINTR) _exit(127);
    }
    room_block_signals();
    room_relay_target = 0;
    int init_status = 0;
    while (waitpid(init, &init_status, 0) < 0 && errno == EINTR) {}
    int status = 0;
    ssize_t received;
    do {
        received = read(link[0], &status, sizeof status);
    } while (received < 0 && errno == EINTR);
    // Without init's report (it failed, or was killed), the child ends as init did.
    room_end_as(received == (ssize_t)sizeof status ? status : init_status);
}

/// A series: answers the parent's requests until it closes the go-ahead pipe (then the child
/// exits, and the namespace goes with its mounts), or dies (then its parent-death signal ends
/// the child, and each run's runner and init theirs).
static void room_series(const cstowage_room_spec *spec, int *lower, int *mounted, int layer, int user) {
    pid_t self = getpid();
    for (;;) {
        cstowage_room_request request;
        size_t done = 0;
        while (done < sizeof request) {
            ssize_t count = read(spec->go_fd, (char *)&request + done, sizeof request - done);
            if (count < 0 && errno == EINTR) continue;
            if (count == 0 && done == 0) _exit(0);  // the series is over
            if (count <= 0) {
                if (count == 0) errno = EPIPE;
                room_fail(spec, CSTOWAGE_ROOM_STAGE_REQUEST, -1, user);
            }
            done += (size_t)count;
        }
        request.options[sizeof request.options - 1] = '\0';
        switch (request.operation) {
        case CSTOWAGE_ROOM_REMAKE:
            room_unmount(spec, mounted, user);
            close(layer);
            layer = room_mount(spec, lower, mounted, request.options, user);
            room_report(spec, CSTOWAGE_ROOM_READY, 0, 0, -1, layer, user);
            break;
        case CSTOWAGE_ROOM_LIFT: {
            char path[48];
            char *end = path + sizeof path - 1;
            char *cursor = room_append(path, end, "/proc/self/fd/");
            cursor = room_append_number(cursor, end, layer);
            *cursor = '\0';
            if (mount(NULL, path, NULL, MS_REMOUNT, request.options) != 0) room_fail(spec, CSTOWAGE_ROOM_STAGE_LIFT, -1, user);
            room_report(spec, CSTOWAGE_ROOM_LIFTED, 0, 0, -1, 0, user);
            break;
        }
        case CSTOWAGE_ROOM_RUN_COMMAND:
        case CSTOWAGE_ROOM_RUN_CHECK: {
            room_program program = {spec->executable, spec->arguments, spec->environment};
            if (request.operation == CSTOWAGE_ROOM_RUN_CHECK) {
                char *entry = spec->check_status_entry;
                char *cursor = room_append(entry, entry + 47, "STOWAGE_COMMAND_STATUS=");
                cursor = room_append_number(cursor, entry + 47, request.value < 0 ? 0 : request.value);
                *cursor = '\0';
                program.executable = spec->check_executable;
                program.arguments = spec->check_arguments;
                program.environment = spec->check_environment;
            }
            pid_t runner = fork();
            if (runner < 0) room_fail(spec, CSTOWAGE_ROOM_STAGE_START, -1, user);
            if (runner == 0) {
                // The run's own PID namespace (a PID namespace dies with its init) and mount
                // namespace (its /proc goes with it; nothing it mounts reaches the next room).
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (getppid() != self) _exit(127);
                close(spec->go_fd);
                if (unshare(CLONE_NEWNS | CLONE_NEWPID) != 0) room_fail(spec, CSTOWAGE_ROOM_STAGE_PID_NAMESPACE, -1, user);
                room_start(spec, &program, user);
            }
            int status = 0;
            while (waitpid(runner, &status, 0) < 0) {
                if (errno != EINTR) room_fail(spec, CSTOWAGE_ROOM_STAGE_START, -1, user);
            }
            room_report(spec, CSTOWAGE_ROOM_ENDED, 0, 0, -1, status, user);
            break;
        }
        default:
            errno = EINVAL;
            room_fail(spec, CSTOWAGE_ROOM_STAGE_REQUEST, -1, user);
        }
    }
}

static void room_child(const cstowage_room_spec *spec) {
    // Signals: nothing of the parent's may run here. Caught signals go back to their default
    // action (exec would do it too, but a signal could arrive before); ignored ones stay ignored,
    // as with any program started by another. Then every signal is unblocked.
    sigemptyset(&room_ignored);
    for (int number = 1; number < 65; number++) {
        struct sigaction old;
        if (sigaction(number, NULL, &old) != 0) continue;
        if (old.sa_handler == SIG_IGN) sigaddset(&room_ignored, number);
        if (old.sa_handler == SIG_DFL || old.sa_handler == SIG_IGN) continue;
        struct sigaction fresh = {0};
        fresh.sa_handler = SIG_DFL;
        sigemptyset(&fresh.sa_mask);
        sigaction(number, &fresh, NULL);
    }
    // A series outlives its runs: a terminal's Ctrl-C, which reaches the whole process group,
    // must not end it before stowage (which traps SIGINT) ends the range itself; its runs relay
    // or take the signal as ever (the commands get the actions in room_ignored).
    if (spec->series) {
        struct sigaction ignore;
        memset(&ignore, 0, sizeof ignore);
        ignore.sa_handler = SIG_IGN;
        sigemptyset(&ignore.sa_mask);
        sigaction(SIGINT, &ignore, NULL);
    }
    // Every other descriptor of the parent goes at once, close-on-exec or not: this process, init
    // and the command before its execve never exec, and would hold for the room's whole life
    // what another thread of the parent had open at the fork (a file it removes then keeps its
    // blocks, a flock stays taken, a mount stays busy). The parent's ends of the pipes go with them.
    int needed[5] = {spec->report_fd, spec->go_fd, -1, -1, -1};
    _Static_assert(sizeof needed / sizeof needed[0] <= ROOM_KEPT_LIMIT, "room_close_all_but keeps at most ROOM_KEPT_LIMIT");
    if (spec->series) {
        needed[2] = spec->standard_input;
        needed[3] = spec->standard_output;
        needed[4] = spec->standard_error;
    }
    room_close_all_but(needed, 5);
    // Also when one is 0, 1 or 2 (stowage started with those closed): never a command's standard stream.
    close(spec->parent_report_fd);
    close(spec->parent_go_fd);
    // If the parent dies, so does the child (and with it the namespace, once its processes end).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (getppid() != spec->parent) _exit(127);

    int user = spec->namespace_mode == CSTOWAGE_ROOM_USER_NAMESPACE;
    if (!user && unshare(CLONE_NEWNS) != 0) {
        if (errno != EPERM) room_fail(spec, CSTOWAGE_ROOM_STAGE_MOUNT_NAMESPACE, -1, 0);
        user = 1;  // root without CAP_SYS_ADMIN (a container): a user namespace may still be allowed
    }
    if (user) {
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) room_fail(spec, CSTOWAGE_ROOM_STAGE_USER_NAMESPACE, -1, 1);
        if (room_write_file("/proc/self/setgroups", "deny") != 0 && errno != ENOENT) {
            room_fail(spec, CSTOWAGE_ROOM_STAGE_ID_MAPS, -1, 1);
        }
        if (room_write_file("/proc/self/uid_map", spec->uid_map) != 0) room_fail(spec, CSTOWAGE_ROOM_STAGE_ID_MAPS, -1, 1);
        if (room_write_file("/proc/self/gid_map", spec->gid_map) != 0) room_fail(spec, CSTOWAGE_ROOM_STAGE_ID_MAPS, -1, 1);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != spec->parent) _exit(127);
    }
    // The next process forked here is PID 1 of a namespace of its own (the room's init). A
    // series makes one per run instead (in its runner): a PID namespace dies with its init.
    if (!spec->series && unshare(CLONE_NEWPID) != 0) room_fail(spec, CSTOWAGE_ROOM_STAGE_PID_NAMESPACE, -1, user);
    // Nothing mounted from here on propagates to the host's mount namespace.
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) room_fail(spec, CSTOWAGE_ROOM_STAGE_PRIVATE, -1, user);

    // Every folder is opened before anything is mounted over it: the overlays read the real
    // folders through these descriptors, whatever is mounted on their paths later.
    int count = spec->folder_count > 0 ? spec->folder_count : 1;
    int lower[count];
    int mounted[count];
    for (int index = 0; index < spec->folder_count; index++) {
        mounted[index] = 0;
        lower[index] = open(spec->folders[index].path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (lower[index] >= 0) continue;
        if (!spec->folders[index].is_optional) room_fail(spec, CSTOWAGE_ROOM_STAGE_OPEN_FOLDER, index, user);
        room_report(spec, CSTOWAGE_ROOM_SKIPPED, CSTOWAGE_ROOM_STAGE_OPEN_FOLDER, errno, index, 0, user);
    }
    int layer = room_mount(spec, lower, mounted, spec->layer_options, user);
    if (!spec->series) {
        for (int index = 0; index < spec->folder_count; index++) {
            if (lower[index] >= 0) close(lower[index]);
        }
    }

    // The parent opens the layer through /proc/<pid>/fd/<layer>, sizes it, and says go.
    room_report(spec, CSTOWAGE_ROOM_READY, 0, 0, -1, layer, user);
    if (spec->series) room_series(spec, lower, mounted, layer, user);
    char go = 0;
    ssize_t received;
    do {
        received = read(spec->go_fd, &go, 1);
    } while (received < 0 && errno == EINTR);
    if (received != 1) {
        errno = ECANCELED;
        room_fail(spec, CSTOWAGE_ROOM_STAGE_PARENT_GONE, -1, user);
    }
    close(spec->go_fd);
    close(layer);  // the parent holds the layer open now
    room_program program = {spec->executable, spec->arguments, spec->environment};
    room_start(spec, &program, user);
}

// ---- The spawner: one thread that lives as long as the process and forks every room's child. ----
// A child's parent-death signal fires when the *thread* that forked it ends, not the process:
// forking from a caller's thread (a pool thread that is later retired) would kill the command.

static pthread_once_t spawner_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t spawner_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t spawner_changed = PTHREAD_COND_INITIALIZER;
static int spawner_state = 0;  // 0 idle, 1 a request waits, 2 its answer waits, -1 no thread
static const cstowage_room_spec *spawner_request;
static pid_t spawner_pid;
static int spawner_errno;

static void *spawner_main(void *unused) {
    (void)unused;
    pthread_mutex_lock(&spawner_lock);
    for (;;) {
        while (spawner_state != 1) pthread_cond_wait(&spawner_changed, &spawner_lock);
        pid_t pid = fork();
        if (pid == 0) {
            room_child(spawner_request);
            _exit(127);
        }
        spawner_pid = pid;
        spawner_errno = pid < 0 ? errno : 0;
        spawner_state = 2;
        pthread_cond_broadcast(&spawner_changed);
    }
    return NULL;
}

static void spawner_start(void) {
    // Every signal blocked in the spawner (it inherits this thread's mask, restored after), so
    // that no signal is ever delivered to it; the child unblocks them all itself.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    int failed = pthread_create(&thread, &attributes, spawner_main, NULL);
    pthread_attr_destroy(&attributes);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (failed != 0) {
        spawner_errno = failed;
        spawner_state = -1;
    }
}

pid_t cstowage_room_spawn(const cstowage_room_spec *spec) {
    pthread_once(&spawner_once, spawner_start);
    pthread_mutex_lock(&spawner_lock);
    if (spawner_state == -1) {
        int failed = spawner_errno;
        pthread_mutex_unlock(&spawner_lock);
        errno = failed;
        return -1;
    }
    while (spawner_state != 0) pthread_cond_wait(&spawner_changed, &spawner_lock);
    spawner_request = spec;
    spawner_state = 1;
    pthread_cond_broadcast(&spawner_changed);
    while (spawner_state != 2) pthread_cond_wait(&spawner_changed, &spawner_lock);
    pid_t pid = spawner_pid;
    int failed = spawner_errno;
    spawner_state = 0;
    pthread_cond_broadcast(&spawner_changed);
    pthread_mutex_unlock(&spawner_lock);
    errno = failed;
    return pid;
}

#else

pid_t cstowage_room_spawn(const cstowage_room_spec *spec) {
    (void)spec;
    errno = ENOSYS;
    return -1;
}

#endif
