// Stand-in for <signal.h> (Libc-1725.0.11: include/signal.h; xnu-11417.101.15: bsd/sys/signal.h).
#ifndef STOWAGE_STANDIN_SIGNAL_H
#define STOWAGE_STANDIN_SIGNAL_H

#include <sys/types.h>

#define SIGINT  2
#define SIGKILL 9
#define SIGTERM 15

int kill(pid_t, int);

/// xnu bsd/sys/signal.h: the type of a signal handler (under !_POSIX_C_SOURCE || _DARWIN_C_SOURCE).
typedef void (*sig_t)(int);

/// xnu bsd/sys/signal.h: signal(3), which sets a signal's action and returns the earlier one.
void (*signal(int, void (*)(int)))(int);

#endif
