import Foundation

/// The names of Stowage's own temporary files (atomic writes, staged cache entries): reserved
/// names, which sweeps recognise and reclaim.
enum TemporaryItem {
    /// The prefix of temporary files and folders of atomic writes. A crash can leave one
    /// behind; sweeps of the folder recognise and reclaim them.
    static let prefix = RelativePath.reservedPrefix + "tmp-"

    /// The prefix of temporary files whose writer holds an exclusive `flock` on them while it
    /// lives (a ``DiskCache`` set's staged entry): one whose lock can be taken is abandoned, and
    /// the removal walk reclaims it at once instead of after the grace period.
    static let heldPrefix = prefix + "held-"

    /// A new unique temporary name, short enough for any folder; with `held`, one that says its
    /// writer holds its lock (``heldPrefix``).
    static func makeName(held: Bool = false) -> String {
        (held ? heldPrefix : prefix) + String(UInt64.random(in: .min ... .max), radix: 16)
    }

    /// Whether `name` is a temporary item of an atomic write.
    static func isTemporary(_ name: String) -> Bool { name.hasBytePrefix(prefix) }
}
