// Signals a person or a program sends to this process, caught without a gap: forwarded to the
// command `stowage run` runs, or turned into bytes on a pipe for the `stowage` command to read.
// Used by the Platform layer only.
#ifndef CSTOWAGE_SIGNALS_H
#define CSTOWAGE_SIGNALS_H

#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Forwards the signals a person or a program sends to this process (SIGINT, SIGTERM, SIGHUP,
/// SIGQUIT, SIGUSR1, SIGUSR2 from `kill`, not those a terminal sends to the whole foreground
/// process group, which reach `child` directly) to `child`; 0 stops forwarding (what is pending
/// still goes to `child`: stop before reaping it) and restores the earlier handlers. EBUSY while
/// the signals are being written to a pipe (`cstowage_notify_signals`). Not thread-safe: callers
/// serialise. Returns 0, or -1 with errno (ENOSYS off Linux).
int cstowage_forward_signals(pid_t child);

/// Stops forwarding, as `cstowage_forward_signals(0)`, but only while the signals go to `only`
/// (0: to whichever process): a room that ends never stops another room's forwarding.
int cstowage_forward_signals_stop(pid_t only);

/// Sets the `count` signals in `numbers` (at most 8, none twice) to be ignored, saving their
/// earlier actions (flags and mask included); NULL as `numbers` restores those. For Dispatch
/// signal sources on Apple platforms, which see a signal without a handler. EBUSY while signals
/// are ignored already, EINVAL for a bad list. Not thread-safe: callers serialise. Returns 0, or
/// -1 with errno.
int cstowage_ignore_signals(const int *numbers, int count);

/// Catches the `count` signals in `numbers` (at most 8, none twice) and writes each one that
/// arrives, as one byte holding its number, to `fd` (the write end of a pipe, made non-blocking:
/// when the pipe is full, the signals already in it say enough). Signals still pending when it
/// stops are written too. -1 as `fd` stops, restores the earlier
/// handlers and writes a 0 byte, for a reader to end on. The fd stays in use by a handler that
/// was running as the signals were given back: close it only when the process ends. EBUSY while
/// signals are forwarded or written elsewhere. Not thread-safe: callers serialise. Returns 0, or
/// -1 with errno (ENOSYS off Linux).
int cstowage_notify_signals(const int *numbers, int count, int fd);

#ifdef __cplusplus
}
#endif

#endif
