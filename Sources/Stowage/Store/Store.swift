import Foundation

/// Saves and retrieves Codable values, `Data` and folders of `Data` inside a ``Container``.
///
/// A store names files by a path relative to a ``Location``: `"Inbox/message.json"` in
/// ``Location/documents``. It does what the well-known `Disk` library does, on Linux too, and:
/// - **Every write is atomic and durable.** The new content goes to a temporary file beside the
///   target, is synced, and is renamed over the target; then the folder is synced. A crash leaves
///   the old file or the new one, never a torn one. (Caches and temporary files skip the syncs
///   by default; see ``WriteOptions``.)
/// - **No path escapes the container.** Paths are validated (``RelativePath``), and every
///   operation walks folder by folder with `openat`, never following a symbolic link, so a link
///   planted inside the container cannot lead a read, write or delete outside it.
/// - **Appending costs what the value costs**, not what the file costs, and is safe across
///   threads and processes.
/// - **Errors say what and where**: one ``StowageError`` naming the operation, location, path
///   and cause.
///
/// ```swift
/// struct Message: Codable { var text: String }
///
/// let store = Store(container: try .default(appIdentifier: "com.example.Chat"))
/// try store.save([Message(text: "hi")], to: "Inbox/messages.json", in: .documents)
/// try store.append(Message(text: "there"), to: "Inbox/messages.json", in: .documents)
/// let inbox = try store.retrieve([Message].self, from: "Inbox/messages.json", in: .documents)
/// ```
///
/// A `Store` is a small value; make one wherever needed. It is `Sendable`, and all its methods
/// may be called from any thread.
public struct Store: Sendable {
    /// The container whose locations this store reads and writes.
    public let container: Container
    /// How Codable values are encoded (JSON by default).
    public let format: any ValueFormat

    /// A store over `container`, encoding values with `format`.
    public init(container: Container, format: any ValueFormat = JSONFormat()) {
        self.container = container
        self.format = format
    }

    /// The file URL of `path` in `location`, whether or not the item exists.
    ///
    /// Names are kept exactly: `"my file.bin"` is the file `my file.bin`, not `my%20file.bin`
    /// (read the path with `url.path(percentEncoded: false)`).
    ///
    /// - Throws: ``StowageError/Code/invalidPath`` for a path that is not a valid
    ///   ``RelativePath``.
    public func url(for path: String, in location: Location) throws -> URL {
        try perform(.locate, location, path) {
            let relative = try RelativePath(path)
            var url = try container.url(for: location)
            for (index, name) in relative.components.enumerated() {
                let last = index == relative.components.count - 1
                url = url.appending(path: name, directoryHint: last ? .inferFromPath : .isDirectory)
            }
            return url
        }
    }
}

extension Store {
    /// Runs `body`, turning any failure into a ``StowageError`` that names `operation`,
    /// `location` and `path`.
    func perform<T>(_ operation: StowageError.Operation, _ location: Location, _ path: String,
                    _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SystemCallError {
            throw StowageError(error, operation: operation, location: location, path: path)
        } catch let error as StowageError {
            // This operation in place of validating or locating, and the location and path
            // where the error names none.
            throw error.replacing(operation: error.operation == .validatePath || error.operation == .locate ? operation : nil,
                                  location: error.location == nil ? location : nil,
                                  path: error.path == nil || error.path == "" ? path : nil)
        }
    }

    /// Opens the folder of `location` (``Container/openFolder(of:create:operation:)``); creating
    /// the caches location's folder also writes its `CACHEDIR.TAG` (``CacheDirectoryTag``), so
    /// backup tools skip it.
    ///
    /// - Returns: `nil` when the folder does not exist and `create` is not set.
    func openLocationFolder(_ location: Location, create: Bool, operation: StowageError.Operation) throws -> OpenFile? {
        guard let folder = try container.openFolder(of: location, create: create, operation: operation) else { return nil }
        if create && location == .caches {
            do {
                try CacheDirectoryTag.ensure(in: folder)
            } catch let error as SystemCallError {
                throw StowageError(error, operation: operation, location: location, path: "")
            }
        }
        return folder
    }

    /// Opens the folder holding `path` (creating missing folders when `create` is set), never
    /// through a symbolic link.
    ///
    /// - Returns: `nil` when a folder on the way does not exist and `create` is not set.
    func openParent(of path: RelativePath, in location: Location, create: Bool,
                    protection: FileProtection?, operation: StowageError.Operation) throws -> OpenFile? {
        guard var current = try openLocationFolder(location, create: create, operation: operation) else { return nil }
        let mode = protection.folderMode
        for name in path.folders {
            guard let next = try Self.openChildFolder(name, in: current, create: create, mode: mode, path: path,
                                                      location: location, operation: operation) else { return nil }
            current = next
        }
        return current
    }

    /// Opens the folder at `path` itself (creating it and missing folders on the way when
    /// `create` is set), never through a symbolic link.
    ///
    /// - Throws: ``StowageError/Code/notFound`` when it does not exist and `create` is not set.
    func openFolder(_ path: RelativePath, in location: Location, operation: StowageError.Operation,
                    create: Bool, protection: FileProtection? = nil) throws -> OpenFile {
        let mode = protection.folderMode
        guard let parent = try openParent(of: path, in: location, create: create, protection: protection,
                                          operation: operation),
              let folder = try Self.openChildFolder(path.name, in: parent, create: create, mode: mode, path: path,
                                                    location: location, operation: operation) else {
            throw StowageError(.notFound, operation: operation, location: location, path: path.string)
        }
        return folder
    }

    /// Opens (or, when `create` is set, creates and opens) the folder `name` in `folder`.
    static func openChildFolder(_ name: String, in folder: OpenFile, create: Bool, mode: FilePermissions,
                                path: RelativePath, location: Location,
                                operation: StowageError.Operation) throws -> OpenFile? {
        if try folder.statusIfPresent(of: name) == nil {
            guard create else { return nil }
            try createFolderIfMissing(name, in: folder, mode: mode)
        }
        return try openExistingFolder(name, in: folder, path: path, location: location, operation: operation)
    }

    /// Opens the existing folder `name`, with a precise error for a link or a file.
    static func openExistingFolder(_ name: String, in folder: OpenFile, path: RelativePath,
                                   location: Location, operation: StowageError.Operation) throws -> OpenFile {
        // The descriptor is caught bare and owned afterwards: Swift 6.3 cannot yet compile a
        // `catch` around a call returning a non-copyable value.
        let descriptor: Int32
        do {
            descriptor = try folder.openFolderDescriptor(name)
        } catch Errno.tooManySymbolicLinkLevels, Errno.notFolder {
            throw try folderProblem(name, in: folder, path: path, location: location, operation: operation)
        }
        return OpenFile(adopting: descriptor)
    }

    /// The error for a path whose folder `name` is a link or a file.
    static func folderProblem(_ name: String, in folder: OpenFile, path: RelativePath,
                              location: Location, operation: StowageError.Operation) throws -> StowageError {
        let status = try folder.statusIfPresent(of: name)
        if status?.kind == .symbolicLink {
            return StowageError(.invalidPath, operation: operation, location: location, path: path.string,
                                errno: .tooManySymbolicLinkLevels, systemCall: "openat",
                                reason: "'\(name)' is a symbolic link; Stowage does not follow links inside a container")
        }
        if let status, status.kind == .other, name == path.name {
            return specialFileError(status, operation: operation, location: location, path: path.string)
        }
        return StowageError(.wrongKind, operation: operation, location: location, path: path.string,
                            errno: .notFolder, systemCall: "openat",
                            reason: "'\(name)' is a file, not a folder")
    }
}
