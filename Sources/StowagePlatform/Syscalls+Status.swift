#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Stowage's Platform layer supports Darwin, Glibc and Musl systems")
#endif
import CStowageShims

// A file's status: reading it, and setting its mode and times.
extension Sys {
    /// `fstat(2)`.
    @inline(__always)
    package static func fstat(_ fd: Int32) throws -> FileStatus {
        var status = systemStatStruct()
        _ = try retrying("fstat") { systemFstat(fd, &status) }
        return FileStatus(status)
    }

    /// `fstatat(2)`, never following a final symbolic link unless `followingLinks`.
    package static func fstatat(_ directory: Int32, _ name: String, followingLinks: Bool = false) throws -> FileStatus {
        var status = systemStatStruct()
        _ = try retrying("fstatat") {
            name.withCString { systemFstatat(directory, $0, &status, followingLinks ? 0 : AT_SYMLINK_NOFOLLOW) }
        }
        return FileStatus(status)
    }

    /// `fstatat(2)` of a name as bytes, never following a final symbolic link unless `followingLinks`.
    package static func fstatat(_ directory: Int32, _ name: RawPath, followingLinks: Bool = false) throws -> FileStatus {
        try name.withCString { try fstatat(directory, cName: $0, followingLinks: followingLinks) }
    }

    /// `fstatat(2)` of a name given as a C string (as `readdir` hands it out, uncopied).
    @inline(__always)
    package static func fstatat(_ directory: Int32, cName name: UnsafePointer<CChar>, followingLinks: Bool) throws -> FileStatus {
        var status = systemStatStruct()
        _ = try retrying("fstatat") { systemFstatat(directory, name, &status, followingLinks ? 0 : AT_SYMLINK_NOFOLLOW) }
        return FileStatus(status)
    }

    /// The device, inode and mount identity of the open file `fd`: one `statx` where it tells the
    /// mount (Linux 5.8 and later: `stx_mnt_id`, which tells a bind mount from its file system,
    /// whose device it shares), else `fstat` and no mount identity (callers then compare devices).
    package static func identity(_ fd: Int32) throws -> (device: UInt64, inode: UInt64, mountID: UInt64?) {
        var device: UInt64 = 0
        var inode: UInt64 = 0
        var identity: UInt64 = 0
        if (try? retrying("statx") { cstowage_mount_identity(fd, &device, &inode, &identity) }) != nil {
            return (device, inode, identity)
        }
        let status = try fstat(fd)
        return (status.device, status.inode, nil)
    }

    /// `lstat(2)` of an absolute path.
    package static func lstat(_ path: String) throws -> FileStatus {
        var status = systemStatStruct()
        _ = try retrying("lstat") { path.withCString { systemLstat($0, &status) } }
        return FileStatus(status)
    }

    /// `stat(2)` of an absolute path, following links.
    package static func stat(_ path: String) throws -> FileStatus {
        var status = systemStatStruct()
        _ = try retrying("stat") { path.withCString { systemStat($0, &status) } }
        return FileStatus(status)
    }

    /// `stat(2)` of a path given as bytes, following links.
    package static func stat(_ path: RawPath) throws -> FileStatus {
        try path.withCString { try fstatat(AT_FDCWD, cName: $0, followingLinks: true) }
    }

    /// `fchmod(2)`.
    package static func fchmod(_ fd: Int32, _ mode: FilePermissions) throws {
        _ = try retrying("fchmod") { systemFchmod(fd, mode_t(mode.rawValue)) }
    }

    /// Sets the access time of an open file to now, leaving the modification time alone
    /// (`futimens` with `UTIME_OMIT`). Explicit updates work whatever the mount's atime policy
    /// (`relatime`, `noatime` only limit the implicit ones).
    package static func touchAccessTime(_ fd: Int32) throws {
        var times = [timespec(tv_sec: 0, tv_nsec: cstowage_utime_now()), timespec(tv_sec: 0, tv_nsec: cstowage_utime_omit())]
        _ = try retrying("futimens") { futimens(fd, &times) }
    }

    /// Sets access and modification times of `name` in a folder, not following a link.
    package static func setTimes(_ directory: Int32, _ name: String, access: Double, modification: Double) throws {
        func spec(_ seconds: Double) -> timespec {
            let whole = seconds.rounded(.down)
            return timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1e9))
        }
        var times = [spec(access), spec(modification)]
        _ = try retrying("utimensat") { name.withCString { utimensat(directory, $0, &times, AT_SYMLINK_NOFOLLOW) } }
    }
}

// The libc functions under names that do not clash with the wrappers above.
@inline(__always) private func systemFstat(_ fd: Int32, _ s: UnsafeMutablePointer<stat>) -> Int32 { fstat(fd, s) }
@inline(__always) private func systemFstatat(_ d: Int32, _ p: UnsafePointer<CChar>, _ s: UnsafeMutablePointer<stat>, _ f: Int32) -> Int32 { fstatat(d, p, s, f) }
@inline(__always) private func systemLstat(_ p: UnsafePointer<CChar>, _ s: UnsafeMutablePointer<stat>) -> Int32 { lstat(p, s) }
@inline(__always) private func systemStat(_ p: UnsafePointer<CChar>, _ s: UnsafeMutablePointer<stat>) -> Int32 { stat(p, s) }
@inline(__always) private func systemStatStruct() -> stat { stat() }
@inline(__always) private func systemFchmod(_ fd: Int32, _ m: mode_t) -> Int32 { fchmod(fd, m) }

extension FileStatus {
    /// The kind, and for a special file which one, of an item whose `st_mode` is `mode`: one
    /// mapping for every system (the `S_IF*` values are POSIX's, the same on Linux and Apple
    /// platforms; written as numbers because Swift's Glibc module makes each of its `S_IF*`
    /// names a function call, and a scan asks this of every entry).
    @inline(__always)
    package static func kind(ofMode mode: mode_t) -> (kind: Kind, special: Special?) {
        switch UInt32(mode) & 0o170000 {
        case 0o100000: (.file, nil)
        case 0o040000: (.folder, nil)
        case 0o120000: (.symbolicLink, nil)
        case 0o010000: (.other, .fifo)
        case 0o140000: (.other, .socket)
        case 0o020000: (.other, .characterDevice)
        case 0o060000: (.other, .blockDevice)
        default: (.other, nil)
        }
    }
}
