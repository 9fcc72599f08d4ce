#if canImport(Darwin)
import Darwin

extension FileStatus {
    package init(_ status: stat) {
        (kind, special) = Self.kind(ofMode: status.st_mode)
        size = Int64(status.st_size)
        allocatedSize = Int64(status.st_blocks) * 512
        permissions = UInt32(status.st_mode & 0o7777)
        userID = UInt32(status.st_uid)
        groupID = UInt32(status.st_gid)
        device = UInt64(UInt32(bitPattern: status.st_dev))
        inode = UInt64(status.st_ino)
        linkCount = UInt64(status.st_nlink)
        modificationTime = Double(status.st_mtimespec.tv_sec) + Double(status.st_mtimespec.tv_nsec) / 1e9
        accessTime = Double(status.st_atimespec.tv_sec) + Double(status.st_atimespec.tv_nsec) / 1e9
    }
}

extension Sys {
    /// `fcntl(F_FULLFSYNC)`: `fsync`, then the drive is asked to write its cache to the medium
    /// (Apple's fsync(2): a plain `fsync` only reaches the drive, which may reorder or lose the
    /// writes on power loss). A file system that does not implement it
    /// (``Errno/fullSyncUnsupported``) gets a plain `fsync`; any other failure is thrown.
    package static func platformSyncData(_ fd: Int32) throws {
        try syncFully({ fcntl(fd, F_FULLFSYNC) }, orElse: { _ = try retrying("fsync") { fsync(fd) } })
    }

    /// A folder's entries (the rename that completes an atomic write) get the same
    /// `F_FULLFSYNC` as a file's data: on Darwin a plain `fsync` of the folder leaves the rename in
    /// the drive's cache.
    package static func platformSyncFolder(_ fd: Int32) throws {
        try platformSyncData(fd)
    }
}
#endif

#if canImport(Darwin)
extension Sys {
    /// Sets the data-protection class (`F_SETPROTECTIONCLASS`) on iOS, tvOS, watchOS and
    /// visionOS builds (the Simulator, Mac Catalyst and iPad apps on a Mac included), and
    /// owner-only permissions for protected levels everywhere. A volume without data protection
    /// (``Errno/protectionClassesUnsupported``) leaves the file in the volume's own protection:
    /// see ``isProtectionClassRefusal(_:level:)``.
    package static func applyProtection(level: Int, ownerOnly: Bool, to fd: Int32) throws {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        try setProtectionClass(level) { fcntl(fd, F_SETPROTECTIONCLASS, Int32(level)) }
        #endif
        if ownerOnly { try fchmod(fd, .ownerOnlyFile) }
    }
}
#endif
