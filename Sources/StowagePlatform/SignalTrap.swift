import Foundation

/// Runs a handler when one of a few signals (SIGINT, SIGTERM) arrives, instead of their action
/// (ending the process), from the moment the initializer returns until ``cancel()`` returns: a
/// signal sent in between is never lost, whichever thread the system gives it to and whichever
/// threads block it. For the `stowage` command (`package`), not part of the library's API: a
/// library never takes over a process's signals.
///
/// One trap at a time (and not while `stowage run` forwards signals): a second one throws
/// `EBUSY`. The handler runs on a thread of the trap's own; on Apple platforms it may run more
/// than once for one signal, so make it idempotent (cancelling a task is).
package final class SignalTrap: @unchecked Sendable {
    private var backend: SignalTrapBackend?
    private let lock = NSLock()

    /// Catches `signals` until ``cancel()``.
    ///
    /// - Throws: A `SystemCallError`: `EINVAL` for an empty list, more than 8 signals or one
    ///   named twice; `EBUSY` while another trap, or `stowage run`'s forwarding, holds signals.
    /// A trap for `signals` (see the other initialiser), named as ``Signal``s.
    package convenience init(signals: [Signal], handler: @escaping @Sendable () -> Void) throws {
        try self.init(signals: signals.map(\.rawValue), handler: handler)
    }

    /// A trap for `signals` whose handler is told which signal arrived.
    package convenience init(signals: [Signal], handler: @escaping @Sendable (Signal) -> Void) throws {
        try self.init(numbers: signals.map(\.rawValue)) { handler(Signal(rawValue: $0)) }
    }

    package convenience init(signals: [Int32], handler: @escaping @Sendable () -> Void) throws {
        try self.init(numbers: signals) { _ in handler() }
    }

    private init(numbers signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) throws {
        guard !signals.isEmpty, signals.count <= 8, Set(signals).count == signals.count, signals.allSatisfy({ $0 > 0 }) else {
            throw SystemCallError(errno: .invalidArgument, call: "sigaction")
        }
        try SignalRelay.lock.withLock {
            guard !SignalRelay.isTrapped else { throw SystemCallError(errno: .busy, call: "sigaction") }
            backend = try SignalTrapBackend(signals: signals, handler: handler)
            SignalRelay.isTrapped = true
        }
    }

    /// Gives the signals their earlier actions back, once the handler has run for every signal
    /// that arrived before. Calling it again does nothing. Not from within the handler.
    package func cancel() {
        guard let backend = lock.withLock({ () -> SignalTrapBackend? in
            defer { self.backend = nil }
            return self.backend
        }) else { return }
        SignalRelay.lock.withLock {
            backend.stop()
            SignalRelay.isTrapped = false
        }
        backend.waitForHandlers()
    }

    deinit { cancel() }
}

/// Serialises the process's signal handling (``SignalTrap`` and `stowage run`'s forwarding,
/// which share one relay on Linux).
package enum SignalRelay {
    package static let lock = NSLock()
    /// Whether a ``SignalTrap`` holds signals (guarded by ``lock``).
    nonisolated(unsafe) static var isTrapped = false
}
