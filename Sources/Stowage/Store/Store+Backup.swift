import Foundation

extension Store {
    /// Excludes the item at `path` from backups: the earlier second name of
    /// ``mark(_:in:_:)`` with ``Marker/excludedFromBackup``.
    @available(*, deprecated, message: "use mark(_:in:_:) with .excludedFromBackup")
    public func excludeFromBackup(_ path: String, in location: Location) throws {
        try mark(path, in: location, .excludedFromBackup)
    }

    /// Includes the item at `path` in backups again: the earlier second name of
    /// ``unmark(_:in:_:)`` with ``Marker/excludedFromBackup``.
    @available(*, deprecated, message: "use unmark(_:in:_:) with .excludedFromBackup")
    public func includeInBackup(_ path: String, in location: Location) throws {
        try unmark(path, in: location, .excludedFromBackup)
    }

    /// Whether the item at `path` is excluded from backup: the earlier second name of
    /// ``markers(of:in:)`` containing ``Marker/excludedFromBackup`` (which, on a file system
    /// without extended attributes, is `false` rather than ``StowageError/Code/unsupported``).
    @available(*, deprecated, message: "use markers(of:in:).contains(.excludedFromBackup)")
    public func isExcludedFromBackup(_ path: String, in location: Location) throws -> Bool {
        try markers(of: path, in: location).contains(.excludedFromBackup)
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
