import Foundation

/// The contract of scans, fills and sweeps run from `async` code: blocking work runs on a thread
/// of ``BlockingLane/longRunning`` (a fixed number of threads), the calling task waits for it
/// without holding a thread of the cooperative pool, and cancelling the task asks the work to stop.
///
/// The contract it carries (stated for users in the README's "Long-running work" and on
/// ``WorkProgress``):
/// - **Cancellation is not an error.** Cancelling stops the work before its next step, and the
///   call returns the report of what was done until then, marked cancelled
///   (``UsageReport/wasCancelled``, ``FillReport/wasCancelled``, ``SweepReport/wasCancelled``).
///   Only failures throw.
/// - **Progress** is one ``WorkProgress``, reported from the working thread through a
///   ``ProgressReporter``: at once, then at most once per interval, and once more at the end.
enum LongRunningWork {
    /// Runs `work` on a thread of ``BlockingLane/longRunning`` and returns what it returns (or throws what it throws).
    ///
    /// - Parameters:
    ///   - progressInterval: The least time between two progress reports.
    ///   - progress: The caller's progress handler, called on the working thread.
    ///   - cancel: Called (on the cancelling thread) when the task is cancelled, at once if it
    ///     was cancelled already; it must make `work` stop soon. The call still waits for
    ///     `work` to return: what it did until then is in its result.
    ///   - work: The blocking work; it reports progress through the reporter it is given.
    static func run<Value: Sendable>(progressInterval: Duration, progress: (@Sendable (WorkProgress) -> Void)?,
                                     cancel: @escaping @Sendable () -> Void,
                                     _ work: @escaping @Sendable (ProgressReporter) throws -> Value) async throws -> Value {
        #if DEBUG
        TestProbe.record(interval: progressInterval)
        #endif
        let reporter = ProgressReporter(interval: progressInterval, progress: progress)
        // The caller's simulated figures (`SimulatedCapacity.withFigures`) and storage budget
        // are task-local values, which a thread does not inherit: bound again there, so work
        // that measures the volume (relief, fills) sees what the caller sees, and its writes
        // and removals count in the caller's budget.
        let simulation = SimulationContext.current
        return try await withTaskCancellationHandler {
            // The lane's wait is not cancelled with the task: it must outlast the cancellation,
            // which reaches the work through `cancel`.
            try await BlockingLane.longRunning.run {
                defer { reporter.finish() }
                return try simulation.run { try work(reporter) }
            }
        } onCancel: {
            cancel()
        }
    }
}

/// Throttles and delivers the progress of one piece of work, from the threads doing it.
///
/// Reports are delivered one at a time, in order, under `lock`: a scan's several workers never
/// call the handler at once, and a handler that blocks holds the work up (which is what a
/// caller who cancels from inside it wants).
///
/// `@unchecked Sendable`: `lastReported` and `pending` are read and written only under `lock`;
/// the rest is immutable.
final class ProgressReporter: @unchecked Sendable {
    /// The least time between two deliveries.
    let interval: Duration
    private let progress: (@Sendable (WorkProgress) -> Void)?
    private let began = ContinuousClock.now
    private let lock = NSLock()
    private var lastReported: ContinuousClock.Instant?
    private var lastDelivered: WorkProgress?
    private var pending: WorkProgress?

    init(interval: Duration, progress: (@Sendable (WorkProgress) -> Void)?) {
        self.interval = interval
        self.progress = progress
    }

    /// Whether anyone listens (work may skip gathering figures otherwise).
    var isActive: Bool { progress != nil }

    /// Offers the figures so far: delivered at once the first time, then when an interval has
    /// passed since the last delivery; otherwise kept for ``finish()``.
    func report(_ phase: WorkProgress.Phase, items: Int, bytes: Int64, expectedBytes: Int64? = nil,
                availableBytes: Int64? = nil, targetAvailableBytes: Int64? = nil, location: Location? = nil) {
        guard let progress else { return }
        let now = ContinuousClock.now
        let figures = WorkProgress(phase: phase, items: items, bytes: bytes, expectedBytes: expectedBytes,
                                   availableBytes: availableBytes, targetAvailableBytes: targetAvailableBytes,
                                   location: location, elapsed: now - began)
        lock.withLock {
            // Figures count up within a phase (of one location); a worker that lost the race to
            // the lock may bring older ones, which are dropped so that reports never go back.
            let latest = pending ?? lastDelivered
            if let latest, latest.phase == phase, latest.location == location, latest.items > items { return }
            if let lastReported, now - lastReported < interval {
                pending = figures
                return
            }
            lastReported = now
            lastDelivered = figures
            pending = nil
            progress(figures)
        }
    }

    /// Delivers the last figures offered, if they were held back: the final figures.
    func finish() {
        guard let progress else { return }
        lock.withLock {
            guard let figures = pending else { return }
            pending = nil
            lastDelivered = figures
            progress(figures)
        }
    }
}

/// A flag set when a task is cancelled and read by the thread doing its work.
///
/// `@unchecked Sendable`: `cancelled` is read and written only under `lock`.
final class CancellationFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false

    func cancel() { lock.withLock { cancelled = true } }
    var isCancelled: Bool { lock.withLock { cancelled } }
}
