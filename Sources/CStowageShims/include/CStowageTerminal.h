// The terminal modes of the `stowage` command's full-screen browser (`usage --interactive`):
// raw input and the modes given back exactly, also when the process crashes. Used by the
// Platform layer only (TerminalDevice).
#ifndef CSTOWAGE_TERMINAL_H
#define CSTOWAGE_TERMINAL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A terminal's modes (`struct termios`, whose layout differs between systems), kept as bytes
/// so that Swift code needs no `termios` of its own.
typedef struct cstowage_terminal_modes {
    _Alignas(8) unsigned char bytes[128];
} cstowage_terminal_modes;

/// `tcgetattr(fd, modes)`. Returns 0, or -1 with errno (ENOTTY when `fd` is no terminal).
int cstowage_terminal_get(int fd, cstowage_terminal_modes *modes);

/// `tcsetattr(fd, TCSANOW, modes)`: the modes as they were saved, byte for byte. Returns 0, or
/// -1 with errno.
int cstowage_terminal_set(int fd, const cstowage_terminal_modes *modes);

/// Sets `fd` to raw input from `modes` (what `cstowage_terminal_get` read): no echo, no line
/// editing, no signals from keys (Ctrl-C arrives as byte 3), no flow control, no CR to NL; a
/// read returns what has arrived, waiting at most a tenth of a second (VMIN 0, VTIME 1).
/// Output processing (NL to CR NL) is left as it was. Returns 0, or -1 with errno.
int cstowage_terminal_set_raw(int fd, const cstowage_terminal_modes *modes);

/// Until `cstowage_terminal_unguard`: if the process is killed by a fault signal (SIGSEGV,
/// SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE: a crash, a Swift runtime trap), first set `fd`'s
/// modes back to `modes` and write the `length` bytes of `leave` to it (the escape codes that
/// leave the browser's screen), then let the signal do what it did before (its earlier action,
/// such as Swift's backtrace, then the end of the process). Everything the handler calls is
/// async-signal-safe. One guard at a time; `leave` is copied (at most 64 bytes). Returns 0, or
/// -1 with errno (EBUSY while a guard is set, EINVAL for a `leave` too long).
int cstowage_terminal_guard(int fd, const cstowage_terminal_modes *modes, const char *leave, size_t length);

/// Gives the fault signals their earlier actions back. Does nothing without a guard.
void cstowage_terminal_unguard(void);

#ifdef __cplusplus
}
#endif

#endif
