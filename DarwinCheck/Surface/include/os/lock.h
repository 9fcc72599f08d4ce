// Stand-in for <os/lock.h> (libplatform-349: include/os/lock.h): the unfair lock that
// swift-argument-parser's Mutex uses on Apple platforms (`canImport(os)`), so the stowage command
// can be compiled for macOS with it. Apple's header assumes non-null pointers throughout, and marks
// lock and unlock unavailable from Swift's async contexts.
#ifndef STOWAGE_STANDIN_OS_LOCK_H
#define STOWAGE_STANDIN_OS_LOCK_H

#include <stdint.h>

#define STOWAGE_STANDIN_OS_UNFAIR_LOCK_AVAILABILITY \
    __attribute__((availability(macos, introduced=10.12), availability(ios, introduced=10.0), \
                   availability(tvos, introduced=10.0), availability(watchos, introduced=3.0)))

STOWAGE_STANDIN_OS_UNFAIR_LOCK_AVAILABILITY
typedef struct os_unfair_lock_s {
    uint32_t _os_unfair_lock_opaque;
} os_unfair_lock, *os_unfair_lock_t;

STOWAGE_STANDIN_OS_UNFAIR_LOCK_AVAILABILITY
__attribute__((__nothrow__, __nonnull__))
__attribute__((__swift_attr__("@_unavailableFromAsync(message: \"Use OSAllocatedUnfairLock.performWhileLocked() for async-safe scoped locking\")")))
void os_unfair_lock_lock(os_unfair_lock_t _Nonnull lock);

STOWAGE_STANDIN_OS_UNFAIR_LOCK_AVAILABILITY
__attribute__((__nothrow__, __nonnull__))
__attribute__((__swift_attr__("@_unavailableFromAsync(message: \"Use OSAllocatedUnfairLock.performWhileLocked() for async-safe scoped locking\")")))
void os_unfair_lock_unlock(os_unfair_lock_t _Nonnull lock);

#endif
