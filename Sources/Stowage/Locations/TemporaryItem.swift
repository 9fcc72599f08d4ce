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

    /// The folder, directly in a ``DiskCache``'s folder, where its sets stage their entries'
    /// bytes (``heldPrefix`` files) before putting them in place: one folder, so that every
    /// change of the cache can list it and reclaim what killed writers left there at once. The
    /// removal walk enters it (unlike Stowage's other items), so a sweep or `clear` of the
    /// folder reclaims them too.
    static let stagingFolder = RelativePath.reservedPrefix + "staging"

    /// A new unique temporary name, short enough for any folder; with `held`, one that says its
    /// writer holds its lock (``heldPrefix``).
    static func makeName(held: Bool = false) -> String {
        (held ? heldPrefix : prefix) + String(UInt64.random(in: .min ... .max), radix: 16)
    }

    /// Whether `name` is a temporary item of an atomic write.
    static func isTemporary(_ name: String) -> Bool { name.hasBytePrefix(prefix) }
}

/// Writes files atomically: into a temporary file beside the target, synced when durable,
