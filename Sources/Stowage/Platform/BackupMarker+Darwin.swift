#if canImport(Darwin)
import Foundation

/// Exclusion from backup, kept with the item itself: the `isExcludedFromBackup` resource value.
enum BackupMarker {
    static func setExcluded(_ excluded: Bool, item: OpenFile, url: URL) throws {
        var values = URLResourceValues()
        values.isExcludedFromBackup = excluded
        var target = url
        try target.setResourceValues(values)
    }

    /// Whether the item at an absolute path is excluded.
    static func isExcluded(atPath path: String) throws -> Bool {
        try URL(filePath: path).resourceValues(forKeys: [.isExcludedFromBackupKey]).isExcludedFromBackup ?? false
    }

    static func isExcluded(item: OpenFile, url: URL) throws -> Bool {
        try url.resourceValues(forKeys: [.isExcludedFromBackupKey]).isExcludedFromBackup ?? false
    }
}
#endif
