#include "CStowageTerminal.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

_Static_assert(sizeof(struct termios) <= sizeof(((cstowage_terminal_modes *)0)->bytes),
               "struct termios does not fit cstowage_terminal_modes");

int cstowage_terminal_get(int fd, cstowage_terminal_modes *modes) {
    struct termios settings;
    if (tcgetattr(fd, &settings) != 0) return -1;
    memset(modes->bytes, 0, sizeof(modes->bytes));
    memcpy(modes->bytes, &settings, sizeof(settings));
    return 0;
}

int cstowage_terminal_set(int fd, const cstowage_terminal_modes *modes) {
    struct termios settings;
    memcpy(&settings, modes->bytes, sizeof(settings));
    return tcsetattr(fd, TCSANOW, &settings);
}

int cstowage_terminal_set_raw(int fd, const cstowage_terminal_modes *modes) {
    struct termios settings;
    memcpy(&settings, modes->bytes, sizeof(settings));
    settings.c_lflag &= ~(tcflag_t)(ECHO | ICANON | IEXTEN | ISIG);
    settings.c_iflag &= ~(tcflag_t)(IXON | ICRNL | BRKINT | INPCK | ISTRIP);
    settings.c_cflag = (settings.c_cflag & ~(tcflag_t)CSIZE) | CS8;
    settings.c_cc[VMIN] = 0;
    settings.c_cc[VTIME] = 1;
    return tcsetattr(fd, TCSANOW, &settings);
}

// ---- The crash guard. ----

enum { GUARDED_COUNT = 6, LEAVE_LIMIT = 64 };
static const int guarded_signals[GUARDED_COUNT] = { SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE };
static struct sigaction guard_previous[GUARDED_COUNT];
static struct termios guard_modes;
static char guard_leave[LEAVE_LIMIT];
static size_t guard_leave_length;
static int guard_fd = -1;
static volatile sig_atomic_t guard_set = 0;

static void give_back_actions(void) {
    for (int index = 0; index < GUARDED_COUNT; index++) sigaction(guarded_signals[index], &guard_previous[index], NULL);
}

/// Restores the terminal, gives every fault signal its earlier action back and returns: a fault
/// of an instruction happens again and meets that action; `abort` raises SIGABRT again itself.
static void guard_handler(int number) {
    (void)number;
    int saved = errno;
    if (guard_set) {
        guard_set = 0;
        tcsetattr(guard_fd, TCSANOW, &guard_modes);
        size_t written = 0;
        while (written < guard_leave_length) {
            ssize_t count = write(guard_fd, guard_leave + written, guard_leave_length - written);
            if (count > 0) written += (size_t)count;
            else if (count < 0 && errno == EINTR) continue;
            else break;
        }
        give_back_actions();
    }
    errno = saved;
}

int cstowage_terminal_guard(int fd, const cstowage_terminal_modes *modes, const char *leave, size_t length) {
    if (guard_set) { errno = EBUSY; return -1; }
    if (length > LEAVE_LIMIT) { errno = EINVAL; return -1; }
    memcpy(&guard_modes, modes->bytes, sizeof(guard_modes));
    memcpy(guard_leave, leave, length);
    guard_leave_length = length;
    guard_fd = fd;
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = guard_handler;
    sigemptyset(&action.sa_mask);
    for (int index = 0; index < GUARDED_COUNT; index++) {
        if (sigaction(guarded_signals[index], &action, &guard_previous[index]) != 0) {
            int saved = errno;
            for (int done = 0; done < index; done++) sigaction(guarded_signals[done], &guard_previous[done], NULL);
            errno = saved;
            return -1;
        }
    }
    guard_set = 1;
    return 0;
}

void cstowage_terminal_unguard(void) {
    if (!guard_set) return;
    guard_set = 0;
    give_back_actions();
}
