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

// Names in folders: making, removing, renaming and linking them, and resolving paths.
extension Sys {
    /// `mkdirat(2)`.
    package static func mkdirat(_ directory: Int32, _ name: String, mode: FilePermissions) throws {
        try budgeted(creating: .folder, call: "mkdirat", status: { try fstatat(directory, name) },
                     entry: { BudgetEntry(directory: directory, name: Array(name.utf8)) }) {
            _ = try retrying("mkdirat") { name.withCString { systemMkdirat(directory, $0, mode_t(mode.rawValue)) } }
        }
    }

    /// `mkdirat(2)` of a name as bytes.
    package static func mkdirat(_ directory: Int32, _ name: RawPath, mode: FilePermissions) throws {
        try budgeted(creating: .folder, call: "mkdirat", status: { try fstatat(directory, name) },
                     entry: { BudgetEntry(directory: directory, name: name.bytes) }) {
            _ = try retrying("mkdirat") { name.withCString { systemMkdirat(directory, $0, mode_t(mode.rawValue)) } }
        }
    }

    /// `mkdir(2)` of an absolute path.
    package static func mkdir(_ path: String, mode: FilePermissions) throws {
        try budgeted(creating: .folder, call: "mkdir", status: { try lstat(path) },
                     entry: { BudgetEntry(directory: AT_FDCWD, name: Array(path.utf8)) }) {
            _ = try retrying("mkdir") { path.withCString { systemMkdir($0, mode_t(mode.rawValue)) } }
        }
    }

    /// `unlinkat(2)`; `folder` adds `AT_REMOVEDIR`.
    package static func unlinkat(_ directory: Int32, _ name: String, folder: Bool) throws {
        try budgeted(removing: { try fstatat(directory, name) }) {
            _ = try retrying("unlinkat") { name.withCString { systemUnlinkat(directory, $0, folder ? AT_REMOVEDIR : 0) } }
        }
    }

    /// `unlinkat(2)` of a name as bytes; `folder` adds `AT_REMOVEDIR`.
    package static func unlinkat(_ directory: Int32, _ name: RawPath, folder: Bool) throws {
        try budgeted(removing: { try fstatat(directory, name) }) {
            _ = try retrying("unlinkat") { name.withCString { systemUnlinkat(directory, $0, folder ? AT_REMOVEDIR : 0) } }
        }
    }

    /// `renameat(2)`.
    package static func renameat(_ fromDirectory: Int32, _ from: String, _ toDirectory: Int32, _ to: String) throws {
        try budgeted(renaming: { try fstatat(fromDirectory, from) }, over: { try fstatat(toDirectory, to) }, call: "renameat",
                     entry: { BudgetEntry(directory: toDirectory, name: Array(to.utf8)) }) {
            _ = try retrying("renameat") {
                from.withCString { f in to.withCString { t in systemRenameat(fromDirectory, f, toDirectory, t) } }
            }
        }
    }

    /// `symlinkat(2)` of a link and a target given as bytes.
    package static func symlinkat(_ target: RawPath, _ directory: Int32, _ name: RawPath) throws {
        try budgeted(creating: .symbolicLink, call: "symlinkat", status: { try fstatat(directory, name) },
                     entry: { BudgetEntry(directory: directory, name: name.bytes) }) {
            _ = try retrying("symlinkat") {
                target.withCString { t in name.withCString { n in systemSymlinkat(t, directory, n) } }
            }
        }
    }


    /// `readlinkat(2)` of a name as bytes: the target as bytes, exactly.
    package static func readlinkat(_ directory: Int32, _ name: RawPath) throws -> RawPath {
        var buffer = [CChar](repeating: 0, count: 4097)
        let count = try retrying("readlinkat") {
            name.withCString { systemReadlinkat(directory, $0, &buffer, buffer.count - 1) }
        }
        return RawPath(bytes: buffer.prefix(count).map { UInt8(bitPattern: $0) })
    }

    /// `renameat2(2)` with `RENAME_NOREPLACE` (fails with `EEXIST` when `to` exists) or
    /// `RENAME_EXCHANGE` (swaps the two atomically). Throws `ENOSYS`/`EINVAL`/`ENOTSUP` where the
    /// system or file system lacks it; callers fall back.
    package static func renameat2(_ fromDirectory: Int32, _ from: String, _ toDirectory: Int32, _ to: String, exchange: Bool) throws {
        // A rename without replacing puts `to` in its folder. An exchange puts no new name
        // anywhere and removes nothing: to the budget, a rename of `from` over itself.
        try budgeted(renaming: { try fstatat(fromDirectory, from) },
                     over: { exchange ? try fstatat(fromDirectory, from) : try fstatat(toDirectory, to) },
                     call: "renameat2", entry: { BudgetEntry(directory: toDirectory, name: Array(to.utf8)) }) {
            _ = try retrying("renameat2") {
                from.withCString { f in
                    to.withCString { t in
                        platformRenameat2(fromDirectory, f, toDirectory, t, exchange: exchange)
                    }
                }
            }
        }
    }

    /// `realpath(3)`: the absolute path of `path` without links, `.` or `..`.
    ///
    /// - Throws: `EILSEQ` when the resolved path is not UTF-8 (a link can lead there from a
    ///   UTF-8 path): as text it would be another folder's path.
    package static func resolvedPath(_ path: String) throws -> String {
        guard let resolved = path.withCString({ realpath($0, nil) }) else {
            throw SystemCallError(errno: .current, call: "realpath")
        }
        defer { free(resolved) }
        let bytes = RawPath(cString: resolved)
        guard bytes.isUTF8 else { throw SystemCallError(errno: Errno(rawValue: EILSEQ), call: "realpath") }
        return bytes.description
    }

    /// `realpath(3)` of a path given as bytes, or the path itself when it cannot be resolved.
    package static func resolvedBytes(_ path: RawPath) -> RawPath {
        guard let resolved = path.withCString({ realpath($0, nil) }) else { return path }
        defer { free(resolved) }
        return RawPath(cString: resolved)
    }

    /// ``resolvedPath(_:)``, or `path` itself when it cannot be resolved (for a lookup that
    /// falls back to the path as given).
    package static func canonicalPath(_ path: String) -> String {
        (try? resolvedPath(path)) ?? path
    }
}

// The libc functions under names that do not clash with the wrappers above.
@inline(__always) private func systemMkdirat(_ d: Int32, _ p: UnsafePointer<CChar>, _ m: mode_t) -> Int32 { mkdirat(d, p, m) }
@inline(__always) private func systemMkdir(_ p: UnsafePointer<CChar>, _ m: mode_t) -> Int32 { mkdir(p, m) }
@inline(__always) private func systemUnlinkat(_ d: Int32, _ p: UnsafePointer<CChar>, _ f: Int32) -> Int32 { unlinkat(d, p, f) }
@inline(__always) private func systemRenameat(_ a: Int32, _ f: UnsafePointer<CChar>, _ b: Int32, _ t: UnsafePointer<CChar>) -> Int32 { renameat(a, f, b, t) }
@inline(__always) private func systemSymlinkat(_ t: UnsafePointer<CChar>, _ d: Int32, _ n: UnsafePointer<CChar>) -> Int32 { symlinkat(t, d, n) }
@inline(__always) private func systemReadlinkat(_ d: Int32, _ p: UnsafePointer<CChar>, _ b: UnsafeMutablePointer<CChar>, _ c: Int) -> Int { readlinkat(d, p, b, c) }

extension Errno {
    /// What ``Sys/renameat2(_:_:_:_:exchange:)`` fails with where the system or the file system
    /// lacks it (callers fall back).
    package static let renameFlagsUnavailable: [Errno] = [.notImplemented, .invalidArgument, .notSupported, .operationNotSupported]
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
