#define _GNU_SOURCE
#include "CStowageSignals.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <pthread.h>
#endif

// ---- Taking signals over and giving them back (every platform). ----

#define SIGNALS_LIMIT 8

/// The signals one caller took over, and their actions from before.
typedef struct signal_set_saved {
    int numbers[SIGNALS_LIMIT];
    int count;
    struct sigaction previous[SIGNALS_LIMIT];
} signal_set_saved;

/// Whether `numbers` can be taken over: 1 to SIGNALS_LIMIT positive numbers, none twice (a
/// second save of the same signal would save our own action, and restore it last).
static int signals_valid(const int *numbers, int count) {
    if (numbers == NULL || count <= 0 || count > SIGNALS_LIMIT) return 0;
    for (int index = 0; index < count; index++) {
        if (numbers[index] <= 0) return 0;
        for (int other = 0; other < index; other++) {
            if (numbers[other] == numbers[index]) return 0;
        }
    }
    return 1;
}

/// Restores the saved actions of the first `count` signals, the last taken first.
static void signals_restore(signal_set_saved *saved, int count) {
    for (int index = count - 1; index >= 0; index--) sigaction(saved->numbers[index], &saved->previous[index], NULL);
}

/// Gives each of `numbers` the action `action`, saving the earlier ones in `saved`; -1 with
/// errno, and every action as before, when one fails.
static int signals_take(signal_set_saved *saved, const int *numbers, int count, const struct sigaction *action) {
    if (!signals_valid(numbers, count)) {
        errno = EINVAL;
        return -1;
    }
    memcpy(saved->numbers, numbers, sizeof(int) * (size_t)count);
    saved->count = count;
    for (int index = 0; index < count; index++) {
        if (sigaction(numbers[index], action, &saved->previous[index]) != 0) {
            int failure = errno;
            signals_restore(saved, index);
            errno = failure;
            return -1;
        }
    }
    return 0;
}

static signal_set_saved ignored;
static int ignored_installed = 0;

int cstowage_ignore_signals(const int *numbers, int count) {
    if (numbers != NULL) {
        if (ignored_installed) {
            errno = EBUSY;
            return -1;
        }
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = SIG_IGN;
        sigemptyset(&action.sa_mask);
        if (signals_take(&ignored, numbers, count, &action) != 0) return -1;
        ignored_installed = 1;
        return 0;
    }
    if (!ignored_installed) return 0;
    signals_restore(&ignored, ignored.count);
    ignored_installed = 0;
    return 0;
}

#if defined(__linux__)

// ---- The relay: every signal in its set reaches its one destination (Linux). ----
// Two ways in, one delivery either way: a handler, for threads that leave the signals unblocked;
// and a thread waiting in sigtimedwait, for processes whose threads all block them (a Swift
// program whose main thread runs dispatch_main blocks every signal there, and the threads it
// starts inherit that), where a signal otherwise stays pending for ever. The handler is in place
// before the call returns, so no signal sent after it is lost (Dispatch's signal sources, by
// contrast, are registered later, on another thread: a signal in between is gone).

static signal_set_saved relay;
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
    for (int index = 0; index < relay.count; index++) sigaddset(set, relay.numbers[index]);
}

static int relay_is_wake(const siginfo_t *info) {
    return info->si_code == SI_QUEUE && info->si_pid == getpid() && info->si_value.sival_int == RELAY_WAKE_VALUE;
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
        if (number <= 0 || relay_is_wake(&info)) continue;
        relay_deliver(number, &info);
    }
    return NULL;
}

/// Installs the handlers for `numbers` and starts the waiting thread; -1 with errno, with
/// nothing installed, when either fails.
static int relay_start(const int *numbers, int count) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = relay_handler;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    if (signals_take(&relay, numbers, count, &action) != 0) return -1;
    relay_waiting = 1;
    sigset_t set, old;
    relay_set(&set);
    pthread_sigmask(SIG_BLOCK, &set, &old);  // the waiting thread starts with them blocked
    int failed = pthread_create(&relay_thread, NULL, relay_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (failed != 0) {
        relay_waiting = 0;
        signals_restore(&relay, relay.count);
        errno = failed;
        return -1;
    }
    relay_installed = 1;
    return 0;
}

/// Ends the waiting thread, delivers what is still pending, and restores the earlier handlers.
static void relay_stop(void) {
    relay_waiting = 0;
    union sigval wake;
    wake.sival_int = RELAY_WAKE_VALUE;
    pthread_sigqueue(relay_thread, relay.numbers[0], wake);  // if it fails, the thread sees the flag within a second
    pthread_join(relay_thread, NULL);
    // A signal sent before the stop, pending because every thread blocks it (the waiting thread
    // took its wake first), is delivered now rather than left for whoever unblocks it later.
    sigset_t set, old;
    relay_set(&set);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    struct timespec none = {0, 0};
    siginfo_t info;
    int number;
    while ((number = sigtimedwait(&set, &info, &none)) > 0) {
        if (!relay_is_wake(&info)) relay_deliver(number, &info);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    signals_restore(&relay, relay.count);
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
    return cstowage_forward_signals_stop(0);
}

int cstowage_forward_signals_stop(pid_t only) {
    if (!relay_installed || relay_target <= 0) return 0;  // not forwarding: nothing of ours to stop
    if (only > 0 && relay_target != only) return 0;       // forwarding to another room's command
    relay_stop();  // what is pending still goes to the child, which has not been reaped
    relay_target = 0;
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

int cstowage_forward_signals_stop(pid_t only) {
    (void)only;
    return 0;
}

int cstowage_notify_signals(const int *numbers, int count, int fd) {
    (void)numbers; (void)count; (void)fd;
    errno = ENOSYS;
    return -1;
}

#endif
