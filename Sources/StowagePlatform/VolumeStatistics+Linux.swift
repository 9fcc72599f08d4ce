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
    package static func of(path: String, mount known: MountTable.Entry? = nil) throws -> VolumeStatistics {
        let figures = try Sys.spaceFigures(atPath: path)
        let status = try Sys.stat(path)
        let mount = known ?? MountTable.mount(containing: path, device: status.device)
        return VolumeStatistics(figures, device: status.device, mountPoint: mount?.mountPoint, fileSystemType: mount?.type,
                                systemImportant: nil, systemOpportunistic: nil)
    }

    /// `statvfs(3)` of the mount point of `mount`, by its exact bytes (``MountTable/Entry/mountPointPath``).
    package static func of(mount: MountTable.Entry) throws -> VolumeStatistics {
        // Under a storage budget its figures, as `Sys.spaceFigures` gives them.
        let figures = Sys.budgeted(try Sys.platformSpaceFigures(atPath: mount.mountPointPath))
        let status = try Sys.stat(mount.mountPointPath)
        return VolumeStatistics(figures, device: status.device, mountPoint: mount.mountPoint,
                                fileSystemType: mount.type, systemImportant: nil, systemOpportunistic: nil)
    }
}
#endif
