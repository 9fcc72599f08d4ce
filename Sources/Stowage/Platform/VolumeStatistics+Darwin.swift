#if canImport(Darwin)
import Darwin
import Foundation

extension VolumeStatistics {
    /// `statfs(2)` of `path`, plus Apple's important/opportunistic figures from URL resource values.
    /// The mount point and type come from `statfs` itself, so `mount` is not needed here.
    static func of(path: String, mount _: MountTable.Entry? = nil) throws -> VolumeStatistics {
        var figures = statfs()
        _ = try Sys.retrying("statfs") { path.withCString { statfs($0, &figures) } }
        var vfs = statvfs()
        _ = try Sys.retrying("statvfs") { path.withCString { statvfs($0, &vfs) } }
        let status = try Sys.stat(path)
        let unit = Int64(vfs.f_frsize)
        let values = try? URL(filePath: path).resourceValues(forKeys: [
            .volumeAvailableCapacityForImportantUsageKey, .volumeAvailableCapacityForOpportunisticUsageKey,
        ])
        let point = withUnsafeBytes(of: figures.f_mntonname) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        let type = withUnsafeBytes(of: figures.f_fstypename) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        return VolumeStatistics(
            blockSize: unit,
            total: Int64(vfs.f_blocks) * unit,
            available: Int64(vfs.f_bavail) * unit,
            free: Int64(vfs.f_bfree) * unit,
            device: status.device,
            mountPoint: point, fileSystemType: type,
            systemImportant: values?.volumeAvailableCapacityForImportantUsage,
            systemOpportunistic: values?.volumeAvailableCapacityForOpportunisticUsage,
            totalInodes: figures.f_files > 0 ? Int64(figures.f_files) : nil,
            availableInodes: figures.f_files > 0 ? Int64(figures.f_ffree) : nil)
    }
}
#endif
