// Stand-in for <signal.h> (Libc-1725.0.11: include/signal.h; xnu-11417.101.15: bsd/sys/signal.h).
#ifndef STOWAGE_STANDIN_SIGNAL_H
#define STOWAGE_STANDIN_SIGNAL_H

#include <sys/types.h>

// bsd/sys/signal.h: the POSIX signals (Platform/Signal.swift names them).
#define SIGHUP    1
#define SIGINT    2
#define SIGQUIT   3
#define SIGILL    4
#define SIGTRAP   5
#define SIGABRT   6
#define SIGFPE    8
#define SIGKILL   9
#define SIGBUS    10
#define SIGSEGV   11
#define SIGSYS    12
#define SIGPIPE   13
#define SIGALRM   14
#define SIGTERM   15
#define SIGURG    16
#define SIGSTOP   17
#define SIGTSTP   18
#define SIGCONT   19
#define SIGCHLD   20
#define SIGTTIN   21
#define SIGTTOU   22
#define SIGIO     23
#define SIGXCPU   24
#define SIGXFSZ   25
#define SIGVTALRM 26
#define SIGPROF   27
#define SIGWINCH  28
#define SIGUSR1   30
#define SIGUSR2   31

int kill(pid_t, int);

// bsd/arm/signal.h and bsd/i386/signal.h: what a handler may set atomically.
typedef int sig_atomic_t;

// bsd/sys/_types/_sigset_t.h: a signal set is 32 bits on Darwin (__darwin_sigset_t).
typedef __uint32_t sigset_t;

// bsd/sys/signal.h: what a signal carries (a number or a pointer), and what a handler installed
// with SA_SIGINFO is told about the signal. A complete type, as in Apple's header.
union sigval {
    int sival_int;
    void *sival_ptr;
};

typedef struct __siginfo {
    int si_signo;           // the signal
    int si_errno;           // an errno value that goes with it
    int si_code;            // why it was sent
    pid_t si_pid;           // the sending process
    uid_t si_uid;           // its real user
    int si_status;          // an exit status
    void *si_addr;          // the faulting address
    union sigval si_value;  // the value sent with it
    long si_band;           // the band event of SIGPOLL
    unsigned long __pad[7]; // reserved
} siginfo_t;

// bsd/sys/signal.h: the handler of a sigaction, and sigaction itself.
union __sigaction_u {
    void (*__sa_handler)(int);
    void (*__sa_sigaction)(int, struct __siginfo *, void *);
};

struct sigaction {
    union __sigaction_u __sigaction_u;  // signal handler
    sigset_t sa_mask;                   // signal mask to apply
    int sa_flags;                       // see signal options
};

#define sa_handler __sigaction_u.__sa_handler
#define sa_sigaction __sigaction_u.__sa_sigaction

// bsd/sys/signal.h: the "ignore" action.
#define SIG_IGN (void (*)(int))1

// include/signal.h (Libc): sigaction(2) and sigemptyset(3).
int sigaction(int, const struct sigaction *, struct sigaction *);
int sigemptyset(sigset_t *);

// include/signal.h (Libc) and bsd/sys/signal.h: what the stowage command needs to end itself by
// the signal that ended its child (Sources/stowage/RunCommand.swift).
typedef void (*sig_t)(int);  // bsd/sys/signal.h
#define SIG_DFL (void (*)(int))0  // a cast: Swift sees the overlay's SIG_DFL instead
#define SIG_UNBLOCK 2
int sigaddset(sigset_t *, int);
int sigprocmask(int, const sigset_t *, sigset_t *);
int raise(int);
void (*signal(int, void (*)(int)))(int);

#endif
