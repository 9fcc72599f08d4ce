#define _GNU_SOURCE
#include "CStowageShims.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#if defined(__linux__)
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#endif

// ---- Loads from a shared file mapping that survive the file being cut short. ----
//
// A page of a MAP_SHARED mapping that the file no longer reaches (truncated by a backup restore
// or a cleaning tool) raises SIGBUS on the next load, on Linux and Darwin alike. Checking the
// file's size first (fstat) costs a system call per load and still leaves a window; a handler
// that turns the fault into a failed load costs nothing until it happens.
//
// Linux only: the Apple type-check's stand-in headers (DarwinCheck/Surface) have no <setjmp.h> nor
// <pthread.h>, and a hand-written jmp_buf is what that check exists to prevent; Apple platforms
// read the words with pread instead, which cannot fault (SharedMapping+Darwin.swift). Elsewhere
// these load unguarded.

#if defined(__linux__)

/// The action SIGBUS had before ours, passed every fault that is not a guarded load's.
static struct sigaction previous_action;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static int install_error;

/// Where the guarded load running on this thread jumps back to on a fault; NULL when none runs.
/// Touched by this thread before any fault, so its storage exists when the handler reads it.
static _Thread_local sigjmp_buf *volatile armed_jump;

static void on_bus_error(int signal_number, siginfo_t *info, void *context) {
    sigjmp_buf *jump = armed_jump;
    if (jump != NULL) {
        armed_jump = NULL;
        siglongjmp(*jump, 1);  // SA_NODEFER: SIGBUS is not blocked here, so not after the jump either
    }
    if (previous_action.sa_flags & SA_SIGINFO) {
        if (previous_action.sa_sigaction != NULL) {
            previous_action.sa_sigaction(signal_number, info, context);
            return;
        }
    } else if (previous_action.sa_handler != SIG_DFL && previous_action.sa_handler != SIG_IGN) {
        previous_action.sa_handler(signal_number);
        return;
    }
    // The default action, as if this handler were not there: for a fault, the instruction runs
    // again on return and faults with the default action in place; a SIGBUS sent by kill is raised again.
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(SIGBUS, &fallback, NULL);
    if (info == NULL || info->si_code <= 0) raise(SIGBUS);
}

static void install(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_bus_error;
    action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGBUS, &action, &previous_action) != 0) install_error = errno;
}

int cstowage_guard_mapped_loads(void) {
    pthread_once(&install_once, install);
    if (install_error != 0) {
        errno = install_error;
        return -1;
    }
    return 0;
}

int cstowage_guarded_load_u64(const uint64_t *words, int count, uint64_t *out) {
    sigjmp_buf jump;
    if (sigsetjmp(jump, 0) != 0) return -1;  // the handler disarmed it and jumped here
    armed_jump = &jump;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);  // armed before the first load, in the compiler's order too
    for (int index = 0; index < count; index++) out[index] = __atomic_load_n(words + index, __ATOMIC_ACQUIRE);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    armed_jump = NULL;
    return 0;
}

#else

int cstowage_guard_mapped_loads(void) { return 0; }

int cstowage_guarded_load_u64(const uint64_t *words, int count, uint64_t *out) {
    for (int index = 0; index < count; index++) out[index] = __atomic_load_n(words + index, __ATOMIC_ACQUIRE);
    return 0;
}

#endif
