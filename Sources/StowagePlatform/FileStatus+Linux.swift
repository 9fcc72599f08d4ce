#if canImport(Glibc) || canImport(Musl)
#if canImport(Glibc)
import Glibc
#else
import Musl
#endif

extension FileStatus {
    package init(_ status: stat) {
        let type = status.st_mode & S_IFMT
        (kind, special) = Self.kind(ofMode: status.st_mode)
        size = Int64(status.st_size)
        allocatedSize = Int64(status.st_blocks) * 512
        permissions = UInt32(status.st_mode & 0o7777)
        userID = UInt32(status.st_uid)
        groupID = UInt32(status.st_gid)
        isWhiteout = type == S_IFCHR && status.st_rdev == 0
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        linkCount = UInt64(status.st_nlink)
        modificationTime = Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
        accessTime = Double(status.st_atim.tv_sec) + Double(status.st_atim.tv_nsec) / 1e9
    }
}

extension Sys {
    package static func platformSyncData(_ fd: Int32) throws {
        _ = try retrying("fdatasync") { fdatasync(fd) }
    }

    /// `fsync(2)` of the folder: on Linux it writes the folder's entries to stable storage.
    package static func platformSyncFolder(_ fd: Int32) throws {
        _ = try retrying("fsync") { fsync(fd) }
    }
}
#endif

#if canImport(Glibc) || canImport(Musl)
extension Sys {
    /// Linux has no data-protection classes: protected levels mean owner-only permissions.
    package static func applyProtection(level: Int, ownerOnly: Bool, to fd: Int32) throws {
        if ownerOnly { try fchmod(fd, .ownerOnlyFile) }
    }
}
#endif
