#if canImport(Glibc) || canImport(Musl)
import Foundation

/// Exclusion from backup, kept with the item itself.
///
/// Linux: the freedesktop.org Common Extended Attribute `user.xdg.robots.backup`, `"false"`
/// meaning "do not back up"; absent means the location's default.
package enum BackupMarker {
    package static let attribute = "user.xdg.robots.backup"

    package static func setExcluded(_ excluded: Bool, item: OpenFile, url: URL) throws {
        if excluded {
            try ExtendedAttributes.set(attribute, to: Array("false".utf8), on: item.descriptor)
        } else {
            try ExtendedAttributes.remove(attribute, from: item.descriptor)
        }
    }

    /// Whether the entry `name` (bytes, which need not be UTF-8) of the folder open as `folder`
    /// is excluded, without opening it; an entry that vanished is not.
    package static func isExcluded(entry name: RawPath, inFolder folder: Int32) throws -> Bool {
        try ExtendedAttributes.has(attribute, value: Array("false".utf8), entry: name, inFolder: folder)
    }

    package static func isExcluded(item: OpenFile, url: URL) throws -> Bool {
        try ExtendedAttributes.value(attribute, of: item.descriptor) == Array("false".utf8)
    }

    /// Whether `name` is the attribute that holds exclusion from backup (so a replaced file's
    /// exclusion is passed on with its other attributes; see `KeptMarkers`).
    package static func isBackupAttribute(_ name: String) -> Bool { name == attribute }

    /// Exclusion kept outside extended attributes: none on Linux.
    package static func isExcludedOutsideAttributes(entry name: String, in folder: OpenFile) throws -> Bool { false }

    /// Exclusion kept outside extended attributes: none on Linux.
    package static func setExcludedOutsideAttributes(on file: OpenFile) throws {}
}
#endif
