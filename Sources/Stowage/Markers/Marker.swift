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

extension Store {
    /// Sets `marker` on the file or folder at `path` in `location`.
    ///
    /// ```swift
    /// try store.mark("offline-maps/europe.pack", in: .applicationSupport, .purgeable)
    /// try store.mark("avatar.png", in: .caches, .pinned)
    /// ```
    ///
    /// - Throws: ``StowageError/Code/unsupported`` on a file system without extended attributes,
    ///   ``StowageError/Code/notFound``, ``StowageError/Code/invalidPath`` for a link.
    public func mark(_ path: String, in location: Location, _ marker: Marker) throws {
        try setMarker(marker, on: path, in: location, to: true)
    }

    /// Removes `marker` from the item at `path`; removing an absent marker is not an error.
    ///
    /// - Throws: as ``mark(_:in:_:)``.
    public func unmark(_ path: String, in location: Location, _ marker: Marker) throws {
        try setMarker(marker, on: path, in: location, to: false)
    }

    /// The markers set on the item at `path`.
    ///
    /// - Throws: as ``mark(_:in:_:)``, except that a file system without extended attributes
    ///   simply has no markers.
    public func markers(of path: String, in location: Location) throws -> Set<Marker> {
        try withItem(path, in: location, operation: .mark) { item, url in
            var markers = Set<Marker>()
            do {
                if try BackupMarker.isExcluded(item: item, url: url) { markers.insert(.excludedFromBackup) }
                for marker in [Marker.purgeable, .pinned]
                where try ExtendedAttributes.value(marker.attribute, of: item.descriptor) == Marker.setValue {
                    markers.insert(marker)
                }
            } catch Errno.attributesUnsupported {
                return []
            }
            return markers
        }
    }

    private func setMarker(_ marker: Marker, on path: String, in location: Location, to value: Bool) throws {
        try withItem(path, in: location, operation: .mark) { item, url in
            if marker == .excludedFromBackup {
                try BackupMarker.setExcluded(value, item: item, url: url)
            } else if value {
                try ExtendedAttributes.set(marker.attribute, to: Marker.setValue, on: item.descriptor)
            } else {
                try ExtendedAttributes.remove(marker.attribute, from: item.descriptor)
            }
        }
    }
}
