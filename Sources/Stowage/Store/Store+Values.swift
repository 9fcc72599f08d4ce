import Foundation

extension Store {
    /// Saves a Codable value as the file at `path` in `location`, replacing any previous file.
    ///
    /// Folders on the way are created. The write is atomic, and durable unless the options or
    /// the location say otherwise (``WriteOptions/durability``).
    ///
    /// `Data` and `[Data]` keep their own forms whatever their static type, so that what is
    /// saved can be retrieved as what it is: a `Data` is written as its bytes
    /// (``save(_:to:in:options:)-(Data,_,_,_)``) and a `[Data]`, even one built by `map` or
    /// passed through generic code, as a folder of numbered files
    /// (``saveFolder(_:to:in:fileExtension:options:)``), never as JSON of base64 strings.
    ///
    /// ```swift
    /// try store.save(settings, to: "settings.json", in: .applicationSupport)
    /// ```
    ///
    /// - Throws: ``StowageError/Code/encodingFailed`` (nothing written),
    ///   ``StowageError/Code/invalidPath``, ``StowageError/Code/wrongKind`` when a folder is in
    ///   the way, ``StowageError/Code/noSpace`` (the previous file is intact and no temporary
    ///   file remains), ``StowageError/Code/permissionDenied``, ``StowageError/Code/ioFailure``;
    ///   for a `[Data]`, those of ``saveFolder(_:to:in:fileExtension:options:)``, which this form calls
    ///   with ``WriteOptions/replacesExistingFolder`` set (a save replaces what it saves over,
    ///   whatever the type; call the `[Data]` form itself to refuse an existing folder).
    public func save<Value: Encodable>(_ value: Value, to path: String, in location: Location,
                                       options: WriteOptions = .default) throws {
        if Value.self == Data.self, let data = value as? Data {
            return try writeFile(data, to: path, in: location, options: options, operation: .save)
        }
        if Value.self == [Data].self, let items = value as? [Data] {
            // A save replaces what it saves over, for `[Data]` too in generic code: the folder.
            var replacing = options
            replacing.replacesExistingFolder = true
            return try saveFolder(items, to: path, in: location, options: replacing)
        }
        let data: Data
        do {
            data = try format.encode(value)
        } catch {
            throw StowageError(.encodingFailed, operation: .save, location: location, path: path, underlying: error)
        }
        try writeFile(data, to: path, in: location, options: options, operation: .save)
    }

    /// Saves `data` as the file at `path` in `location`, replacing any previous file.
    ///
    /// - Throws: as ``save(_:to:in:options:)-(Value,_,_,_)``, without encoding failures.
    public func save(_ data: Data, to path: String, in location: Location, options: WriteOptions = .default) throws {
        try writeFile(data, to: path, in: location, options: options, operation: .save)
    }

    /// Retrieves a Codable value from the file at `path` in `location`.
    ///
    /// As for saving, `Data` and `[Data]` keep their own forms whatever their static type: in
    /// generic code where `Value` is `Data`, the file's bytes are returned, and where it is
    /// `[Data]`, the files of the folder (as ``retrieveFolder(from:in:)``).
    ///
    /// ```swift
    /// let settings = try store.retrieve(Settings.self, from: "settings.json", in: .applicationSupport)
    /// ```
    ///
    /// - Throws: ``StowageError/Code/notFound``, ``StowageError/Code/decodingFailed`` (with the
    ///   `DecodingError` as ``StowageError/underlying``) for truncated, garbage or wrong-type
    ///   content, ``StowageError/Code/wrongKind`` when the path is a folder,
    ///   ``StowageError/Code/invalidPath``.
    public func retrieve<Value: Decodable>(_ type: Value.Type, from path: String, in location: Location) throws -> Value {
        if Value.self == Data.self, let data = try readFile(path, in: location, operation: .retrieve) as? Value {
            return data
        }
        if Value.self == [Data].self, let items = try retrieveFolder(from: path, in: location) as? Value {
            return items
        }
        let data = try readFile(path, in: location, operation: .retrieve)
        do {
            return try format.decode(type, from: data)
        } catch {
            throw StowageError(.decodingFailed, operation: .retrieve, location: location, path: path, underlying: error)
        }
    }

    /// Retrieves the bytes of the file at `path` in `location`.
    ///
    /// - Throws: ``StowageError/Code/notFound``, ``StowageError/Code/wrongKind`` when the path
    ///   is a folder, ``StowageError/Code/invalidPath``.
    public func retrieve(_ type: Data.Type, from path: String, in location: Location) throws -> Data {
        try readFile(path, in: location, operation: .retrieve)
    }

    // MARK: Internals

    /// The atomic write of one file, with all the checks.
    func writeFile(_ data: Data, to path: String, in location: Location, options: WriteOptions,
                   operation: StowageError.Operation) throws {
        try perform(operation, location, path) {
            let relative = try RelativePath(path)
            try checkSpace(forFiles: [Int64(data.count)], in: location, options: options, operation: operation, path: path)
            try AtomicWrite.retryingVanishedFolders {
                guard let folder = try openParent(of: relative, in: location, create: true,
                                                  protection: options.protection, operation: operation) else {
                    throw StowageError(.notFound, operation: operation, location: location, path: path)
                }
                if let existing = try folder.statusIfPresent(of: relative.name), existing.isFolder {
                    throw StowageError(.wrongKind, operation: operation, location: location, path: path,
                                       reason: "a folder is in the way")
                }
                try AtomicWrite.write(data, into: folder, name: relative.name,
                                      durable: options.isDurable(in: location), protection: options.protection)
                try AppendJournal.end(for: relative.name, in: folder)  // it described the file just replaced
            }
        }
    }

    /// Reads one whole file, under a shared lock so that an append in progress is never seen
    /// half-done, finishing or undoing an append that a crash interrupted.
    func readFile(_ path: String, in location: Location, operation: StowageError.Operation) throws -> Data {
        try perform(operation, location, path) {
            let relative = try RelativePath(path)
            guard let folder = try openParent(of: relative, in: location, create: false,
                                              protection: nil, operation: operation) else {
                throw StowageError(.notFound, operation: operation, location: location, path: path)
            }
            let file = try openExistingFile(relative.name, in: folder, operation: operation,
                                            location: location, path: path)
            try file.lock(exclusive: false)
            defer { file.unlock() }
            if try AppendJournal.exists(for: relative.name, in: folder) {
                // An append was interrupted: settle it, then read.
                file.unlock()
                try AppendJournal.settle(relative.name, in: folder, ifInode: file.status().inode)
                try file.lock(exclusive: false)
            }
            let data = try file.readAll()
            try Self.recordAccess(to: file)
            return data
        }
    }

    /// Records that `file` was just read, for least-recently-used sweeps that must not depend on
    /// the mount's atime policy. Coalesced: only when the recorded time is over a minute old, so
    /// repeated reads cost one `fstat` (already made by the read) and no write.
    static func recordAccess(to file: OpenFile) throws {
        try recordAccess(to: file, status: try file.status())
    }

    /// ``recordAccess(to:)`` of a file whose status was just read.
    static func recordAccess(to file: OpenFile, status: FileStatus) throws {
        if Date().timeIntervalSince1970 - status.accessTime > accessRecordingInterval {
            do {
                try Sys.touchAccessTime(file.descriptor)
            } catch let error as SystemCallError where StowageError.Code(errno: error.errno) == .permissionDenied {
                return  // a read-only file or volume: reading still succeeds, the time stays as it was
            }
        }
    }

    /// How stale a recorded access time may be before a read updates it.
    static let accessRecordingInterval: Double = 60

    /// Why an item that is a FIFO, a socket or a device is refused: reading one would block
    /// forever or never end (`/dev/zero`), opening one can act (a tape rewinds), and no value was
    /// ever saved as one. One reason for every special file and every operation (a read, an
    /// append, a numbered folder's place), naming its kind: `it is a socket, a special file; ...`.
    static func specialFileReason(_ special: FileStatus.Special?) -> String {
        (special.map { "it is \($0.rawValue), a special file" } ?? "it is a special file")
            + "; the Store reads and writes only regular files and folders"
    }

    /// The error for the special file `status` describes at `path`.
    static func specialFileError(_ status: FileStatus, operation: StowageError.Operation, location: Location,
                                 path: String) -> StowageError {
        StowageError(.wrongKind, operation: operation, location: location, path: path, reason: specialFileReason(status.special))
    }

    /// Opens an existing regular file for reading, with a precise error for links, folders,
    /// FIFOs and devices (opened without blocking, refused before any read).
    func openExistingFile(_ name: String, in folder: OpenFile, operation: StowageError.Operation,
                          location: Location, path: String) throws -> OpenFile {
        do {
            let file = try folder.openForReading(name)
            let status = try file.status()
            if status.isFolder {
                throw StowageError(.wrongKind, operation: operation, location: location, path: path,
                                   reason: "it is a folder, not a file")
            }
            if status.kind != .file {
                throw Self.specialFileError(status, operation: operation, location: location, path: path)
            }
            return file
        } catch let error as SystemCallError {
            switch error.errno {
            case .tooManySymbolicLinkLevels:
                throw StowageError(.invalidPath, operation: operation, location: location, path: path,
                                   errno: error.errno, systemCall: error.call,
                                   reason: "it is a symbolic link; Stowage does not follow links inside a container")
            case .isFolder:
                throw StowageError(.wrongKind, operation: operation, location: location, path: path,
                                   errno: error.errno, systemCall: error.call, reason: "it is a folder, not a file")
            default:
                // A socket cannot be opened at all (ENXIO), nor a device without its driver: the
                // entry's kind is the cause to report.
                if let status = try folder.statusIfPresent(of: name), status.kind == .other {
                    throw Self.specialFileError(status, operation: operation, location: location, path: path)
                }
                throw error
            }
        }
    }
}
