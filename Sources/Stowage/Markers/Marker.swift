import Foundation

/// A mark kept with a file or folder that tells backups and sweeps how to treat it.
///
/// Markers live in the item's own metadata, so they move and survive with it:
/// - ``excludedFromBackup``: Apple's `isExcludedFromBackup` resource value; on Linux the
///   freedesktop.org attribute `user.xdg.robots.backup=false`.
/// - ``purgeable``: may be removed under storage pressure even outside Caches and tmp
///   (`user.stowage.purgeable` on Linux, `org.stowage.purgeable` on Apple platforms).
/// - ``pinned``: never removed by a sweep or pressure relief, even in Caches
///   (`user.stowage.pinned`, `org.stowage.pinned`).
///
/// Saving over a marked file through the ``Store`` keeps its markers: an atomic save replaces
/// the file, and the old file's markers are set on the new one before it takes the old one's
/// place. A file saved under a new name, or after ``Store/remove(_:from:)``, starts with none.
///
/// A file system without extended attributes gives ``StowageError/Code/unsupported`` when a
/// marker is set, never a silent no-op.
public struct Marker: Hashable, Sendable, CustomStringConvertible {
    let name: String
    private init(_ name: String) { self.name = name }

    /// Excluded from backups: on Apple platforms the `isExcludedFromBackup` resource value, which
    /// iCloud and Finder backups honour; on Linux the extended attribute `user.xdg.robots.backup`
    /// set to `false`, as the freedesktop.org Common Extended Attributes define it. Use it for
    /// large files you can download again that must not live in Caches (which the system may
    /// purge):
    ///
    /// ```swift
    /// try store.mark("Downloads", in: .documents, .excludedFromBackup)
    /// ```
    public static let excludedFromBackup = Marker("excludedFromBackup")
    /// Removable under storage pressure wherever it is.
    public static let purgeable = Marker("purgeable")
    /// Never removed by sweeps or pressure relief.
    public static let pinned = Marker("pinned")

    /// Every marker.
    public static let all: [Marker] = [.excludedFromBackup, .purgeable, .pinned]

    /// `excludedFromBackup`, `purgeable` or `pinned`.
    public var description: String { name }

    /// The extended attribute of a Stowage marker (not of backup exclusion, which has its own).
    var attribute: String { ExtendedAttributes.stowagePrefix + name }
    static let setValue: [UInt8] = Array("1".utf8)
}
