#if canImport(Glibc) || canImport(Musl)
#if canImport(Glibc)
import Glibc
#else
import Musl
#endif

extension stat {
    /// `st_dev`.
    var deviceNumber: UInt64 { UInt64(st_dev) }
    /// `st_mtim`, seconds since 1970.
    var modificationSeconds: Double { Double(st_mtim.tv_sec) + Double(st_mtim.tv_nsec) / 1e9 }
    /// `st_mtim.tv_sec`: the whole seconds, exactly.
    var modificationWholeSeconds: Int64 { Int64(st_mtim.tv_sec) }
    /// `st_atim`, seconds since 1970.
    var accessSeconds: Double { Double(st_atim.tv_sec) + Double(st_atim.tv_nsec) / 1e9 }
    /// An overlayfs whiteout: a character device numbered 0:0.
    var isOverlayWhiteout: Bool { st_mode & 0o170000 == 0o020000 && st_rdev == 0 }  // S_IFCHR, as in kind(ofMode:)
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
