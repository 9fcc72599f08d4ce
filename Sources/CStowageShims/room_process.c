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

// ---- The child: async-signal-safe calls only (no allocation, no stdio, no locks). ----
// Three processes, each forked by the one before: the room's child (what stowage waits for and
// signals: it makes the namespaces and mounts, then relays signals and waits), the init of the
// room's PID namespace (PID 1: mounts /proc, relays signals, reaps every process, and reports
// how the command ended), and the command (PID 2). A PID namespace's init ignores every signal it
// has no handler for, so the command must not be it. When init ends, the kernel ends every
// process left in its namespace; each of the first two has a parent-death signal (SIGKILL), so
// a killed stowage takes the whole room with it.

/// In the room's child and in init: where relayed signals go (init, then the command), or 0.
volatile sig_atomic_t room_relay_target = 0;
/// The signals stowage ignored when it forked the child: still ignored by the command, as by
/// any program another starts (the relay's handlers replace them in the first two).
sigset_t room_ignored;

/// Writes one report record; a failure to report changes nothing for the child.
void room_report(const cstowage_room_spec *spec, int kind, int stage, int error, int index, int value, int user) {
    cstowage_room_report record;
    record.kind = kind;
    record.stage = stage;
    record.error = error;
    record.index = index;
    record.value = value;
    record.is_user_namespace = user;
    const char *bytes = (const char *)&record;
    size_t done = 0;
    while (done < sizeof record) {
        ssize_t written = write(spec->report_fd, bytes + done, sizeof record - done);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return;
        done += (size_t)written;
    }
}

/// Reports the failed step with the current errno and ends the child.
void room_fail(const cstowage_room_spec *spec, int stage, int index, int user) {
    room_report(spec, CSTOWAGE_ROOM_FAILED, stage, errno, index, 0, user);
    _exit(127);
}

char *room_append(char *cursor, char *end, const char *text) {
    while (*text != '\0' && cursor < end) *cursor++ = *text++;
    return cursor;
}

char *room_append_number(char *cursor, char *end, long value) {
    char digits[24];
    int count = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value > 0 && count < (int)sizeof digits);
    while (count > 0 && cursor < end) *cursor++ = digits[--count];
    return cursor;
}

/// Writes `text` to the file `path` in one write (the id maps must be written whole).
/// Returns 0, or -1 with errno.
int room_write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t length = strlen(text);
    ssize_t written;
    do {
        written = write(fd, text, length);
    } while (written < 0 && errno == EINTR);
    int saved = errno;
    close(fd);
    if (written != (ssize_t)length) {
        errno = written < 0 ? saved : EIO;
        return -1;
    }
    return 0;
}

/// Sends a signal sent to this process on to `room_relay_target`. A terminal's signals
/// (`SI_KERNEL`) go to its whole foreground process group, the command included, which needs no
/// second copy; a fault of this process itself ends it, as the default action would.
void room_relay(int number, siginfo_t *info, void *context) {
    (void)context;
    int saved = errno;
    if (info != NULL && info->si_code > 0) {
        if (info->si_code != SI_KERNEL) {
            struct sigaction fresh;
            memset(&fresh, 0, sizeof fresh);
            fresh.sa_handler = SIG_DFL;
            sigemptyset(&fresh.sa_mask);
            sigaction(number, &fresh, NULL);  // the faulting instruction runs again, and ends the process
        }
        errno = saved;
        return;
    }
    pid_t target = (pid_t)room_relay_target;
    if (target > 0) kill(target, number);
    errno = saved;
}

/// Every signal that can be caught goes to `room_relay`, but SIGCHLD, which stays at its default
/// (never ignored: the children must be waited for). Call it with every signal blocked.
void room_take_signals(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = room_relay;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&action.sa_mask);
    for (int number = 1; number < 65; number++) {
        if (number == SIGKILL || number == SIGSTOP || number == SIGCHLD) continue;
        sigaction(number, &action, NULL);  // fails for the C library's own real-time signals: nothing to relay
    }
    struct sigaction fresh;
    memset(&fresh, 0, sizeof fresh);
    fresh.sa_handler = SIG_DFL;
    sigemptyset(&fresh.sa_mask);
    sigaction(SIGCHLD, &fresh, NULL);
}

/// Gives the command the signal actions it would have had: default, or ignored where stowage ignored it.
void room_give_back_signals(void) {
    for (int number = 1; number < 65; number++) {
        if (number == SIGKILL || number == SIGSTOP) continue;
        struct sigaction fresh;
        memset(&fresh, 0, sizeof fresh);
        fresh.sa_handler = sigismember(&room_ignored, number) == 1 ? SIG_IGN : SIG_DFL;
        sigemptyset(&fresh.sa_mask);
        sigaction(number, &fresh, NULL);
    }
}

void room_block_signals(void) {
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
}

void room_unblock_signals(void) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/// Closes every descriptor above 2 but the `count` (at most ROOM_KEPT_LIMIT) in `keep` (negative
/// ones ignored), with as few calls as the gaps between them need.
void room_close_all_but(const int *keep, int count) {
    int sorted[ROOM_KEPT_LIMIT];
    int kept = 0;
    for (int index = 0; index < count && kept < ROOM_KEPT_LIMIT; index++) {
        if (keep[index] < 3) continue;
        int position = kept++;
        while (position > 0 && sorted[position - 1] > keep[index]) {
            sorted[position] = sorted[position - 1];
            position--;
        }
        sorted[position] = keep[index];
    }
#if defined(SYS_close_range)
    int closed = 1;
    unsigned int from = 3;
    for (int index = 0; index < kept && closed; index++) {
        if ((unsigned int)sorted[index] > from) {
            closed = syscall(SYS_close_range, from, (unsigned int)sorted[index] - 1, 0) == 0;
        }
        if ((unsigned int)sorted[index] + 1 > from) from = (unsigned int)sorted[index] + 1;
    }
    if (closed && syscall(SYS_close_range, from, ~0U, 0) == 0) return;
#endif
    // Before Linux 5.9: one close per possible descriptor.
    struct rlimit limit;
    int top = 1 << 20;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < (rlim_t)top) {
        top = (int)limit.rlim_cur;
    }
    for (int fd = 3, next = 0; fd < top; fd++) {
        while (next < kept && sorted[next] < fd) next++;
        if (next < kept && sorted[next] == fd) continue;
        close(fd);
    }
}

/// Closes every descriptor but 0, 1, 2 and `keep` (close-on-exec: the report pipe, for a failed
/// execve): the command gets only the standard three, whatever stowage or its caller had open.
static void room_close_descriptors(int keep) { room_close_all_but(&keep, 1); }

/// Ends this process as `status` says the command ended: the same exit code, or the same signal
/// (without a core dump of its own).
void room_end_as(int status) {
    if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
    int number = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
    prctl(PR_SET_DUMPABLE, 0);
    struct sigaction fresh;
    memset(&fresh, 0, sizeof fresh);
    fresh.sa_handler = SIG_DFL;
    sigemptyset(&fresh.sa_mask);
    sigaction(number, &fresh, NULL);
    kill(getpid(), number);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, number);
    sigprocmask(SIG_UNBLOCK, &only, NULL);  // delivered here
    _exit(128 + number);
}


/// PID 2: the command, with the signal actions and descriptors any program would get (in a
/// series, 0, 1 and 2 are the ones the spec names).
void room_command(const cstowage_room_spec *spec, const room_program *program, int user) {
    room_give_back_signals();
    int standard[3] = {spec->standard_input, spec->standard_output, spec->standard_error};
    for (int fd = 0; fd < 3; fd++) {
        if (spec->series && standard[fd] >= 0 && standard[fd] != fd && dup2(standard[fd], fd) < 0) {
            room_fail(spec, CSTOWAGE_ROOM_STAGE_EXECUTE, -1, user);
        }
    }
    room_close_descriptors(spec->report_fd);
    room_unblock_signals();  // a signal relayed before this ends the command here, as it would have
    execve(program->executable, program->arguments, program->environment);
    room_fail(spec, CSTOWAGE_ROOM_STAGE_EXECUTE, -1, user);
}

/// PID 1 of the room's PID namespace. Starts with every signal blocked and relayed; `link` is
/// its end of the socket pair with the room's child, whose end it has closed.
void room_init(const cstowage_room_spec *spec, const room_program *program, int link, int user) {
    room_relay_target = 0;  // the child's target is no process of this namespace
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    struct pollfd peer = {link, 0, 0};  // the child ended before the line above: its end is closed
    if (poll(&peer, 1, 0) != 0) _exit(127);
    // The namespace's own /proc, over the host's: the command sees only the room's processes.
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) {
        room_fail(spec, CSTOWAGE_ROOM_STAGE_MOUNT_PROC, -1, user);
    }
    // Every process of the room can open what PID 1 holds through /proc/1/fd: init must hold
    // nothing but its link before the command runs. In a series the child's descriptors of the
    // real folders and the layer's root came with the fork; there are also the report pipe (the
    // command's copy closes on execve; the parent reads the end) and the standard streams the
    // command gets from here. The command waits at the gate until init has closed them all
    // (the gate's write end with them: the command then reads the end of the gate).
    int gate[2];
    if (pipe2(gate, O_CLOEXEC) != 0) room_fail(spec, CSTOWAGE_ROOM_STAGE_START, -1, user);
    pid_t command = fork();
    if (command < 0) room_fail(spec, CSTOWAGE_ROOM_STAGE_START, -1, user);
    if (command == 0) {
        close(link);
        close(gate[1]);
        char none;
        while (read(gate[0], &none, 1) < 0 && errno == EINTR) {}
        close(gate[0]);
        room_command(spec, program, user);
    }
    room_relay_target = command;
    room_close_all_but(&link, 1);
    for (int fd = 0; fd < 3; fd++) {
        if (fd != link) close(fd);
    }
    room_unblock_signals();
    // Every process of the namespace whose parent ends becomes this one's: reap them all, and
    // the command last, without reaping it until the relay stops (its number stays its own).
    for (;;) {
        siginfo_t info;
        memset(&info, 0, sizeof info);
        if (waitid(P_ALL, 0, &info, WEXITED | WNOWAIT) != 0) {
            if (errno == EINTR) continue;
            _exit(127);
        }
        if (info.si_pid == command) break;
        while (waitpid(info.si_pid, NULL, 0) < 0 && errno == EINTR) {}
    }
    room_block_signals();
    room_relay_target = 0;
    int status = 0;
    while (waitpid(command, &status, 0) < 0 && errno == EINTR) {}
    ssize_t sent;
    do {
        sent = send(link, &status, sizeof status, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    _exit(0);  // and the kernel ends every process left in the namespace
}

#endif
