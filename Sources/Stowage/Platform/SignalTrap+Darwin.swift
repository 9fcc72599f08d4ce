#if canImport(Darwin)
import Darwin
import Dispatch

/// Apple platforms: Dispatch signal sources (kqueue's `EVFILT_SIGNAL`, which sees a signal
/// however the process's threads block it), with the signals' own action set to ignore once the
/// sources are registered, as Apple's Dispatch documentation prescribes for
/// `makeSignalSource(signal:queue:)`. Until then a signal has its earlier action (it ends the
/// process), so none is lost unseen. Cancelling gives the signals their earlier actions back.
struct SignalTrapBackend {
    private let sources: [any DispatchSourceSignal]
    private let previous: [(signal: Int32, action: sig_t?)]

    init(signals: [Int32], handler: @escaping @Sendable () -> Void) throws {
        let registered = DispatchSemaphore(value: 0)
        sources = signals.map { number in
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler(handler: handler)
            source.setRegistrationHandler(handler: { registered.signal() })
            source.activate()
            return source
        }
        for _ in signals { registered.wait() }
        previous = signals.map { (signal: $0, action: signal($0, SIG_IGN)) }
    }

    func cancel() {
        sources.forEach { $0.cancel() }
        for (number, action) in previous { _ = signal(number, action) }
    }
}
#endif
