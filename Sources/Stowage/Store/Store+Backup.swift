import Foundation

extension Store {
    /// Excludes the file or folder at `path` from backups.
    ///
    /// On Apple platforms this sets the `isExcludedFromBackup` resource value, which iCloud and
    /// Finder backups honour. On Linux it sets the extended attribute `user.xdg.robots.backup`
    /// to `false`, as the freedesktop.org Common Extended Attributes define it; backup tools
    /// that read it skip the item. Use it for large files you can download again that must not
    /// live in Caches (which the system may purge).
    ///
    /// The exclusion stays when the file is saved again (the atomic save passes it on to the new
    /// file, as it does ``Marker/pinned`` and ``Marker/purgeable``); a file removed and made
    /// anew is backed up again.
    ///
    /// - Throws: ``StowageError/Code/unsupported`` on a file system without extended attributes
    ///   (never a silent no-op), ``StowageError/Code/notFound``, ``StowageError/Code/invalidPath``
    ///   for a link.
    public func excludeFromBackup(_ path: String, in location: Location) throws {
        try withItem(path, in: location, operation: .mark) { item, url in
            try BackupMarker.setExcluded(true, item: item, url: url)
        }
    }

    /// Includes the item at `path` in backups again (removes the exclusion).
    ///
    /// - Throws: as ``excludeFromBackup(_:in:)``.
    public func includeInBackup(_ path: String, in location: Location) throws {
        try withItem(path, in: location, operation: .mark) { item, url in
            try BackupMarker.setExcluded(false, item: item, url: url)
        }
    }

    /// Whether the item at `path` is excluded from backup by ``excludeFromBackup(_:in:)``.
    ///
    /// Items in locations that are not backed up at all (caches, temporary) report `false`
    /// unless marked: ask ``Location/policy`` for the location's own rule.
    ///
    /// - Throws: as ``excludeFromBackup(_:in:)``.
    public func isExcludedFromBackup(_ path: String, in location: Location) throws -> Bool {
        try withItem(path, in: location, operation: .mark) { item, url in
            try BackupMarker.isExcluded(item: item, url: url)
        }
    }

    /// Opens the existing item at `path` (file or folder, never a link) and runs `body` with it.
    func withItem<T>(_ path: String, in location: Location, operation: StowageError.Operation,
                     _ body: (OpenFile, URL) throws -> T) throws -> T {
        let url = try url(for: path, in: location)
        return try perform(operation, location, path) {
            let relative = try RelativePath(path)
            guard let folder = try openParent(of: relative, in: location, create: false, protection: nil,
                                              operation: operation),
                  let status = try folder.statusIfPresent(of: relative.name) else {
                throw StowageError(.notFound, operation: operation, location: location, path: path)
            }
            switch status.kind {
            case .folder:
                return try body(try folder.openFolder(relative.name), url)
            case .file:
                return try body(try folder.openForReading(relative.name), url)
            case .symbolicLink:
                throw StowageError(.invalidPath, operation: operation, location: location, path: path,
                                   reason: "it is a symbolic link; Stowage does not follow links inside a container")
            case .other:
                throw StowageError(.unsupported, operation: operation, location: location, path: path,
                                   reason: "it is a device, socket or pipe")
            }
        }
    }
}
