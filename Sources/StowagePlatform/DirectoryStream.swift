#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Stowage's Platform layer supports Darwin, Glibc and Musl systems")
#endif

/// A folder read entry by entry, handing out names as C strings (with their lengths) so the hot
/// path of a scan allocates nothing per entry: `getdents64` into a buffer of the stream's own on
/// Linux (`DirectoryStream+Linux`), `readdir` on Apple platforms (`DirectoryStream+Darwin`).
///
/// The one way the library reads a folder's names: callers act on an entry through the C name
/// itself (`fstatat`, `openat`) and keep it, when they must, as bytes (``RawPath``), never as a
/// `String`, which would turn a name that is not UTF-8 into another name (Stowage's Architecture article: bytes at every boundary). Scans,
/// removal walks and the Store's listings (through `OpenFile.forEachEntry`) all read here.
///
/// Owns its descriptor: the stream closes it.
package final class DirectoryStream {
    private let reader: DirectoryReader
    /// The folder's descriptor, for `fstatat` and `openat` of its entries.
    package let descriptor: Int32

    /// The name of the call that reads a folder's entries, as its errors name it (`getdents64`
    /// on Linux, `readdir` on Apple platforms).
    package static let readCall = DirectoryReader.call

    /// Opens the folder at `path` (bytes, which need not be UTF-8), never through a final
    /// symbolic link unless `followingLinks`.
    package convenience init(path: RawPath, followingLinks: Bool) throws {
        try self.init(adopting: try Sys.openat(AT_FDCWD, path, Sys.folderReadOnly | (followingLinks ? 0 : O_NOFOLLOW)))
    }

    /// Reads the folder open as `fd`, which the stream then owns (and closes, also when this
    /// throws).
    package init(adopting fd: Int32) throws {
        reader = try DirectoryReader(adopting: fd)
        descriptor = fd
    }

    deinit { reader.close(descriptor) }

    /// The next entry (its name valid until the next call), skipping `.` and `..`; `nil` at
    /// the end.
    package func nextEntry() throws -> DirectoryEntry? {
        while let entry = try reader.next(descriptor) {
            let name = entry.name
            if entry.nameLength <= 2 && name[0] == 0x2E && (entry.nameLength == 1 || name[1] == 0x2E) { continue }
            return entry
        }
        return nil
    }

    /// Calls `body` with each entry (its name valid only during the call), skipping `.` and
    /// `..`. Stops early when `body` returns `false`.
    package func forEachEntry(_ body: (DirectoryEntry) throws -> Bool) throws {
        while let entry = try nextEntry() {
            if !(try body(entry)) { return }
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

/// One entry of a folder as ``DirectoryStream`` hands it out: valid only during the call.
package struct DirectoryEntry {
    /// The name, NUL-terminated.
    package let name: UnsafePointer<CChar>
    /// The name's length in bytes, without the NUL.
    package let nameLength: Int
    /// `d_type`: the kind the folder reports (`DT_UNKNOWN` when it does not say).
    package let type: UInt8

    package init(name: UnsafePointer<CChar>, nameLength: Int, type: UInt8) {
        self.name = name
        self.nameLength = nameLength
        self.type = type
    }

    /// The kind the folder reports, `nil` when it does not say (callers `fstatat` then).
    package var kind: FileStatus.Kind? {
        switch Int32(type) {
        case Int32(DT_REG): .file
        case Int32(DT_DIR): .folder
        case Int32(DT_LNK): .symbolicLink
        case Int32(DT_UNKNOWN): nil
        default: .other
        }
    }

    /// Whether the folder reports the entry as a folder (`DT_DIR`); `false` says nothing when
    /// the type is unknown.
    package var isReportedFolder: Bool { Int32(type) == Int32(DT_DIR) }
}

/// Shell-style name patterns (`*.log`, `cache-?`, `[a-c]*`), as `fnmatch(3)` matches them.
package enum NamePattern {
    /// Whether `name` matches `pattern`; with `path` set, `*` does not match `/`.
    package static func matches(_ pattern: String, _ name: UnsafePointer<CChar>, path: Bool = false) -> Bool {
        pattern.withCString { fnmatch($0, name, path ? FNM_PATHNAME : 0) == 0 }
    }
}
