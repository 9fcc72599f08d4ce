import Foundation

extension Store {
    /// Appends one value to the array file at `path` in `location`.
    ///
    /// A missing or empty file becomes a one-element array; a file holding a single value
    /// becomes a two-element array (a one-time rewrite, after checking that the value decodes as
    /// `Value`). With the JSON format an append writes only the new element: its cost does not
    /// grow with the file, so a run of appends stays linear. Other formats rewrite the array.
    ///
    /// Appends are safe from many threads and processes at once: each takes an exclusive lock
    /// on the file (`flock`), and a crash mid-append leaves the array as it was before or after
    /// (see "Appends cost what the value costs" in the README).
    ///
    /// ```swift
    /// try store.append(LogEntry(message: "started"), to: "log.json", in: .applicationSupport)
    /// ```
    ///
    /// - Important: For speed the existing elements are not decoded: appending a value of another
    ///   type to an array succeeds and the mismatch shows when the array is retrieved.
    /// - Throws: ``StowageError/Code/encodingFailed``, ``StowageError/Code/decodingFailed`` when the
    ///   file holds something that is neither an array nor a `Value`, ``StowageError/Code/noSpace``
    ///   (the array is left as it was), ``StowageError/Code/wrongKind`` for a folder,
    ///   ``StowageError/Code/invalidPath``.
    public func append<Value: Codable>(_ value: Value, to path: String, in location: Location,
                                       options: WriteOptions = .default) throws {
        try append(contentsOf: [value], to: path, in: location, options: options)
    }

    /// Appends several values to the array file at `path` in `location`, in one write.
    ///
    /// - Throws: as ``append(_:to:in:options:)-(Value,_,_,_)``.
    public func append<Value: Codable>(contentsOf values: [Value], to path: String, in location: Location,
                                       options: WriteOptions = .default) throws {
        let elements: [Data]
        do {
            elements = try format.isJSON ? values.map { try format.encode($0) } : []
        } catch {
            throw StowageError(.encodingFailed, operation: .append, location: location, path: path, underlying: error)
        }
        try perform(.append, location, path) {
            let relative = try RelativePath(path)
            let durable = options.isDurable(in: location)
            // The elements and their separators, and the append's small journal.
            let appended = elements.reduce(Int64(elements.count + 2)) { $0 + Int64($1.count) }
            try checkSpace(forFiles: [appended, 1], in: location, options: options, operation: .append, path: path)
            try AtomicWrite.retryingVanishedFolders {
                guard let folder = try openParent(of: relative, in: location, create: true,
                                                  protection: options.protection, operation: .append) else {
                    throw StowageError(.notFound, operation: .append, location: location, path: path)
                }
                while true {
                    // A new file appears whole, by an atomic write, or not at all: created empty and
                    // then filled, a crash in between would leave an empty file that is no array.
                    if try folder.statusIfPresent(of: relative.name) == nil {
                        let array: Data
                        do {
                            array = try format.encode(values)
                        } catch {
                            throw StowageError(.encodingFailed, operation: .append, location: location, path: path, underlying: error)
                        }
                        do {
                            try AtomicWrite.write(array, into: folder, name: relative.name, durable: durable,
                                                  protection: options.protection, replacing: false)
                            return
                        } catch let error as SystemCallError where error.errno == Sys.exists {
                            continue  // another writer created it meanwhile: append to theirs
                        }
                    }
                    let file: OpenFile
                    do {
                        file = try folder.open(relative.name, flags: Sys.readWrite)
                    } catch let error as SystemCallError where error.errno == Sys.noSuchEntry {
                        continue  // removed meanwhile: create it anew
                    } catch let error as SystemCallError where error.errno == Sys.isFolder {
                        throw StowageError(.wrongKind, operation: .append, location: location, path: path,
                                           reason: "it is a folder; append Data to a numbered folder instead")
                    } catch let error as SystemCallError where error.errno == Sys.loop {
                        throw StowageError(.invalidPath, operation: .append, location: location, path: path,
                                           reason: "it is a symbolic link; Stowage does not follow links inside a container")
                    }
                    try file.lock(exclusive: true)
                    defer { file.unlock() }
                    // Another writer may have replaced the file while we waited for the lock.
                    let opened = try file.status()
                    guard let current = try folder.statusIfPresent(of: relative.name),
                          current.inode == opened.inode, current.device == opened.device else { continue }
                    try AppendJournal.recover(file: file, name: relative.name, in: folder, durable: durable)

                    if format.isJSON,
                       try JSONArrayFile.append(elements, to: file, name: relative.name, in: folder, durable: durable) == .appended {
                        return
                    }
                    try rewriteArray(appending: values, file: file, name: relative.name, folder: folder,
                                     location: location, path: path, options: options)
                    return
                }
            }
        }
    }

    /// The slow path: decode what is there (an array or a single value), append, write it all
    /// back atomically. Used for non-JSON formats and once for a file holding a single value.
    private func rewriteArray<Value: Codable>(appending values: [Value], file: OpenFile, name: String,
                                              folder: OpenFile, location: Location, path: String,
                                              options: WriteOptions) throws {
        let existing = try file.readAll()
        var array: [Value] = []
        if !existing.allSatisfy(JSONArrayFile.isBlank) {
            if let decoded = try? format.decode([Value].self, from: existing) {
                array = decoded
            } else {
                do {
                    array = [try format.decode(Value.self, from: existing)]
                } catch {
                    throw StowageError(.decodingFailed, operation: .append, location: location, path: path,
                                       underlying: error,
                                       reason: "the file holds neither an array nor a single \(Value.self)")
                }
            }
        }
        array.append(contentsOf: values)
        let data: Data
        do {
            data = try format.encode(array)
        } catch {
            throw StowageError(.encodingFailed, operation: .append, location: location, path: path, underlying: error)
        }
        try AtomicWrite.write(data, into: folder, name: name, durable: options.isDurable(in: location),
                              protection: options.protection)
    }
}
