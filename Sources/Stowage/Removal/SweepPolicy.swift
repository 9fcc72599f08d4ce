import Foundation

/// Limits a sweep keeps a folder within, and which files go first.
///
/// Each limit is optional. When a size or count limit is exceeded, the sweep goes down to
/// ``lowWatermark`` of it (80% by default), so that the next few writes do not trigger another
/// sweep at once. Files older than ``maximumFileAge`` go whatever the other limits say.
///
/// ```swift
/// let policy = SweepPolicy(maximumAllocatedBytes: 100_000_000, maximumFileAge: .seconds(7 * 86_400))
/// let report = try Sweeper(policy: policy).sweep(cachesURL)
/// ```
public struct SweepPolicy: Sendable, Hashable {
    /// The most allocated bytes the folder's files may take.
    public var maximumAllocatedBytes: Int64?
    /// The most files the folder may hold.
    public var maximumCount: Int?
    /// The oldest a file may be, measured from its last access for
    /// ``SweepOrder/leastRecentlyUsed`` and from its last modification otherwise.
    public var maximumFileAge: Duration?
    /// Which files go first.
    public var order: SweepOrder
    /// The fraction of a size or count limit to sweep down to once it is exceeded (0 < x ≤ 1).
    public var lowWatermark: Double
    /// How old a leftover temporary file of an interrupted atomic write must be before a sweep
    /// reclaims it (younger ones may belong to a write in progress, and are never removed by any
    /// operation, `clear` and pressure relief included). A held temporary file (a ``DiskCache``
    /// set's staged entry) whose writer is gone, its lock free, is reclaimed whatever its age.
    public var leftoverMinimumAge: Duration

    /// A policy; every limit is off unless given.
    public init(maximumAllocatedBytes: Int64? = nil, maximumCount: Int? = nil, maximumFileAge: Duration? = nil,
                order: SweepOrder = .leastRecentlyUsed, lowWatermark: Double = 0.8,
                leftoverMinimumAge: Duration = .seconds(3600)) {
        self.maximumAllocatedBytes = maximumAllocatedBytes
        self.maximumCount = maximumCount
        self.maximumFileAge = maximumFileAge
        self.order = order
        self.lowWatermark = lowWatermark
        self.leftoverMinimumAge = leftoverMinimumAge
    }

    /// Why this policy cannot be kept, or `nil`: a low watermark outside (0, 1], or a negative
    /// limit. ``Sweeper`` refuses such a policy with ``StowageError/Code/invalidArgument``;
    /// check it first where the values come from a person (a settings screen, a command line).
    public var problem: String? {
        if let problem = Self.problem(withLowWatermark: lowWatermark) { return problem }
        if let size = maximumAllocatedBytes, size < 0 { return "the size limit cannot be negative" }
        if let count = maximumCount, count < 0 { return "the count limit cannot be negative" }
        if let age = maximumFileAge, age < .zero { return "the age limit cannot be negative" }
        return nil
    }

    /// ``maximumFileAge`` in seconds, as the walk compares it with the files' times.
    var maximumAgeSeconds: TimeInterval? { maximumFileAge?.inSeconds }
    /// ``leftoverMinimumAge`` in seconds.
    var leftoverMinimumAgeSeconds: TimeInterval { leftoverMinimumAge.inSeconds }

    /// Why `lowWatermark` cannot be a low watermark (it must be more than 0 and at most 1), or
    /// `nil`: the one statement of the rule, for every type that has a low watermark.
    static func problem(withLowWatermark lowWatermark: Double) -> String? {
        lowWatermark > 0 && lowWatermark <= 1 ? nil : "the low watermark must be more than 0 and at most 1"
    }
}

/// Which files a sweep removes first.
public struct SweepOrder: Hashable, Sendable, CustomStringConvertible {
    let name: String
    private init(_ name: String) { self.name = name }

    /// Least recently used first, by the access time Stowage records on every read (not by
    /// the system's atime updates, which `relatime` and `noatime` mounts hold back).
    public static let leastRecentlyUsed = SweepOrder("lru")
    /// Oldest modification first.
    public static let oldestModified = SweepOrder("oldest")
    /// Largest allocated size first.
    public static let largestFirst = SweepOrder("largest")

    /// `lru`, `oldest` or `largest`.
    public var description: String { name }

    /// The order named `lru`, `oldest` or `largest`.
    public init?(name: String) {
        switch name.lowercased() {
        case "lru", "least-recently-used": self = .leastRecentlyUsed
        case "oldest", "oldest-modified": self = .oldestModified
        case "largest", "largest-first": self = .largestFirst
        default: return nil
        }
    }
}

/// Why a sweep removed a file.
public struct SweepReason: Hashable, Sendable, Codable, CustomStringConvertible {
    /// `size`, `count`, `age`, `leftover`, `pressure` or `clear`.
    public let name: String
    private init(_ name: String) { self.name = name }

    /// To bring the folder under its size limit.
    public static let size = SweepReason("size")
    /// To bring the folder under its count limit.
    public static let count = SweepReason("count")
    /// Older than the maximum age.
    public static let age = SweepReason("age")
    /// A temporary file left behind by an interrupted atomic write.
    public static let leftover = SweepReason("leftover")
    /// To relieve storage pressure.
    public static let pressure = SweepReason("pressure")
    /// Everything in a folder was asked to go (`clear`, a removed folder, an emptied cache).
    public static let clear = SweepReason("clear")

    /// The reason's name.
    public var description: String { name }

    /// Encodes as the name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }

    /// Decodes from the name.
    public init(from decoder: any Decoder) throws {
        name = try decoder.singleValueContainer().decode(String.self)
    }
}

// MARK: Earlier spellings, kept for one release

extension SweepPolicy {
    /// A policy, in the earlier spelling: sizes in `maximumAllocatedSize`, ages in seconds.
    @available(*, deprecated, message: "use init(maximumAllocatedBytes:maximumCount:maximumFileAge:order:lowWatermark:leftoverMinimumAge:), whose ages are Durations")
    @_disfavoredOverload
    public init(maximumAllocatedSize: Int64? = nil, maximumCount: Int? = nil, maximumAge: TimeInterval? = nil,
                order: SweepOrder = .leastRecentlyUsed, lowWatermark: Double = 0.8, leftoverGracePeriod: TimeInterval = 3600) {
        self.init(maximumAllocatedBytes: maximumAllocatedSize, maximumCount: maximumCount, order: order,
                  lowWatermark: lowWatermark)
        self.maximumAge = maximumAge
        self.leftoverGracePeriod = leftoverGracePeriod
    }

    /// ``maximumAllocatedBytes``, in its earlier spelling.
    @available(*, deprecated, renamed: "maximumAllocatedBytes")
    public var maximumAllocatedSize: Int64? {
        get { maximumAllocatedBytes }
        set { maximumAllocatedBytes = newValue }
    }

    /// ``maximumFileAge`` in seconds, its earlier spelling. A negative or NaN age is kept as
    /// -1 second (so that ``problem`` still refuses it); more than a `Duration` holds is no limit.
    @available(*, deprecated, message: "use maximumFileAge, a Duration")
    public var maximumAge: TimeInterval? {
        get { maximumAgeSeconds }
        set { maximumFileAge = newValue.map { Duration(exactlySeconds: $0) ?? ($0 > 0 ? nil : .seconds(-1)) } ?? nil }
    }

    /// ``leftoverMinimumAge`` in seconds, its earlier spelling (NaN or less than nothing is 0).
    @available(*, deprecated, message: "use leftoverMinimumAge, a Duration")
    public var leftoverGracePeriod: TimeInterval {
        get { leftoverMinimumAgeSeconds }
        set { leftoverMinimumAge = Duration(exactlySeconds: max(0, newValue)) ?? (newValue > 0 ? .seconds(9e18) : .zero) }
    }
}
