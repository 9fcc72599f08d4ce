import Foundation

/// How much room the volume holding a path has, in figures a person and a program can trust.
///
/// On Linux the figures come from `statvfs`:
/// - ``totalBytes`` = `f_blocks * f_frsize`.
/// - ``availableBytes`` = `f_bavail * f_frsize`: what an ordinary writer can use. (Root may write a
///   little past it into the blocks reserved for it, so "free" is never defined by `f_bfree`.)
/// - ``freeBytes`` = `f_bfree * f_frsize`, including the reserved blocks, for information.
/// - ``availableForImportantUsageBytes`` = ``availableBytes`` + ``reclaimableBytes``: what this
///   container could free itself from its temporary and cache folders on the same volume (zero
///   for a plain path outside any container). It mirrors Apple's figure, which counts space the
///   system would purge for an important write.
/// - ``availableForOpportunisticUsageBytes`` = ``availableBytes`` - ``headroom(forTotal:)``, never
///   below zero: leave min(15% of the volume, 4 GiB) free before doing anything optional, the
///   keep-free rule systemd-journald uses.
///
/// On Apple platforms the figures come from `statfs` (`f_bsize` is the block size; `statvfs`
/// counts blocks in 32 bits there). On macOS, iOS and visionOS ``availableForImportantUsageBytes``
/// and ``availableForOpportunisticUsageBytes`` are the system's own resource values
/// (`volumeAvailableCapacityForImportantUsage`, `...ForOpportunisticUsage`); on tvOS and watchOS,
/// which lack them, for a volume the system gives none for, and where the system's important
/// figure is 0 while the volume has space available, they are defined as on Linux. A failed
/// lookup throws. See <doc:ApplePlatforms>.
///
/// When ``SimulatedCapacity`` is on, ``availableBytes`` (and ``totalBytes``, if simulated) are the
/// simulated figures, ``freeBytes`` equals ``availableBytes``, and the derived figures follow from
/// them; ``reclaimableBytes`` stays real. ``isSimulated`` says so. Inside a simulated volume of the
/// `StowageTesting` library, the figures are that volume's, moving with Stowage's writes:
/// ``blockSizeBytes``, and the inode counts when it limits them, are its own too.
///
/// The JSON of `stowage info --json` is this type's `Codable` form: every property under its own
/// name, ``usedBytes`` included (see <doc:JSONVocabulary>).
public struct VolumeCapacity: Sendable, Hashable, Codable {
    /// The path the figures were asked for.
    public var path: String
    /// Where the volume is mounted, where the system tells.
    public var mountPoint: String?
    /// The file system type (`ext4`, `tmpfs`, `apfs`, ...), where the system tells.
    public var fileSystemType: String?
    /// The allocation unit (`f_frsize` on Linux, `f_bsize` on Apple platforms): files take
    /// whole blocks.
    public var blockSizeBytes: Int64
    /// The volume's size.
    public var totalBytes: Int64
    /// What an ordinary writer can use now.
    public var availableBytes: Int64
    /// Free space including blocks reserved for the superuser.
    public var freeBytes: Int64
    /// ``availableBytes`` plus what could be reclaimed for an important write.
    public var availableForImportantUsageBytes: Int64
    /// What is left for optional work after keeping a headroom free.
    public var availableForOpportunisticUsageBytes: Int64
    /// Bytes of this container's temporary and cache files on the same volume.
    public var reclaimableBytes: Int64
    /// Whether the figures are simulated (see ``SimulatedCapacity``).
    public var isSimulated: Bool
    /// The file nodes (inodes) the volume has in all, or `nil` where its file system does not
    /// count them (btrfs, for one, makes them as it goes).
    public var totalInodeCount: Int64?
    /// The file nodes an ordinary writer can still create: when they run out, creating a file
    /// fails with "no space left on device" however many bytes are available. `nil` as
    /// ``totalInodeCount``.
    public var availableInodeCount: Int64?

    /// Space in use: ``totalBytes`` - ``freeBytes``.
    public var usedBytes: Int64 { max(0, totalBytes - freeBytes) }

    /// The figures for the volume holding `url` (which must exist).
    ///
    /// - Throws: ``StowageError/Code/notFound`` naming the path when it does not exist;
    ///   ``StowageError/Code/invalidArgument`` when a simulated-capacity variable is malformed.
    public static func forVolume(containing url: URL) throws -> VolumeCapacity {
        try measure(url.fileSystemPath, reclaimable: 0)
    }

    /// The headroom opportunistic usage leaves free: min(15% of `total`, 4 GiB).
    public static func headroom(forTotal total: Int64) -> Int64 {
        min(total / 100 * 15 + (total % 100) * 15 / 100, 4 * 1024 * 1024 * 1024)
    }

    static func measure(_ path: String, reclaimable: Int64) throws -> VolumeCapacity {
        let statistics: VolumeStatistics
        do {
            statistics = try VolumeStatistics.of(path: path)
        } catch let error as SystemCallError {
            throw StowageError(error, operation: .measureCapacity, path: path)
        }
        return try VolumeCapacity(statistics: statistics, path: path, reclaimable: reclaimable,
                                  simulated: SimulatedCapacity.current())
    }

    init(statistics: VolumeStatistics, path: String, reclaimable: Int64, simulated: SimulatedCapacity.Figures?) {
        self.path = path
        mountPoint = statistics.mountPoint
        fileSystemType = statistics.fileSystemType
        blockSizeBytes = max(1, statistics.blockSize)
        reclaimableBytes = reclaimable
        totalInodeCount = statistics.totalInodes
        availableInodeCount = statistics.availableInodes
        if let simulated {
            totalBytes = simulated.totalBytes ?? statistics.total
            availableBytes = min(simulated.availableBytes, totalBytes)
            freeBytes = availableBytes
            isSimulated = true
        } else {
            totalBytes = statistics.total
            availableBytes = statistics.available
            freeBytes = statistics.free
            isSimulated = false
        }
        let usage = Self.usageFigures(system: isSimulated ? nil : UsageFigures(statistics),
                                      total: totalBytes, available: availableBytes, reclaimable: reclaimable)
        availableForImportantUsageBytes = usage.important
        availableForOpportunisticUsageBytes = usage.opportunistic
    }

    /// The important and opportunistic figures, from the system or Stowage's own.
    struct UsageFigures: Equatable {
        var important: Int64
        var opportunistic: Int64

        /// The system's pair in `statistics`, or `nil` unless it gave both.
        init?(_ statistics: VolumeStatistics) {
            guard let important = statistics.systemImportant, let opportunistic = statistics.systemOpportunistic else { return nil }
            self.init(important: important, opportunistic: opportunistic)
        }

        init(important: Int64, opportunistic: Int64) {
            self.important = important
            self.opportunistic = opportunistic
        }
    }

    /// Which important and opportunistic figures a volume reports, on every platform: the
    /// system's (`system`, Apple's resource values) when it gave them and they are believable,
    /// else Stowage's own: `available + reclaimable` (at most `total`) and `available` minus
    /// ``headroom(forTotal:)``.
    ///
    /// The system's pair is set aside when its important figure is 0 while `statfs` shows space
    /// (`available > 0`). Apple's figure goes through the space-management service
    /// (CacheDelete), which has been seen answering 0, not `nil`, for volumes it does not manage
    /// (exFAT and other external volumes) and for any volume while no user is logged in; taken
    /// as it is, a healthy volume reads as full. The figure is meant to count what is free plus
    /// what the system would purge for an important write, so 0 beside space `statfs` counts as
    /// available is no answer about the volume. A 0 opportunistic figure alone is believable
    /// (the system keeps headroom) and kept.
    static func usageFigures(system: UsageFigures?, total: Int64, available: Int64, reclaimable: Int64) -> UsageFigures {
        if let system, !(system.important == 0 && available > 0) { return system }
        return UsageFigures(important: min(total, available + reclaimable),
                            opportunistic: max(0, available - headroom(forTotal: total)))
    }

    /// `bytes` rounded up to whole blocks of this volume.
    public func roundedToBlocks(_ bytes: Int64) -> Int64 {
        bytes <= 0 ? 0 : (bytes + blockSizeBytes - 1) / blockSizeBytes * blockSizeBytes
    }
}

extension VolumeCapacity {
    /// ``usedBytes``, derived from the others: written, not read back.
    private enum DerivedKeys: String, CodingKey {
        case usedBytes
    }

    /// Encodes every property under its own name, ``usedBytes`` included; the figures a file
    /// system does not give (`mountPoint`, `fileSystemType`, the inode counts) are `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        try container.encode(mountPoint, forKey: .mountPoint)
        try container.encode(fileSystemType, forKey: .fileSystemType)
        try container.encode(blockSizeBytes, forKey: .blockSizeBytes)
        try container.encode(totalBytes, forKey: .totalBytes)
        try container.encode(availableBytes, forKey: .availableBytes)
        try container.encode(freeBytes, forKey: .freeBytes)
        try container.encode(availableForImportantUsageBytes, forKey: .availableForImportantUsageBytes)
        try container.encode(availableForOpportunisticUsageBytes, forKey: .availableForOpportunisticUsageBytes)
        try container.encode(reclaimableBytes, forKey: .reclaimableBytes)
        try container.encode(isSimulated, forKey: .isSimulated)
        try container.encode(totalInodeCount, forKey: .totalInodeCount)
        try container.encode(availableInodeCount, forKey: .availableInodeCount)
        var derived = encoder.container(keyedBy: DerivedKeys.self)
        try derived.encode(usedBytes, forKey: .usedBytes)
    }
}

extension StowageError.Operation {
    /// Measuring a volume's capacity.
    public static let measureCapacity = StowageError.Operation("measure capacity")
}

extension Container {
    /// ``capacity(of:)-8qkvy`` on a thread of its own: the walk behind the reclaimable figure
    /// never runs on the caller's actor or the cooperative pool (a settings screen refreshing on
    /// the main actor stays responsive). Cancelling the task stops the walk: `CancellationError`.
    ///
    /// For the available bytes alone, ``availableSpace(of:)`` costs one `statvfs`.
    public func capacity(of location: Location = .documents) async throws -> VolumeCapacity {
        let cancellation = CancellationFlag()
        return try await LongRunningWork.run(progressInterval: WorkProgress.defaultInterval, progress: nil,
                                             cancel: { cancellation.cancel() }) { _ in
            try capacity(of: location, examined: { _, _ in
                if cancellation.isCancelled { throw CancellationError() }
            })
        }
    }

    /// The capacity of the volume holding `location`, counting what pressure relief could free
    /// on that volume (``relieve(toAvailableBytes:dryRun:now:)``'s rule: tmp, unpinned caches, files
    /// marked purgeable elsewhere) as reclaimable for important usage.
    ///
    /// This walks those folders (and reads the purgeable marker of each file in Documents,
    /// Application Support and Preferences); for available space alone, measure the volume.
    ///
    /// The location's folder need not exist: the nearest existing folder above it is measured.
    ///
    /// - Throws: ``StowageError/Code/notFound`` when no folder on the way exists.
    public func capacity(of location: Location = .documents) throws -> VolumeCapacity {
        try capacity(of: location, examined: nil)
    }

    /// ``capacity(of:)-8qkvy``, telling `examined` each file the reclaimable walk meets (an
    /// error it throws ends the walk and is thrown).
    private func capacity(of location: Location, examined: ((Location, FileStatus) throws -> Void)?) throws -> VolumeCapacity {
        let path = try existingAncestor(of: url(for: location))
        let statistics: VolumeStatistics
        do {
            statistics = try VolumeStatistics.of(path: path)
        } catch let error as SystemCallError {
            throw StowageError(error, operation: .measureCapacity, location: location, path: path)
        }
        // What pressure relief could free on this volume, by the one relief rule; a location
        // that cannot be used safely (a link, another user's folder) frees nothing here.
        var skipped: [UsageIssue] = []
        let reclaimable = try freeableUnderPressure(volume: statistics.device, skipped: &skipped, examined: examined)
            .reduce(Int64(0)) { $0 + $1.allocatedBytes }
        return VolumeCapacity(statistics: statistics, path: path, reclaimable: reclaimable,
                              simulated: try SimulatedCapacity.current())
    }

    /// The path of `url`, or of its nearest existing ancestor.
    func existingAncestor(of url: URL) throws -> String {
        Self.existingAncestor(of: url)
    }

    /// The path of `url`, or of its nearest existing ancestor: where a volume can be measured
    /// for a folder that may not exist yet.
    static func existingAncestor(of url: URL) -> String {
        var current = url
        while true {
            let path = current.fileSystemPath
            if path == "/" { return path }
            do {
                if try statusIfPresent(atPath: path) != nil { return path }
            } catch {
                return path  // something is there that we may not read: measure it and report from there
            }
            current = current.deletingLastPathComponent()
        }
    }
}
