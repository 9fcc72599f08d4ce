import Foundation

/// Watches a container's volume and relieves storage pressure whenever available space drops
/// below a threshold: the long-running form of ``Container/relieve(toAvailable:dryRun:now:)``.
///
/// ```swift
/// let watcher = PressureWatcher(container: container, threshold: 1_000_000_000, interval: .seconds(60))
/// let task = Task { try await watcher.run { event in print(event) } }
/// // later: task.cancel() stops it promptly
/// ```
///
/// ## Cost
/// A check that finds enough space is one `statvfs` of the volume holding Documents (of the
/// nearest existing folder above it), with no tree scan and no file read, so a watch costs
/// next to nothing while idle, whatever the size of the caches: about 0.1 ms of CPU per check
/// in the README's watch benchmark, with 100 or 100,000 cached files alike. Only a check that
/// finds space short walks folders: those that ``Container/relieve(toAvailable:dryRun:now:)``
/// sweeps, in purge order, each once, until the threshold is met.
public struct PressureWatcher: Sendable {
    /// The container whose caches and temporary files are freed.
    public var container: Container
    /// The available bytes to keep.
    public var threshold: Int64
    /// How often to check.
    public var interval: Duration

    /// A watcher keeping `threshold` bytes available, checking every `interval`.
    public init(container: Container, threshold: Int64, interval: Duration) {
        self.container = container
        self.threshold = threshold
        self.interval = interval
    }

    /// What a check found or did.
    public struct Event: Sendable, CustomStringConvertible {
        /// When the check ran.
        public var date: Date
        /// Available bytes at the check (simulated when simulation is on).
        public var availableBytes: Int64
        /// The relief carried out, when space was short.
        public var relief: ReliefReport?

        /// A log line such as `available 812 MB < 1 GB: freed 230 MB from temporary, caches`.
        public var description: String {
            let available = ByteCount(availableBytes).formatted()
            guard let relief else { return "available \(available): fine" }
            let places = relief.steps.filter { !$0.report.removed.isEmpty }.map(\.location).joined(separator: ", ")
            return "available \(available) < \(ByteCount(relief.targetAvailableBytes).formatted()): freed "
                + "\(ByteCount(relief.freedAllocatedBytes).formatted())" + (places.isEmpty ? "" : " from \(places)")
                + (relief.isSatisfied ? "" : " (not enough could be freed)")
        }
    }

    /// Checks once, relieving pressure if available space is below the threshold.
    ///
    /// Measuring costs one `statvfs` (simulated figures when ``SimulatedCapacity`` is on, as
    /// ``Container/capacity(of:)`` reports them); unlike ``Container/capacity(of:)``, it never
    /// scans tmp or Caches to total what could be reclaimed. Folders are walked only when
    /// space is short, by the relief itself.
    ///
    /// - Throws: as ``Container/capacity(of:)`` when the volume cannot be measured, and as
    ///   ``Container/relieve(toAvailable:dryRun:now:)`` when a relief fails.
    public func check(now: Date = Date()) throws -> Event {
        let space = try container.availableSpace(of: .documents)
        guard space.available < threshold else {
            return Event(date: now, availableBytes: space.available, relief: nil)
        }
        let relief = try container.relieve(toAvailable: threshold, now: now)
        return Event(date: now, availableBytes: space.available, relief: relief)
    }

    /// Checks every ``interval`` until the task is cancelled, calling `onEvent` after each check.
    /// A failed check is reported through `onError` and the watch goes on. Between checks the
    /// task sleeps; each idle check costs what ``check(now:)`` costs, one `statvfs`.
    public func run(onEvent: @Sendable (Event) -> Void, onError: @Sendable (any Error) -> Void = { _ in }) async throws {
        while !Task.isCancelled {
            do {
                onEvent(try check())
            } catch {
                onError(error)
            }
            try await Task.sleep(for: interval)
        }
        throw CancellationError()
    }
}
