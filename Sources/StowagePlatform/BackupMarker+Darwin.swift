#if canImport(Darwin)
import Foundation

/// Exclusion from backup, kept with the item itself: the `isExcludedFromBackup` resource value.
///
/// Foundation's errors are turned into ``SystemCallError`` (see `foundationCall`), so that a
/// failure is a ``StowageError`` naming the operation and path, never a bare `CocoaError`.
package enum BackupMarker {
    package static func setExcluded(_ excluded: Bool, item: OpenFile, url: URL) throws {
        var values = URLResourceValues()
        values.isExcludedFromBackup = excluded
        var target = url
        try foundationCall("URL.setResourceValues(isExcludedFromBackup)") { try target.setResourceValues(values) }
    }

    /// Whether the item at an absolute path is excluded.
    package static func isExcluded(atPath path: String) throws -> Bool {
        try isExcluded(url: URL(filePath: path))
    }

    /// Whether the entry `name` of the folder open as `folder` is excluded, read through its path
    /// (`F_GETPATH` of the folder, then the name), since resource values take URLs; an entry that
    /// vanished is not. APFS and HFS+ hold only UTF-8 names, so the path is exact there; a name
    /// that is not UTF-8 (a FAT or SMB volume) cannot be spelled by a URL made from text, and
    /// reads as not excluded.
    package static func isExcluded(entry name: RawPath, inFolder folder: Int32) throws -> Bool {
        let path = String(decoding: try pathBytes(of: folder) + [UInt8(ascii: "/")] + name.bytes, as: UTF8.self)
        do {
            return try isExcluded(atPath: path)
        } catch Errno.noSuchEntry {
            return false
        }
    }

    package static func isExcluded(item: OpenFile, url: URL) throws -> Bool {
        try isExcluded(url: url)
    }

    private static func isExcluded(url: URL) throws -> Bool {
        try foundationCall("URL.resourceValues(isExcludedFromBackup)") {
            try url.resourceValues(forKeys: [.isExcludedFromBackupKey]).isExcludedFromBackup ?? false
        }
    }

    /// The resource value is not an attribute Stowage copies by name (see `KeptMarkers`).
    package static func isBackupAttribute(_ name: String) -> Bool { false }

    /// Whether the entry `name` in `folder` is excluded, read through its path (`F_GETPATH` of
    /// the folder), since resource values take URLs.
    /// A missing entry (a new file, or one removed meanwhile) is not excluded.
    package static func isExcludedOutsideAttributes(entry name: String, in folder: OpenFile) throws -> Bool {
        guard try folder.statusIfPresent(of: name)?.isFile == true else { return false }
        do {
            return try isExcluded(atPath: try path(of: folder.descriptor) + "/" + name)
        } catch Errno.noSuchEntry {
            return false
        }
    }

    /// Excludes the open `file` (a new temporary file) through its path (`F_GETPATH`).
    package static func setExcludedOutsideAttributes(on file: OpenFile) throws {
        try setExcluded(true, item: file, url: URL(filePath: try path(of: file.descriptor)))
    }

    /// The path of an open file or folder: `fcntl(2)` with `F_GETPATH`.
    private static func path(of descriptor: Int32) throws -> String {
        String(decoding: try pathBytes(of: descriptor), as: UTF8.self)
    }

    /// The path of an open file or folder as bytes: `fcntl(2)` with `F_GETPATH`.
    private static func pathBytes(of descriptor: Int32) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: Int(MAXPATHLEN))
        _ = try Sys.retrying("fcntl") { fcntl(descriptor, F_GETPATH, &buffer) }
        return Array(buffer.prefix { $0 != 0 })
    }
}
#endif
