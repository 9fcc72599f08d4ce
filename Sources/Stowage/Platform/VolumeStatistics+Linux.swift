#if canImport(Glibc) || canImport(Musl)
#if canImport(Glibc)
import Glibc
#else
import Musl
#endif
import Foundation

extension VolumeStatistics {
    /// `statvfs(3)` of `path`, plus its mount point and type: those of `mount` when the caller
    /// has read the table already, else from `/proc/self/mountinfo`.
    static func of(path: String, mount known: MountTable.Entry? = nil) throws -> VolumeStatistics {
        var figures = statvfs()
        _ = try Sys.retrying("statvfs") { path.withCString { statvfs($0, &figures) } }
        let status = try Sys.stat(path)
        let unit = Int64(figures.f_frsize)
        let mount = known ?? MountTable.mount(containing: path, device: status.device)
        return VolumeStatistics(
            blockSize: unit,
            total: Int64(figures.f_blocks) * unit,
            available: Int64(figures.f_bavail) * unit,
            free: Int64(figures.f_bfree) * unit,
            device: status.device,
            mountPoint: mount?.mountPoint, fileSystemType: mount?.type,
            systemImportant: nil, systemOpportunistic: nil,
            totalInodes: figures.f_files > 0 ? Int64(figures.f_files) : nil,
            availableInodes: figures.f_files > 0 ? Int64(figures.f_favail) : nil)
    }
}
#endif
