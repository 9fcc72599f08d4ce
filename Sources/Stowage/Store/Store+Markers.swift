import Foundation

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
