#if canImport(Darwin)
import Darwin
import Foundation

extension VolumeStatistics {
    /// `statfs(2)` of `path` (64-bit block counts: Darwin's `statvfs` cuts them to 32 bits), plus
    /// the system's important and opportunistic figures where the platform has them.
    ///
    /// - Throws: ``SystemCallError`` when `statfs` or `stat` fails, or when the system's figures
    ///   cannot be read (never a silent fallback to Stowage's own).
    /// The mount point and type come from `statfs` itself, so `mount` is not needed here.
    package static func of(path: String, mount _: MountTable.Entry? = nil) throws -> VolumeStatistics {
        var figures = statfs()
        _ = try Sys.retrying("statfs") { path.withCString { statfs($0, &figures) } }
        let status = try Sys.stat(path)
        let system = try systemUsageFigures(path: path)
        let point = withUnsafeBytes(of: figures.f_mntonname) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let type = withUnsafeBytes(of: figures.f_fstypename) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        // Under a storage budget its figures, as `Sys.spaceFigures` gives them.
        return VolumeStatistics(Sys.budgeted(Sys.SpaceFigures(figures)), device: status.device, mountPoint: point, fileSystemType: type,
                                systemImportant: system.important, systemOpportunistic: system.opportunistic)
    }

    /// The figures of the mount point of `mount` (Apple's file systems name files in UTF-8, so
    /// its text is its path).
    package static func of(mount: MountTable.Entry) throws -> VolumeStatistics {
        try of(path: mount.mountPoint, mount: mount)
    }

    #if os(tvOS) || os(watchOS)
    /// tvOS and watchOS have no `volumeAvailableCapacityFor...UsageKey` resource values (Apple
    /// documents them for iOS, iPadOS, Mac Catalyst, macOS and visionOS): ``VolumeCapacity``
    /// uses Stowage's own definitions there, as on Linux.
    package static func systemUsageFigures(path: String) throws -> (important: Int64?, opportunistic: Int64?) {
        (nil, nil)
    }
    #else
    /// The `volumeAvailableCapacityForImportantUsage` and `...ForOpportunisticUsage` resource
    /// values of the volume holding `path`. `nil` where the system gives none for this volume
    /// (then ``VolumeCapacity`` uses Stowage's own definitions, as documented); a failed lookup
    /// throws.
    package static func systemUsageFigures(path: String) throws -> (important: Int64?, opportunistic: Int64?) {
        let values = try foundationCall("URL.resourceValues(volumeAvailableCapacityFor...UsageKey)") {
            try URL(filePath: path).resourceValues(forKeys: [
                .volumeAvailableCapacityForImportantUsageKey, .volumeAvailableCapacityForOpportunisticUsageKey,
            ])
        }
        return (values.volumeAvailableCapacityForImportantUsage, values.volumeAvailableCapacityForOpportunisticUsage)
    }
    #endif
}
#endif
