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

/// One tiny wrapper per C call, each throwing ``SystemCallError`` with the call's name.
/// Calls that can be interrupted by a signal are retried on `EINTR` here, in one place.
enum Sys {
    /// Runs `attempt` until it does not fail with `EINTR`: the one place where an interrupted
    /// call is retried. `attempt` returns `nil` on success, or the `errno` it failed with.
    @inline(__always)
    private static func untilNotInterrupted(_ call: String, _ attempt: () -> Errno?) throws {
        while let code = attempt() {
            if code != .interrupted { throw SystemCallError(errno: code, call: call) }
        }
    }

    /// Runs `body` until it does not fail with `EINTR`; a result of -1 throws with `errno`.
    @inline(__always)
    static func retrying<T: BinaryInteger>(_ call: String, _ body: () -> T) throws -> T {
        var result: T = 0
        try untilNotInterrupted(call) {
            result = body()
            return result == -1 ? Errno.current : nil
        }
        return result
    }

    /// ``retrying(_:_:)`` for the calls that return an `errno` value instead of setting
    /// `errno` (`posix_fallocate(3)`): 0 is success.
    static func retryingReturnedErrno(_ call: String, _ body: () -> Int32) throws {
        try untilNotInterrupted(call) {
            let code = body()
            return code == 0 ? nil : Errno(rawValue: code)
        }
    }

    // MARK: Opening and closing

    /// `openat(2)`. The flags always include `O_CLOEXEC`.
    static func openat(_ directory: Int32, _ name: String, _ flags: Int32, mode: FilePermissions = FilePermissions(rawValue: 0)) throws -> Int32 {
        try retrying("openat") { name.withCString { systemOpenat(directory, $0, flags | O_CLOEXEC, mode_t(mode.rawValue)) } }
    }

    /// `openat2(2)` with `RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH` on Linux, `openat(2)` with
    /// `O_NOFOLLOW_ANY` on Darwin (see `cstowage_open_beneath`). The flags always include `O_CLOEXEC`.
    static func openBeneath(_ directory: Int32, _ path: String, _ flags: Int32) throws -> Int32 {
        try retrying("openat2") { path.withCString { cstowage_open_beneath(directory, $0, flags) } }
    }

    /// `openat(2)` of a name as bytes (see ``RawPath``). The flags always include `O_CLOEXEC`.
    static func openat(_ directory: Int32, _ name: RawPath, _ flags: Int32, mode: FilePermissions = FilePermissions(rawValue: 0)) throws -> Int32 {
        try retrying("openat") { name.withCString { systemOpenat(directory, $0, flags | O_CLOEXEC, mode_t(mode.rawValue)) } }
    }

    /// `openat(2)` of a name given as a C string (as `readdir` hands it out, uncopied).
    static func openat(_ directory: Int32, cName name: UnsafePointer<CChar>, _ flags: Int32) throws -> Int32 {
        try retrying("openat") { systemOpenat(directory, name, flags | O_CLOEXEC, 0) }
    }

    /// `open(2)` of an absolute path.
    static func open(_ path: String, _ flags: Int32) throws -> Int32 {
        try retrying("open") { path.withCString { systemOpen($0, flags | O_CLOEXEC, 0) } }
    }

    /// `close(2)`. Not retried on EINTR: on Linux and Darwin the descriptor is gone either way.
    static func close(_ fd: Int32) throws {
        if systemClose(fd) == -1 {
            let code = Errno.current
            if code != .interrupted { throw SystemCallError(errno: code, call: "close") }
        }
    }

    /// `dup(2)`.
    static func dup(_ fd: Int32) throws -> Int32 {
        try retrying("dup") { systemDup(fd) }
    }

    // MARK: Reading and writing

    /// `read(2)`; returns the number of bytes read, 0 at the end of the file.
    static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) throws -> Int {
        try retrying("read") { systemRead(fd, buffer, count) }
    }

    /// `pread(2)`.
    static func pread(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, at offset: Int64) throws -> Int {
        try retrying("pread") { systemPread(fd, buffer, count, off_t(offset)) }
    }

    /// `write(2)` until every byte is written.
    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < buffer.count {
            let written = try retrying("write") {
                systemWrite(fd, buffer.baseAddress! + offset, buffer.count - offset)
            }
            offset += written
        }
    }

    /// `pwrite(2)` until every byte is written.
    static func pwriteAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, at offset: Int64) throws {
        var done = 0
        while done < buffer.count {
            let written = try retrying("pwrite") {
                systemPwrite(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            }
            done += written
        }
    }

    /// `ftruncate(2)`.
    static func ftruncate(_ fd: Int32, _ length: Int64) throws {
        _ = try retrying("ftruncate") { systemFtruncate(fd, off_t(length)) }
    }

    // MARK: Names in folders

    /// `mkdirat(2)`.
    static func mkdirat(_ directory: Int32, _ name: String, mode: FilePermissions) throws {
        _ = try retrying("mkdirat") { name.withCString { systemMkdirat(directory, $0, mode_t(mode.rawValue)) } }
    }

    /// `mkdirat(2)` of a name as bytes.
    static func mkdirat(_ directory: Int32, _ name: RawPath, mode: FilePermissions) throws {
        _ = try retrying("mkdirat") { name.withCString { systemMkdirat(directory, $0, mode_t(mode.rawValue)) } }
    }

    /// `mkdir(2)` of an absolute path.
    static func mkdir(_ path: String, mode: FilePermissions) throws {
        _ = try retrying("mkdir") { path.withCString { systemMkdir($0, mode_t(mode.rawValue)) } }
    }

    /// `unlinkat(2)`; `folder` adds `AT_REMOVEDIR`.
    static func unlinkat(_ directory: Int32, _ name: String, folder: Bool) throws {
        _ = try retrying("unlinkat") { name.withCString { systemUnlinkat(directory, $0, folder ? AT_REMOVEDIR : 0) } }
    }

    /// `unlinkat(2)` of a name as bytes; `folder` adds `AT_REMOVEDIR`.
    static func unlinkat(_ directory: Int32, _ name: RawPath, folder: Bool) throws {
        _ = try retrying("unlinkat") { name.withCString { systemUnlinkat(directory, $0, folder ? AT_REMOVEDIR : 0) } }
    }

    /// `renameat(2)`.
    static func renameat(_ fromDirectory: Int32, _ from: String, _ toDirectory: Int32, _ to: String) throws {
        _ = try retrying("renameat") {
            from.withCString { f in to.withCString { t in systemRenameat(fromDirectory, f, toDirectory, t) } }
        }
    }

    /// `symlinkat(2)` of a link and a target given as bytes.
    static func symlinkat(_ target: RawPath, _ directory: Int32, _ name: RawPath) throws {
        _ = try retrying("symlinkat") {
            target.withCString { t in name.withCString { n in systemSymlinkat(t, directory, n) } }
        }
    }

    // MARK: Status

    /// `fstat(2)`.
    static func fstat(_ fd: Int32) throws -> FileStatus {
        var status = systemStatStruct()
        _ = try retrying("fstat") { systemFstat(fd, &status) }
        return FileStatus(status)
    }

    /// `fstatat(2)`, never following a final symbolic link unless `followingLinks`.
    static func fstatat(_ directory: Int32, _ name: String, followingLinks: Bool = false) throws -> FileStatus {
        var status = systemStatStruct()
        _ = try retrying("fstatat") {
            name.withCString { systemFstatat(directory, $0, &status, followingLinks ? 0 : AT_SYMLINK_NOFOLLOW) }
        }
        return FileStatus(status)
    }

    /// `fstatat(2)` of a name as bytes, never following a final symbolic link unless `followingLinks`.
    static func fstatat(_ directory: Int32, _ name: RawPath, followingLinks: Bool = false) throws -> FileStatus {
        try name.withCString { try fstatat(directory, cName: $0, followingLinks: followingLinks) }
    }

    /// `fstatat(2)` of a name given as a C string (as `readdir` hands it out, uncopied).
    static func fstatat(_ directory: Int32, cName name: UnsafePointer<CChar>, followingLinks: Bool) throws -> FileStatus {
        var status = systemStatStruct()
        _ = try retrying("fstatat") { systemFstatat(directory, name, &status, followingLinks ? 0 : AT_SYMLINK_NOFOLLOW) }
        return FileStatus(status)
    }

    /// The identity of the mount holding the open file `fd` (`statx`'s `stx_mnt_id`), or `nil`
    /// where the system does not tell (Linux before 5.8, Darwin): callers then compare devices.
    static func mountID(_ fd: Int32) -> UInt64? {
        var identity: UInt64 = 0
        // Any failure means "not told": the caller compares devices, as documented.
        guard (try? retrying("statx") { cstowage_mount_id(fd, &identity) }) != nil else { return nil }
        return identity
    }

    /// `lstat(2)` of an absolute path.
    static func lstat(_ path: String) throws -> FileStatus {
        var status = systemStatStruct()
        _ = try retrying("lstat") { path.withCString { systemLstat($0, &status) } }
        return FileStatus(status)
    }

    /// `stat(2)` of an absolute path, following links.
    static func stat(_ path: String) throws -> FileStatus {
        var status = systemStatStruct()
        _ = try retrying("stat") { path.withCString { systemStat($0, &status) } }
        return FileStatus(status)
    }

    /// Copies the file open as `input` (`size` bytes) to the empty file open as `output`, holes
    /// kept as holes: only the data `lseek(SEEK_DATA)`/`lseek(SEEK_HOLE)` find is read and
    /// written, then `output` is made `size` long. A sparse terabyte costs what it holds, not a
    /// terabyte of zeros (a file system that does not tell holes apart reports one data range).
    static func copyKeepingHoles(from input: Int32, to output: Int32, size: Int64) throws {
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var position: Int64 = 0
        while position < size {
            let dataStart = cstowage_seek_data(input, position)
            if dataStart < 0 {
                if errno == ENXIO { break }  // no data past `position`: the rest is a hole
                throw SystemCallError(errno: .current, call: "lseek")
            }
            let holeStart = cstowage_seek_hole(input, dataStart)
            guard holeStart >= 0 else { throw SystemCallError(errno: .current, call: "lseek") }
            var offset = Int64(dataStart)
            while offset < min(Int64(holeStart), size) {
                let wanted = Int(min(Int64(chunk), min(Int64(holeStart), size) - offset))
                let read = try preadAll(input, UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]), at: offset)
                if read == 0 { break }
                try pwriteAll(output, UnsafeRawBufferPointer(rebasing: buffer[0..<read]), at: offset)
                offset += Int64(read)
            }
            position = Int64(holeStart)
        }
        try ftruncate(output, size)
    }

    /// `stat(2)` of a path given as bytes, following links.
    static func stat(_ path: RawPath) throws -> FileStatus {
        try path.withCString { try fstatat(AT_FDCWD, cName: $0, followingLinks: true) }
    }

    /// `realpath(3)`: the absolute path of `path` without links, `.` or `..`.
    ///
    /// - Throws: `EILSEQ` when the resolved path is not UTF-8 (a link can lead there from a
    ///   UTF-8 path): as text it would be another folder's path.
    static func resolvedPath(_ path: String) throws -> String {
        guard let resolved = path.withCString({ realpath($0, nil) }) else {
            throw SystemCallError(errno: .current, call: "realpath")
        }
        defer { free(resolved) }
        let bytes = RawPath(cString: resolved)
        guard bytes.isUTF8 else { throw SystemCallError(errno: Errno(rawValue: EILSEQ), call: "realpath") }
        return bytes.description
    }

    /// `realpath(3)` of a path given as bytes, or the path itself when it cannot be resolved.
    static func resolvedBytes(_ path: RawPath) -> RawPath {
        guard let resolved = path.withCString({ realpath($0, nil) }) else { return path }
        defer { free(resolved) }
        return RawPath(cString: resolved)
    }

    /// ``resolvedPath(_:)``, or `path` itself when it cannot be resolved (for a lookup that
    /// falls back to the path as given).
    static func canonicalPath(_ path: String) -> String {
        (try? resolvedPath(path)) ?? path
    }

    /// `fchmod(2)`.
    static func fchmod(_ fd: Int32, _ mode: FilePermissions) throws {
        _ = try retrying("fchmod") { systemFchmod(fd, mode_t(mode.rawValue)) }
    }

    /// The effective user id.
    static var effectiveUserID: uid_t { geteuid() }

    /// `getenv(3)`: one variable of the process's environment, without copying the whole
    /// environment into a dictionary as `ProcessInfo.environment` does on every read.
    /// Bytes that are not UTF-8 become U+FFFD: for values read as text (sizes, fault lists); a
    /// value that names a folder is read with ``environmentBytes(_:)``.
    static func environmentVariable(_ name: String) -> String? {
        environmentBytes(name).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `getenv(3)`: one variable's value as bytes, exactly.
    static func environmentBytes(_ name: String) -> [UInt8]? {
        guard let value = getenv(name) else { return nil }
        return RawPath(cString: value).bytes
    }

    // MARK: Locks and durability

    /// `flock(2)`: `LOCK_SH` or `LOCK_EX`, waiting until granted.
    static func flock(_ fd: Int32, exclusive: Bool) throws {
        _ = try retrying("flock") { systemFlock(fd, exclusive ? LOCK_EX : LOCK_SH) }
    }

    /// `flock(2)` with `LOCK_NB`: `false` when another open file description holds a
    /// conflicting lock, instead of waiting.
    static func tryLock(_ fd: Int32, exclusive: Bool) throws -> Bool {
        do {
            _ = try retrying("flock") { systemFlock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) }
            return true
        } catch Errno.wouldBlock {
            return false
        }
    }

    /// `flock(2)` with `LOCK_UN`.
    static func unlock(_ fd: Int32) {
        _ = systemFlock(fd, LOCK_UN)
    }

    /// Makes the file's data durable: `fdatasync(2)` on Linux, `F_FULLFSYNC` on Darwin
    /// (plain `fsync` there only reaches the drive's cache).
    static func syncData(_ fd: Int32) throws {
        #if DEBUG
        TestProbe.recordSync(.syncData, descriptor: fd)
        #endif
        try platformSyncData(fd)
    }

    /// Makes a folder's entries durable: `fsync(2)` on the folder on Linux, `F_FULLFSYNC` on
    /// Darwin (as for a file's data: a plain `fsync` leaves the entries in the drive's cache).
    static func syncFolder(_ fd: Int32) throws {
        #if DEBUG
        TestProbe.recordSync(.syncFolder, descriptor: fd)
        #endif
        try platformSyncFolder(fd)
    }
}

// The libc functions under names that do not clash with the wrappers above.
@inline(__always) private func systemOpenat(_ d: Int32, _ p: UnsafePointer<CChar>, _ f: Int32, _ m: mode_t) -> Int32 { openat(d, p, f, m) }
@inline(__always) private func systemOpen(_ p: UnsafePointer<CChar>, _ f: Int32, _ m: mode_t) -> Int32 { open(p, f, m) }
@inline(__always) private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
@inline(__always) private func systemDup(_ fd: Int32) -> Int32 { dup(fd) }
@inline(__always) private func systemRead(_ fd: Int32, _ b: UnsafeMutableRawPointer, _ c: Int) -> Int { read(fd, b, c) }
@inline(__always) private func systemPread(_ fd: Int32, _ b: UnsafeMutableRawPointer, _ c: Int, _ o: off_t) -> Int { pread(fd, b, c, o) }
@inline(__always) private func systemWrite(_ fd: Int32, _ b: UnsafeRawPointer, _ c: Int) -> Int { write(fd, b, c) }
@inline(__always) private func systemPwrite(_ fd: Int32, _ b: UnsafeRawPointer, _ c: Int, _ o: off_t) -> Int { pwrite(fd, b, c, o) }
@inline(__always) private func systemFtruncate(_ fd: Int32, _ l: off_t) -> Int32 { ftruncate(fd, l) }
@inline(__always) private func systemMkdirat(_ d: Int32, _ p: UnsafePointer<CChar>, _ m: mode_t) -> Int32 { mkdirat(d, p, m) }
@inline(__always) private func systemMkdir(_ p: UnsafePointer<CChar>, _ m: mode_t) -> Int32 { mkdir(p, m) }
@inline(__always) private func systemUnlinkat(_ d: Int32, _ p: UnsafePointer<CChar>, _ f: Int32) -> Int32 { unlinkat(d, p, f) }
@inline(__always) private func systemRenameat(_ a: Int32, _ f: UnsafePointer<CChar>, _ b: Int32, _ t: UnsafePointer<CChar>) -> Int32 { renameat(a, f, b, t) }
@inline(__always) private func systemSymlinkat(_ t: UnsafePointer<CChar>, _ d: Int32, _ n: UnsafePointer<CChar>) -> Int32 { symlinkat(t, d, n) }
@inline(__always) private func systemFstat(_ fd: Int32, _ s: UnsafeMutablePointer<stat>) -> Int32 { fstat(fd, s) }
@inline(__always) private func systemFstatat(_ d: Int32, _ p: UnsafePointer<CChar>, _ s: UnsafeMutablePointer<stat>, _ f: Int32) -> Int32 { fstatat(d, p, s, f) }
@inline(__always) private func systemLstat(_ p: UnsafePointer<CChar>, _ s: UnsafeMutablePointer<stat>) -> Int32 { lstat(p, s) }
@inline(__always) private func systemStat(_ p: UnsafePointer<CChar>, _ s: UnsafeMutablePointer<stat>) -> Int32 { stat(p, s) }
@inline(__always) private func systemStatStruct() -> stat { stat() }
@inline(__always) private func systemFchmod(_ fd: Int32, _ m: mode_t) -> Int32 { fchmod(fd, m) }
@inline(__always) private func systemFlock(_ fd: Int32, _ o: Int32) -> Int32 { flock(fd, o) }
@inline(__always) private func systemReadlinkat(_ d: Int32, _ p: UnsafePointer<CChar>, _ b: UnsafeMutablePointer<CChar>, _ c: Int) -> Int { readlinkat(d, p, b, c) }

extension Sys {
    /// `readlinkat(2)` of a name as bytes: the target as bytes, exactly.
    static func readlinkat(_ directory: Int32, _ name: RawPath) throws -> RawPath {
        var buffer = [CChar](repeating: 0, count: 4097)
        let count = try retrying("readlinkat") {
            name.withCString { systemReadlinkat(directory, $0, &buffer, buffer.count - 1) }
        }
        return RawPath(bytes: buffer.prefix(count).map { UInt8(bitPattern: $0) })
    }

    /// `renameat2(2)` with `RENAME_NOREPLACE` (fails with `EEXIST` when `to` exists) or
    /// `RENAME_EXCHANGE` (swaps the two atomically). Throws `ENOSYS`/`EINVAL`/`ENOTSUP` where the
    /// system or file system lacks it; callers fall back.
    static func renameat2(_ fromDirectory: Int32, _ from: String, _ toDirectory: Int32, _ to: String, exchange: Bool) throws {
        _ = try retrying("renameat2") {
            from.withCString { f in
                to.withCString { t in
                    platformRenameat2(fromDirectory, f, toDirectory, t, exchange: exchange)
                }
            }
        }
    }

    /// Sticky and writable by all: a folder every user shares, such as `/tmp`.
    static let sharedFolderBits: UInt32 = 0o1002

    /// Flags used by the capability layers, so they need no libc names.
    static let writeCreateExclusive: Int32 = O_WRONLY | O_CREAT | O_EXCL
    static let readOnly: Int32 = O_RDONLY
    static let noFollow: Int32 = O_NOFOLLOW
    static let nonBlocking: Int32 = O_NONBLOCK
    /// `O_NOCTTY`: opening a terminal never makes it this process's controlling terminal.
    static let noControllingTerminal: Int32 = O_NOCTTY
}

extension Errno {
    /// What ``Sys/renameat2(_:_:_:_:exchange:)`` fails with where the system or the file system
    /// lacks it (callers fall back).
    static let renameFlagsUnavailable: [Errno] = [.notImplemented, .invalidArgument, .notSupported, .operationNotSupported]
}

#if canImport(Darwin)
@inline(__always) private func platformRenameat2(_ a: Int32, _ f: UnsafePointer<CChar>, _ b: Int32, _ t: UnsafePointer<CChar>, exchange: Bool) -> Int32 {
    renameatx_np(a, f, b, t, exchange ? UInt32(RENAME_SWAP) : UInt32(RENAME_EXCL))
}
#else
@inline(__always) private func platformRenameat2(_ a: Int32, _ f: UnsafePointer<CChar>, _ b: Int32, _ t: UnsafePointer<CChar>, exchange: Bool) -> Int32 {
    cstowage_renameat2(a, f, b, t, UInt32(exchange ? CSTOWAGE_RENAME_EXCHANGE : CSTOWAGE_RENAME_NOREPLACE))
}
#endif

extension Sys {
    static let readWrite: Int32 = O_RDWR
    static let readWriteCreate: Int32 = O_RDWR | O_CREAT
    static let folderReadOnly: Int32 = O_RDONLY | O_DIRECTORY
}

extension Sys {
    static let writeCreateTruncate: Int32 = O_WRONLY | O_CREAT | O_TRUNC

    /// `pread(2)` until `buffer` is full or the file ends; returns the bytes read.
    static func preadAll(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        var done = 0
        while done < buffer.count {
            let count = try pread(fd, buffer.baseAddress! + done, buffer.count - done, at: offset + Int64(done))
            if count == 0 { break }
            done += count
        }
        return done
    }
}

extension Sys {
    /// Sets the access time of an open file to now, leaving the modification time alone
    /// (`futimens` with `UTIME_OMIT`). Explicit updates work whatever the mount's atime policy
    /// (`relatime`, `noatime` only limit the implicit ones).
    static func touchAccessTime(_ fd: Int32) throws {
        var times = [timespec(tv_sec: 0, tv_nsec: cstowage_utime_now()), timespec(tv_sec: 0, tv_nsec: cstowage_utime_omit())]
        _ = try retrying("futimens") { futimens(fd, &times) }
    }

    /// Sets access and modification times of `name` in a folder, not following a link.
    static func setTimes(_ directory: Int32, _ name: String, access: Double, modification: Double) throws {
        func spec(_ seconds: Double) -> timespec {
            let whole = seconds.rounded(.down)
            return timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1e9))
        }
        var times = [spec(access), spec(modification)]
        _ = try retrying("utimensat") { name.withCString { utimensat(directory, $0, &times, AT_SYMLINK_NOFOLLOW) } }
    }
}
