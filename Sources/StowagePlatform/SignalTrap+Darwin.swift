#if canImport(Darwin)
import CStowageShims
import Darwin
import Dispatch

/// Apple platforms: Dispatch signal sources (kqueue's `EVFILT_SIGNAL`, which sees a signal
/// however the process's threads block it). A source "does not install a signal handler"
/// (Apple), so the signals are then set to be ignored, once the sources are registered: until
/// then a signal has its earlier action (it ends the process), so none is lost unseen. The
/// earlier actions are saved and restored with `sigaction` (flags and mask included).
package struct SignalTrapBackend {
    private let sources: [any DispatchSourceSignal]

    /// How long the sources may take to register before the trap gives up.
    package static let registrationLimit = 10.0

    package init(signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) throws {
        let registered = DispatchSemaphore(value: 0)
        let sources = signals.map { number in
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler { handler(number) }
            source.setRegistrationHandler(handler: { registered.signal() })
            source.activate()
            return source
        }
        for _ in signals where registered.wait(timeout: .now() + Self.registrationLimit) == .timedOut {
            sources.forEach { $0.cancel() }
            throw SystemCallError(errno: .timedOut, call: "dispatch_source registration")
        }
        do {
            _ = try Sys.retrying("sigaction") {
                signals.withUnsafeBufferPointer { cstowage_ignore_signals($0.baseAddress, Int32($0.count)) }
            }
        } catch {
            sources.forEach { $0.cancel() }
            throw error
        }
        self.sources = sources
    }

    /// Gives the signals their earlier actions back, then ends the sources.
    package func stop() {
        _ = cstowage_ignore_signals(nil, 0)  // restoring saved actions: nothing to fail
        sources.forEach { $0.cancel() }
    }

    /// Dispatch runs the handlers on its queues; a handler already under way may still finish.
    package func waitForHandlers() {}
}
#endif
