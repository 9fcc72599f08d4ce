import Foundation

/// Watches a container's volume and relieves storage pressure whenever available space drops
/// below a threshold: the long-running form of ``Container/relieve(toAvailableBytes:dryRun:now:)``.
///
/// ```swift
/// let watcher = PressureWatcher(container: container, thresholdBytes: 1_000_000_000, interval: .seconds(60))
/// let task = Task { await watcher.run { event in print(event) } }
/// // later: task.cancel() stops it promptly
/// ```
///
/// ## Cost
/// A check that finds enough space is one `statvfs` of the volume holding Documents (of the
/// nearest existing folder above it), with no tree scan and no file read, so a watch costs
/// next to nothing while idle, whatever the size of the caches: about 0.1 ms of CPU per check
/// in the README's watch benchmark, with 100 or 100,000 cached files alike. Only a check that
/// finds space short walks folders: those that ``Container/relieve(toAvailableBytes:dryRun:now:)``
/// sweeps, in purge order, each once, until the threshold is met.
public struct PressureWatcher: Sendable {
    /// The container whose caches and temporary files are freed.
    public var container: Container
    /// The available bytes to keep.
    public var thresholdBytes: Int64
    /// How often to check.
    public var interval: Duration

    /// A watcher keeping `thresholdBytes` bytes available, checking every `interval`.
    public init(container: Container, thresholdBytes: Int64, interval: Duration) {
        self.container = container
        self.thresholdBytes = thresholdBytes
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
        public var description: String { formatted() }

        /// The log line of ``description``, its sizes in `style` (`available 774.4 MiB < 953.7 MiB: ...`
        /// in ``ByteCountStyle/binary``).
        public func formatted(_ style: ByteCountStyle = .decimal) -> String {
            func size(_ bytes: Int64) -> String { ByteCount(bytes).formatted(style) }
            guard let relief else { return "available \(size(availableBytes)): fine" }
            let places = relief.steps.filter { !$0.report.removed.isEmpty }.map(\.location.identifier).joined(separator: ", ")
            return "available \(size(availableBytes)) < \(size(relief.targetAvailableBytes)): freed "
                + size(relief.freedAllocatedBytes) + (places.isEmpty ? "" : " from \(places)")
                + (relief.isSatisfied ? "" : " (not enough could be freed)")
        }
    }

    /// Checks once, relieving pressure if available space is below the threshold.
    ///
    /// Measuring costs one `statvfs` (simulated figures when ``SimulatedCapacity`` is on, as
    /// ``Container/capacity(of:)-8qkvy`` reports them); unlike ``Container/capacity(of:)-8qkvy``, it never
    /// scans tmp or Caches to total what could be reclaimed. Folders are walked only when
    /// space is short, by the relief itself.
    ///
    /// - Throws: as ``Container/capacity(of:)-8qkvy`` when the volume cannot be measured, and as
    ///   ``Container/relieve(toAvailableBytes:dryRun:now:)`` when a relief fails.
    public func check(now: Date = Date()) throws -> Event {
        let space = try container.availableSpace(of: .documents)
        guard space.availableBytes < thresholdBytes else {
            return Event(date: now, availableBytes: space.availableBytes, relief: nil)
        }
        let relief = try container.relieve(toAvailableBytes: thresholdBytes, now: now)
        return Event(date: now, availableBytes: space.availableBytes, relief: relief)
    }

    /// ``check(now:)-8982r`` off the caller's actor and off the cooperative pool: the relief runs on a
    /// thread of its own (the contract of scans, fills and sweeps), and cancelling the task stops
    /// it before its next removal; the event then carries what was removed until then
    /// (``ReliefReport/wasCancelled``). A check that finds enough space is one `statvfs`.
    ///
    /// - Throws: as ``check(now:)-8982r``; cancellation is not an error.
    public func check(now: Date = Date()) async throws -> Event {
        let space = try container.availableSpace(of: .documents)
        guard space.availableBytes < thresholdBytes else {
            return Event(date: now, availableBytes: space.availableBytes, relief: nil)
        }
        let relief = try await container.relieve(toAvailableBytes: thresholdBytes, now: now, progress: { _ in })
        return Event(date: now, availableBytes: space.availableBytes, relief: relief)
    }

    /// Checks every ``interval`` until the task is cancelled, calling `onEvent` after each check.
    /// A failed check is reported through `onError` and the watch goes on. Between checks the
    /// task sleeps; each idle check costs what ``check(now:)-8982r`` costs, one `statvfs`.
    ///
    /// The callback form of ``events``: both run the same checks.
    ///
    /// ```swift
    /// let task = Task { await watcher.run(onEvent: { print($0) }, onError: { print("check failed: \($0)") }) }
    /// ```
    ///
    /// Returns when the task is cancelled (the only way it ends), also in the middle of a relief,
    /// which stops before its next removal: cancellation is not an error.
    public func run(onEvent: @Sendable (Event) -> Void, onError: @Sendable (any Error) -> Void = { _ in }) async {
        for await outcome in events {
            switch outcome {
            case .success(let event): onEvent(event)
            case .failure(let error): onError(error)
            }
        }
    }

    /// The checks, as an asynchronous sequence: one element per check, every ``interval``, the
    /// first at once, until the iterating task is cancelled (then the sequence ends).
    ///
    /// Each element is the outcome of one check: `.success` with its ``Event``, or `.failure`
    /// with the error that check met (a volume that could not be measured, a relief that
    /// failed). A failed check never ends the sequence: the next check follows after the
    /// interval, as with ``run(onEvent:onError:)``. The sequence never throws.
    ///
    /// ```swift
    /// for await outcome in watcher.events {
    ///     switch outcome {
    ///     case .success(let event) where event.relief != nil: print(event)
    ///     case .success: break
    ///     case .failure(let error): print("check failed: \(error)")
    ///     }
    /// }
    /// ```
    ///
    /// Checks run in the iterating task, so `SimulatedCapacity.withFigures`
    /// set around the loop applies to them; each starts only when the next element is asked for.
    public var events: Events { Events(watcher: self) }

    /// The checks of a ``PressureWatcher`` as an `AsyncSequence` of outcomes; see ``PressureWatcher/events``.
    ///
    /// ```swift
    /// for await outcome in watcher.events { if case .success(let event) = outcome { print(event) } }
    /// ```
    public struct Events: AsyncSequence, Sendable {
        /// The outcome of one check.
        public typealias Element = Result<Event, any Error>
        /// The sequence never throws; it ends when the iterating task is cancelled.
        public typealias Failure = Never

        let watcher: PressureWatcher

        /// An iterator over the checks.
        public func makeAsyncIterator() -> Iterator { Iterator(watcher: watcher) }

        /// Runs one check per call of ``next()``, sleeping the interval between two checks.
        ///
        /// ```swift
        /// var checks = watcher.events.makeAsyncIterator()
        /// let first = await checks.next()   // checks at once
        /// ```
        public struct Iterator: AsyncIteratorProtocol {
            let watcher: PressureWatcher
            var checked = false

            /// The outcome of the next check, after the interval (at once for the first);
            /// `nil` once the task is cancelled.
            public mutating func next() async -> Element? {
                if checked {
                    do {
                        try await Task.sleep(for: watcher.interval)
                    } catch {
                        return nil  // cancelled while sleeping
                    }
                }
                guard !Task.isCancelled else { return nil }
                checked = true
                do {
                    // Off the pool; a relief cancelled midway still yields what it removed, and the
                    // sequence ends at the next element.
                    return .success(try await watcher.check())
                } catch {
                    return .failure(error)
                }
            }
        }
    }
}

// MARK: Earlier spellings, kept for one release

extension PressureWatcher {
    /// A watcher, in the earlier spelling of its figure's name.
    @available(*, deprecated, renamed: "init(container:thresholdBytes:interval:)")
    public init(container: Container, threshold: Int64, interval: Duration) {
        self.init(container: container, thresholdBytes: threshold, interval: interval)
    }

    /// ``thresholdBytes``, in its earlier spelling.
    @available(*, deprecated, renamed: "thresholdBytes")
    public var threshold: Int64 {
        get { thresholdBytes }
        set { thresholdBytes = newValue }
    }
}
