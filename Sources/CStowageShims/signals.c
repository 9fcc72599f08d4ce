#define _GNU_SOURCE
#include "CStowageSignals.h"

#include <errno.h>
#include <fcntl.h>

#if defined(__linux__)
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

// ---- The relay: every signal in its set reaches its one destination. ----
// Two ways in, one delivery either way: a handler, for threads that leave the signals unblocked;
// and a thread waiting in sigtimedwait, for processes whose threads all block them (a Swift
// program whose main thread runs dispatch_main blocks every signal there, and the threads it
// starts inherit that), where a signal otherwise stays pending for ever. The handler is in place
// before the call returns, so no signal sent after it is lost (Dispatch's signal sources, by
// contrast, are registered later, on another thread: a signal in between is gone).

#define RELAY_LIMIT 8
static int relay_numbers[RELAY_LIMIT];
static int relay_count = 0;
static struct sigaction relay_previous[RELAY_LIMIT];
static int relay_installed = 0;
static pthread_t relay_thread;
static volatile sig_atomic_t relay_waiting = 0;
/// Forwarding: the process that gets the signals, or 0.
static volatile sig_atomic_t relay_target = 0;
/// Notifying: the pipe that gets each signal's number, or -1.
static volatile sig_atomic_t relay_notify = -1;

/// The value `relay_stop` queues to the waiting thread to wake it at once.
#define RELAY_WAKE_VALUE 0x53544f57

static void relay_deliver(int number, const siginfo_t *info) {
    int saved = errno;
    pid_t target = (pid_t)relay_target;
    int fd = (int)relay_notify;
    if (target > 0) {
        // A terminal sends SIGINT, SIGQUIT and SIGHUP to its whole foreground process group,
        // the command included: forwarding those would deliver them twice.
        if (info == NULL || info->si_code != SI_KERNEL) kill(target, number);
    } else if (fd >= 0) {
        unsigned char byte = (unsigned char)number;
        ssize_t written = write(fd, &byte, 1);  // a full pipe holds this signal's news already
        (void)written;
    }
    errno = saved;
}

static void relay_handler(int number, siginfo_t *info, void *context) {
    (void)context;
    relay_deliver(number, info);
}

static void relay_set(sigset_t *set) {
    sigemptyset(set);
    for (int index = 0; index < relay_count; index++) sigaddset(set, relay_numbers[index]);
}

static void *relay_main(void *unused) {
    (void)unused;
    sigset_t set;
    relay_set(&set);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    while (relay_waiting) {
        struct timespec tick = {1, 0};
        siginfo_t info;
        int number = sigtimedwait(&set, &info, &tick);
        if (number <= 0) continue;
        if (info.si_code == SI_QUEUE && info.si_pid == getpid() && info.si_value.sival_int == RELAY_WAKE_VALUE) continue;
        relay_deliver(number, &info);
    }
    return NULL;
}

static void relay_restore(int count) {
    for (int index = 0; index < count; index++) sigaction(relay_numbers[index], &relay_previous[index], NULL);
}

/// Installs the handlers for `numbers` and starts the waiting thread; -1 with errno, with
/// nothing installed, when either fails.
static int relay_start(const int *numbers, int count) {
    if (count <= 0 || count > RELAY_LIMIT) {
        errno = EINVAL;
        return -1;
    }
    memcpy(relay_numbers, numbers, sizeof(int) * (size_t)count);
    relay_count = count;
    for (int index = 0; index < count; index++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = relay_handler;
        action.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&action.sa_mask);
        if (sigaction(numbers[index], &action, &relay_previous[index]) != 0) {
            int saved = errno;
            relay_restore(index);
            errno = saved;
            return -1;
        }
    }
    relay_waiting = 1;
    sigset_t set, old;
    relay_set(&set);
    pthread_sigmask(SIG_BLOCK, &set, &old);  // the waiting thread starts with them blocked
    int failed = pthread_create(&relay_thread, NULL, relay_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (failed != 0) {
        relay_waiting = 0;
        relay_restore(count);
        errno = failed;
        return -1;
    }
    relay_installed = 1;
    return 0;
}

/// Ends the waiting thread and restores the earlier handlers.
static void relay_stop(void) {
    relay_waiting = 0;
    union sigval wake;
    wake.sival_int = RELAY_WAKE_VALUE;
    pthread_sigqueue(relay_thread, relay_numbers[0], wake);  // if it fails, the thread sees the flag within a second
    pthread_join(relay_thread, NULL);
    relay_restore(relay_count);
    relay_installed = 0;
}

int cstowage_forward_signals(pid_t child) {
    static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
    if (child > 0) {
        if (relay_installed && relay_target <= 0) {
            errno = EBUSY;
            return -1;
        }
        relay_target = child;
        if (relay_installed) return 0;
        if (relay_start(forwarded, (int)(sizeof forwarded / sizeof forwarded[0])) != 0) {
            int saved = errno;
            relay_target = 0;
            errno = saved;
            return -1;
        }
        return 0;
    }
    if (relay_installed && relay_target <= 0) return 0;  // not forwarding: nothing of ours to stop
    relay_target = 0;
    if (relay_installed) relay_stop();
    return 0;
}

int cstowage_notify_signals(const int *numbers, int count, int fd) {
    if (fd >= 0) {
        if (relay_installed) {
            errno = EBUSY;
            return -1;
        }
        int flags = fcntl(fd, F_GETFL);
        if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) return -1;  // a handler never waits
        relay_notify = fd;
        if (relay_start(numbers, count) != 0) {
            int saved = errno;
            relay_notify = -1;
            errno = saved;
            return -1;
        }
        return 0;
    }
    if (!relay_installed || relay_notify < 0) return 0;
    relay_stop();
    int pipe_end = (int)relay_notify;
    relay_notify = -1;
    unsigned char end = 0;
    ssize_t written = write(pipe_end, &end, 1);  // the reader ends on it
    (void)written;
    return 0;
}

#else

int cstowage_forward_signals(pid_t child) {
    (void)child;
    errno = ENOSYS;
    return -1;
}

int cstowage_notify_signals(const int *numbers, int count, int fd) {
    (void)numbers; (void)count; (void)fd;
    errno = ENOSYS;
    return -1;
}

#endif
