import Foundation

/// What a ``Filler`` is to do: which volume to fill, down to what, how, and how safely.
///
/// ```swift
/// let plan = FillPlan(volume: URL(filePath: "/mnt/scratch"), goal: .leaving(500_000_000))
/// let report = try Filler(plan: plan).fill()
/// // statvfs now reports 500 MB available on /mnt/scratch, within one block.
/// ```
public struct FillPlan: Sendable, Hashable {
    /// How full the volume should be when filling ends, in the available bytes `statvfs`
    /// reports (`f_bavail * f_frsize`: what an ordinary process can still write).
    public enum Goal: Sendable, Hashable, CustomStringConvertible {
        /// Fill until this many bytes remain available.
        case leaving(Int64)
        /// Fill until this percentage (0...100) of the volume's total remains available.
        case leavingPercent(Double)
        /// Take this many bytes from what was available when filling started (rounded up to
        /// whole blocks): the goal is then `available at start - bytes`. Another process's
        /// writes meanwhile count towards it, as they do for ``leaving(_:)``.
        case consuming(Int64)

        /// The available bytes to fill down to, for a volume with these figures, rounded up to
        /// a whole block. Throws ``StowageError/Code/invalidArgument`` for a negative size, a
        /// percentage outside 0...100 and a `leaving` above the volume's total;
        /// ``StowageError/Code/noSpace`` for a `consuming` above what is available (up to
        /// `Int64.max` bytes: no sum on it overflows).
        func targetAvailable(total: Int64, available: Int64, blockSize: Int64, path: String) throws -> Int64 {
            func invalid(_ reason: String) -> StowageError {
                StowageError(.invalidArgument, operation: .fill, path: path, reason: reason)
            }
            let target: Int64
            switch self {
            case .leaving(let bytes):
                guard bytes >= 0 else { throw invalid("the bytes to leave cannot be negative (\(bytes))") }
                guard bytes <= total else {
                    throw invalid("cannot leave \(ByteCount(bytes)) available on a volume of \(ByteCount(total))")
                }
                target = bytes
            case .leavingPercent(let percent):
                guard percent.isFinite, percent >= 0, percent <= 100 else {
                    throw invalid("the percentage to leave must be between 0 and 100, not \(percent)")
                }
                target = Int64((Double(total) * percent / 100).rounded(.down))
            case .consuming(let bytes):
                guard bytes >= 0 else { throw invalid("the bytes to consume cannot be negative (\(bytes))") }
                // More than is available is refused before it is rounded up to a block (which
                // could overflow near Int64.max).
                let rounded = bytes > available ? bytes : (bytes + blockSize - 1) / blockSize * blockSize
                guard rounded <= available else {
                    throw StowageError(.noSpace, operation: .fill, path: path,
                                       reason: "cannot consume \(ByteCount(bytes)): only \(ByteCount(available)) is available",
                                       neededBytes: rounded, availableBytes: available)
                }
                return available - rounded
            }
            return (target + blockSize - 1) / blockSize * blockSize
        }

        /// `leaving 500 MB`, `leaving 1%`, `consuming 2 GB`.
        public var description: String {
            switch self {
            case .leaving(let bytes): "leaving \(ByteCount(bytes))"
            case .leavingPercent(let percent): "leaving \(percent.formatted(.number.precision(.fractionLength(0...2))))%"
            case .consuming(let bytes): "consuming \(ByteCount(bytes))"
            }
        }
    }

    /// How the space is taken.
    public enum Method: String, Sendable, Hashable, CaseIterable, Codable {
        /// Allocated without writing, the fastest: `fallocate` on Linux (file systems without it
        /// get `posix_fallocate`, which writes a byte per block); on Apple platforms
        /// `fcntl(F_PREALLOCATE)` and `ftruncate`, with a byte written in each block the file
        /// system did not allocate (see <doc:ApplePlatforms>).
        case allocate
        /// Zero bytes written; a compressing or deduplicating file system may store far less.
        case zeros
        /// Pseudo-random bytes, different in every block: incompressible and never
        /// deduplicated, for compressing file systems (btrfs, ZFS, APFS with compression).
        case random
    }

    /// Any path on the volume to fill; the fill folder, ``FillFolder/name``, is made in it.
    public var volume: URL
    /// When filling ends.
    public var goal: Goal
    /// How the space is taken.
    public var method: Method
    /// The most written or allocated per step, between two measurements of the volume; `nil`
    /// for the method's default (``defaultChunkSizeBytes(for:)``). Writing methods hold one buffer
    /// of this size: the whole memory a fill needs.
    public var chunkSizeBytes: Int64?
    /// On the volume holding `/` or the user's home folder, the least a fill may leave
    /// available unless ``isForced``: filling those to the brim breaks the system around you.
    public var safetyFloorBytes: Int64
    /// Whether to fill a system volume below ``safetyFloorBytes`` anyway.
    public var isForced: Bool

    /// The default chunk: 4 MiB for the writing methods, big enough for full speed and small
    /// enough to stop promptly; 1 GiB for `.allocate`, which needs no buffer and allocates
    /// that much in about a millisecond.
    public static func defaultChunkSizeBytes(for method: Method) -> Int64 {
        method == .allocate ? 1 << 30 : 4 << 20
    }
    /// The default safety floor: 1 GiB.
    public static let defaultSafetyFloorBytes: Int64 = 1 << 30

    /// A plan; see the properties for each parameter.
    public init(volume: URL, goal: Goal, method: Method = .allocate, chunkSizeBytes: Int64? = nil,
                safetyFloorBytes: Int64 = FillPlan.defaultSafetyFloorBytes, isForced: Bool = false) {
        self.volume = volume
        self.goal = goal
        self.method = method
        self.chunkSizeBytes = chunkSizeBytes
        self.safetyFloorBytes = safetyFloorBytes
        self.isForced = isForced
    }
}

extension FillPlan {
    /// A plan that fills in `container`'s Documents folder (created if needed), on the volume
    /// the app under test keeps its data on.
    public init(container: Container, goal: Goal, method: Method = .allocate, chunkSizeBytes: Int64? = nil,
                safetyFloorBytes: Int64 = FillPlan.defaultSafetyFloorBytes, isForced: Bool = false) throws {
        _ = try container.openFolder(of: .documents, create: true, operation: .fill)
        self.init(volume: try container.url(for: .documents), goal: goal, method: method, chunkSizeBytes: chunkSizeBytes,
                  safetyFloorBytes: safetyFloorBytes, isForced: isForced)
    }
}

extension StowageError.Operation {
    /// Filling a volume.
    public static let fill = StowageError.Operation("fill")
    /// Giving back the space of a fill.
    public static let release = StowageError.Operation("release")
}

// MARK: Earlier spellings, kept for one release

extension FillPlan {
    /// A plan, in the earlier spelling of the figures' names.
    @available(*, deprecated, renamed: "init(volume:goal:method:chunkSizeBytes:safetyFloorBytes:isForced:)")
    @_disfavoredOverload
    public init(volume: URL, goal: Goal, method: Method = .allocate, chunkSize: Int64? = nil,
                safetyFloor: Int64 = FillPlan.defaultSafetyFloorBytes, isForced: Bool = false) {
        self.init(volume: volume, goal: goal, method: method, chunkSizeBytes: chunkSize, safetyFloorBytes: safetyFloor,
                  isForced: isForced)
    }

    /// A plan in `container`'s Documents folder, in the earlier spelling of the figures' names.
    @available(*, deprecated, renamed: "init(container:goal:method:chunkSizeBytes:safetyFloorBytes:isForced:)")
    @_disfavoredOverload
    public init(container: Container, goal: Goal, method: Method = .allocate, chunkSize: Int64? = nil,
                safetyFloor: Int64 = FillPlan.defaultSafetyFloorBytes, isForced: Bool = false) throws {
        try self.init(container: container, goal: goal, method: method, chunkSizeBytes: chunkSize,
                      safetyFloorBytes: safetyFloor, isForced: isForced)
    }

    /// ``chunkSizeBytes``, in its earlier spelling.
    @available(*, deprecated, renamed: "chunkSizeBytes")
    public var chunkSize: Int64? {
        get { chunkSizeBytes }
        set { chunkSizeBytes = newValue }
    }

    /// ``safetyFloorBytes``, in its earlier spelling.
    @available(*, deprecated, renamed: "safetyFloorBytes")
    public var safetyFloor: Int64 {
        get { safetyFloorBytes }
        set { safetyFloorBytes = newValue }
    }

    /// ``defaultChunkSizeBytes(for:)``, in its earlier spelling.
    @available(*, deprecated, renamed: "defaultChunkSizeBytes(for:)")
    public static func defaultChunkSize(for method: Method) -> Int64 { defaultChunkSizeBytes(for: method) }

    /// ``defaultSafetyFloorBytes``, in its earlier spelling.
    @available(*, deprecated, renamed: "defaultSafetyFloorBytes")
    public static var defaultSafetyFloor: Int64 { defaultSafetyFloorBytes }
}
