import Foundation

/// Runs a handler when one of a few signals (SIGINT, SIGTERM) arrives, instead of their action
/// (ending the process), from the moment the initializer returns: a signal sent after that is
/// never lost, whichever thread the system gives it to and whichever threads block it. For the
/// `stowage` command (`package`), not part of the library's API: a library never takes over a
/// process's signals.
///
/// One trap at a time (and not while `stowage run` forwards signals): a second one throws.
/// The handler runs on a thread of the trap's own, and may run more than once for one signal on
/// Apple platforms; make it idempotent (cancelling a task is).
package final class SignalTrap: @unchecked Sendable {
    private let backend: SignalTrapBackend
    private let lock = NSLock()
    private var isCancelled = false

    /// Catches `signals` (at most 8) until ``cancel()``.
    ///
    /// - Throws: A `SystemCallError` when the signals cannot be caught (`EBUSY` while another
    ///   trap, or `stowage run`'s forwarding, holds them).
    package init(signals: [Int32], handler: @escaping @Sendable () -> Void) throws {
        backend = try SignalTrapBackend(signals: signals, handler: handler)
    }

    /// Gives the signals their earlier actions back. Calling it again does nothing.
    package func cancel() {
        let first = lock.withLock {
            defer { isCancelled = true }
            return !isCancelled
        }
        if first { backend.cancel() }
    }

    deinit { cancel() }
}

/// Serialises the C side's one signal relay (``SignalTrap`` and `stowage run`'s forwarding).
enum SignalRelay {
    static let lock = NSLock()
}
