#if canImport(Glibc) || canImport(Musl)
import Foundation

/// Exclusion from backup, kept with the item itself.
///
/// Linux: the freedesktop.org Common Extended Attribute `user.xdg.robots.backup`, `"false"`
/// meaning "do not back up"; absent means the location's default.
enum BackupMarker {
    static let attribute = "user.xdg.robots.backup"

    static func setExcluded(_ excluded: Bool, item: OpenFile, url: URL) throws {
        if excluded {
            try ExtendedAttributes.set(attribute, to: Array("false".utf8), on: item.descriptor)
        } else {
            try ExtendedAttributes.remove(attribute, from: item.descriptor)
        }
    }

    /// Whether the item at an absolute path is excluded, without opening it.
    static func isExcluded(atPath path: String) throws -> Bool {
        try ExtendedAttributes.has(attribute, value: Array("false".utf8), atPath: path)
    }

    static func isExcluded(item: OpenFile, url: URL) throws -> Bool {
        try ExtendedAttributes.value(attribute, of: item.descriptor) == Array("false".utf8)
    }
}
#endif
