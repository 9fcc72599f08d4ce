#if canImport(Darwin)
import Darwin
/// What `fdopendir` returns. Apple's `DIR` is a complete struct (Libc's include/dirent.h), which
/// Swift imports as a typed pointer; glibc's and musl's are opaque.
package typealias DirectoryStreamHandle = UnsafeMutablePointer<DIR>
#elseif canImport(Glibc)
import Glibc
package typealias DirectoryStreamHandle = OpaquePointer
#elseif canImport(Musl)
import Musl
package typealias DirectoryStreamHandle = OpaquePointer
#else
#error("Stowage's Platform layer supports Darwin, Glibc and Musl systems")
#endif

/// A folder read entry by entry with `readdir` (which batches `getdents64` on Linux), handing
/// out names as C strings so the hot path of a scan allocates nothing per entry.
///
/// The one way the library reads a folder's names: callers act on an entry through the C name
/// itself (`fstatat`, `openat`) and keep it, when they must, as bytes (``RawPath``), never as a
/// `String`, which would turn a name that is not UTF-8 into another name (Stowage's Architecture article: bytes at every boundary). Scans,
/// removal walks and the Store's listings (through `OpenFile.forEachEntry`) all read here.
///
/// Owns its descriptor: the stream closes it.
package final class DirectoryStream {
    private let stream: DirectoryStreamHandle
    /// The folder's descriptor, for `fstatat` and `openat` of its entries.
    package let descriptor: Int32

    /// Opens the folder at `path` (bytes, which need not be UTF-8), never through a final
    /// symbolic link unless `followingLinks`.
    package convenience init(path: RawPath, followingLinks: Bool) throws {
        try self.init(adopting: try Sys.openat(AT_FDCWD, path, Sys.folderReadOnly | (followingLinks ? 0 : O_NOFOLLOW)))
    }

    /// Reads the folder open as `fd`, which the stream then owns.
    package init(adopting fd: Int32) throws {
        guard let stream = fdopendir(fd) else {
            let code = Errno.current
            try? Sys.close(fd)  // best effort: the stream failed, its descriptor is useless
            throw SystemCallError(errno: code, call: "fdopendir")
        }
        self.stream = stream
        descriptor = fd
    }

    deinit { closedir(stream) }

    /// Calls `body` with each entry's name (valid only during the call) and the type `readdir`
    /// reports, skipping `.` and `..`. Stops early when `body` returns `false`.
    package func forEach(_ body: (UnsafePointer<CChar>, FileStatus.Kind?) throws -> Bool) throws {
        while true {
            resetErrno()
            guard let entry = readdir(stream) else {
                let code = Errno.current
                if code.rawValue != 0 { throw SystemCallError(errno: code, call: "readdir") }
                return
            }
            let keepGoing = try withUnsafePointer(to: &entry.pointee.d_name) { tuple in
                // d_name holds 256 bytes on Linux, 1024 on Apple platforms (64-bit inodes).
                try tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) { name -> Bool in
                    if name[0] == 0x2E && (name[1] == 0 || (name[1] == 0x2E && name[2] == 0)) { return true }
                    let kind: FileStatus.Kind?
                    switch Int32(entry.pointee.d_type) {
                    case Int32(DT_REG): kind = .file
                    case Int32(DT_DIR): kind = .folder
                    case Int32(DT_LNK): kind = .symbolicLink
                    case Int32(DT_UNKNOWN): kind = nil
                    default: kind = .other
                    }
                    return try body(name, kind)
                }
            }
            if !keepGoing { return }
        }
    }

    /// Opens the sub-folder `name` with `openat` (no path walk from the root, unlike opening by
    /// path); `nil` when it cannot be opened now (the caller opens it by path later, and reports
    /// the error then).
    package func openFolder(_ name: UnsafePointer<CChar>, followingLinks: Bool) -> Int32? {
        try? Sys.openat(descriptor, cName: name, Sys.folderReadOnly | (followingLinks ? 0 : O_NOFOLLOW))
    }

    /// Closes a descriptor from ``openFolder(_:followingLinks:)`` that will not be read.
    package static func discard(_ fd: Int32) { try? Sys.close(fd) }  // best effort: nothing was read from it

    /// `fstatat` of an entry by its C name; `nil` when it vanished meanwhile.
    package func status(of name: UnsafePointer<CChar>, followingLinks: Bool) throws -> FileStatus? {
        do {
            return try Sys.fstatat(descriptor, cName: name, followingLinks: followingLinks)
        } catch Errno.noSuchEntry {
            return nil
        }
    }
}

/// Shell-style name patterns (`*.log`, `cache-?`, `[a-c]*`), as `fnmatch(3)` matches them.
package enum NamePattern {
    /// Whether `name` matches `pattern`; with `path` set, `*` does not match `/`.
    package static func matches(_ pattern: String, _ name: UnsafePointer<CChar>, path: Bool = false) -> Bool {
        pattern.withCString { fnmatch($0, name, path ? FNM_PATHNAME : 0) == 0 }
    }
}

@inline(__always) private func resetErrno() { errno = 0 }
