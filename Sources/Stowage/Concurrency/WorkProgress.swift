/// How far a long-running scan, fill, sweep, relief, clear, audit or release has come: the one
/// progress value of them all.
///
/// Every long-running call (`UsageScanner/scan(_:progressInterval:progress:)`,
/// `Filler/fill(progressInterval:progress:)`,
/// ``Sweeper/sweep(_:dryRun:now:allowingSystemFolders:progressInterval:progress:)``,
/// ``Container/relieve(toAvailableBytes:dryRun:now:progressInterval:progress:)``,
/// ``Store/clear(_:dryRun:progressInterval:progress:)``,
/// ``Container/audit(minimumBytes:progressInterval:progress:)``,
/// ``FillFolder/release(bytes:progressInterval:progress:)``) reports it under one contract:
///
/// - it is called on the thread doing the work, never on a task of Swift's cooperative pool, so
///   it stays punctual whatever else the process runs; keep it short, the work waits for it;
/// - it is called with the first figures at once, then at most once per interval
///   (``defaultInterval`` unless told otherwise), and once more with the final figures;
/// - cancelling the task from inside it stops the work before its next step.
///
/// What ``items`` and ``bytes`` count depends on the work: entries examined and their allocated
/// bytes for a scan; fill files and bytes filled for a fill; files examined (while choosing) or
/// removed (while removing) and their allocated bytes for a sweep, a relief and a clear (see
/// ``phase``); files examined and their allocated bytes for an audit; fill files removed and
/// the bytes they gave back for a release. Work that goes through a container's locations one
/// after another names the one it is in now in ``location``: a relief counts each location
/// afresh, an audit counts across all its walks.
///
/// ```swift
/// let report = try await UsageScanner().scan([cachesURL]) { progress in
///     print("\(progress.items) entries, \(ByteCount(progress.bytes).formatted()) in \(progress.elapsed)")
/// }
/// ```
public struct WorkProgress: Sendable, Hashable {
    /// What a piece of work is doing; a struct, so phases can be added.
    public struct Phase: Sendable, Hashable, CustomStringConvertible {
        /// The phase's name, such as `removing`.
        public let name: String

        /// A phase named `name`.
        public init(_ name: String) { self.name = name }

        /// Reading folders: a scan, or a sweep choosing what to remove.
        public static let scanning = Phase("scanning")
        /// Writing or allocating fill files.
        public static let filling = Phase("filling")
        /// Removing the files a sweep chose.
        public static let removing = Phase("removing")

        /// The name.
        public var description: String { name }
    }

    /// What the work is doing.
    public var phase: Phase
    /// Items done so far in this phase (entries examined, fill files, files removed).
    public var items: Int
    /// Bytes done so far in this phase (allocated bytes counted, bytes filled, bytes freed).
    public var bytes: Int64
    /// The bytes ``bytes`` will reach when the phase ends, when that is known (a fill's goal, the
    /// victims of a sweep being removed); `nil` while it is not (a scan).
    public var expectedBytes: Int64?
    /// The volume's available bytes when the work last measured it; only work that measures the
    /// volume as it goes (a fill, before every chunk) sets it.
    public var availableBytes: Int64?
    /// The available bytes the work aims for: a fill's goal; `nil` for other work.
    public var targetAvailableBytes: Int64?
    /// The location of a container the work is in now (relief, clear, audit); for a relief and a
    /// clear ``items`` and ``bytes`` count within it, for an audit across its walks so far. `nil`
    /// for work on a folder named by path.
    public var location: Location?
    /// Time since the work began.
    public var elapsed: Duration

    /// Figures of a piece of work.
    public init(phase: Phase, items: Int, bytes: Int64, expectedBytes: Int64? = nil, availableBytes: Int64? = nil,
                targetAvailableBytes: Int64? = nil, location: Location? = nil, elapsed: Duration) {
        self.phase = phase
        self.items = items
        self.bytes = bytes
        self.expectedBytes = expectedBytes
        self.availableBytes = availableBytes
        self.targetAvailableBytes = targetAvailableBytes
        self.location = location
        self.elapsed = elapsed
    }

    /// How often progress is reported unless a call is told otherwise: 200 ms, for every
    /// long-running call alike.
    public static let defaultInterval: Duration = .milliseconds(200)

    /// Seconds since the work began, as a `Double`.
    public var elapsedSeconds: Double { elapsed.inSeconds }

    /// Bytes per second so far (0 before any time has passed).
    public var bytesPerSecond: Double {
        let seconds = elapsedSeconds
        return seconds > 0 ? Double(bytes) / seconds : 0
    }

    /// The fraction done, from 0 to 1, when ``expectedBytes`` is known.
    public var fractionCompleted: Double? {
        guard let expectedBytes else { return nil }
        return expectedBytes > 0 ? min(1, max(0, Double(bytes) / Double(expectedBytes))) : 1
    }
}

extension Duration {
    /// The duration in seconds, as a `Double` (`TimeInterval`): where a public `Duration` meets
    /// the file system's times.
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// `seconds` as a duration, or `nil` for a figure no `Duration` holds (NaN, an infinity, or
    /// more than about 292 billion years).
    init?(exactlySeconds seconds: Double) {
        guard seconds.isFinite, abs(seconds) < 9.2e18 else { return nil }
        self = .seconds(seconds)
    }
}
