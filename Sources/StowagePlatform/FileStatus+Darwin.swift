#if canImport(Darwin)
import Darwin

extension stat {
    /// `st_dev`, a signed 32-bit number here: its bits, as Linux's unsigned device numbers.
    var deviceNumber: UInt64 { UInt64(UInt32(bitPattern: st_dev)) }
    /// `st_mtimespec`, seconds since 1970.
    var modificationSeconds: Double { Double(st_mtimespec.tv_sec) + Double(st_mtimespec.tv_nsec) / 1e9 }
    /// `st_mtimespec.tv_sec`: the whole seconds, exactly.
    var modificationWholeSeconds: Int64 { Int64(st_mtimespec.tv_sec) }
    /// `st_atimespec`, seconds since 1970.
    var accessSeconds: Double { Double(st_atimespec.tv_sec) + Double(st_atimespec.tv_nsec) / 1e9 }
    /// Apple platforms have no overlayfs, hence no whiteouts of it.
    var isOverlayWhiteout: Bool { false }
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
