import Foundation

extension Store {
    /// Appends one value to the array file at `path` in `location`.
    ///
    /// A missing or empty file becomes a one-element array; a file holding a single value
    /// becomes a two-element array (a one-time rewrite, after checking that the value decodes as
    /// `Value`). With the JSON format an append writes only the new element: its cost does not
    /// grow with the file, so a run of appends stays linear. Other formats rewrite the array.
    ///
    /// **Arrays are appended element by element**, as `Disk.append` does: whatever the static
    /// type (a literal, a `map`, a generic `Value`), an array value adds its elements, never
    /// itself as one nested element. To add one element that is itself an array (a row of a
    /// `[[Int]]` file), wrap it: `append([row], ...)`. `Data` and `[Data]` values, however typed,
    /// go to a numbered folder (``appendToFolder(_:to:in:fileExtension:options:)``).
    ///
    /// **The type is checked.** Before writing, the array's first element is decoded as `Value`
    /// from its own bytes (never the whole file): when it does not decode, the append is refused
    /// and the file is left as it was. An empty array accepts any type. The check sees only the
    /// first element, so a type that decodes from it (one whose properties are all optional, say)
    /// passes; a file whose elements differ among themselves is not detected.
    ///
    /// **The array is checked whole, once.** A file Stowage did not last write (or one changed
    /// since) is read once from start to end, in bounded memory, and refused, unchanged, unless it
    /// is one JSON array; Stowage then records it as it left it, and later appends trust that
    /// record and read only the first element and the array's end (see "Appending" in the
    /// Store article).
    ///
    /// Appends are safe from many threads and processes at once: each takes an exclusive lock
    /// on the file (`flock`), and a crash mid-append leaves the array as it was before or after
    /// (see "Appends cost what the value costs" in the README).
    ///
    /// ```swift
    /// try store.append(LogEntry(message: "started"), to: "log.json", in: .applicationSupport)
    /// try store.append([first, second], to: "log.json", in: .applicationSupport)  // two elements
    /// ```
    ///
    /// - Throws: ``StowageError/Code/decodingFailed`` when the array's first element does not
    ///   decode as `Value` (the reason names both; the file is unchanged), when the file starts
    ///   and ends like an array but is no JSON array (the reason says what is wrong and at which
    ///   byte; the file is unchanged), or the file holds something that is neither an array nor
    ///   a `Value`; ``StowageError/Code/encodingFailed``, ``StowageError/Code/noSpace`` (the
    ///   array is left as it was), ``StowageError/Code/wrongKind`` for a folder or a special file
    ///   (FIFO, socket, device: the reason names its kind), ``StowageError/Code/invalidPath``.
    public func append<Value: Codable>(_ value: Value, to path: String, in location: Location,
                                       options: WriteOptions = .default) throws {
        if Value.self == Data.self, let data = value as? Data {
            try appendToFolder(contentsOf: [data], to: path, in: location, options: options)
        } else if let array = value as? any CodableElements {
            try array.append(to: self, path: path, location: location, options: options)
        } else {
            try appendElements([value], to: path, in: location, options: options)
        }
    }

    /// Appends the elements of `values` to the array file at `path` in `location`, in one write.
    ///
    /// The spelling `Disk.append(_: [T], ...)` uses: the same as
    /// ``append(contentsOf:to:in:options:)``. The elements are appended, never the array as one
    /// nested element; to add one element that is itself an array, wrap it:
    /// `append([row], to: "matrix.json", in: .documents)` adds `row` to a `[[Int]]` file.
    ///
    /// ```swift
    /// try store.append(newMessages, to: "messages.json", in: .documents)
    /// ```
    ///
    /// - Throws: as ``append(_:to:in:options:)-(Value,_,_,_)``.
    public func append<Element: Codable>(_ values: [Element], to path: String, in location: Location,
                                         options: WriteOptions = .default) throws {
        try append(contentsOf: values, to: path, in: location, options: options)
    }

    /// Appends several values to the array file at `path` in `location`, in one write.
    ///
    /// Each value is checked against the array's first element, as
    /// ``append(_:to:in:options:)-(Value,_,_,_)`` describes; a refused append writes none of
    /// them. `Data` elements, however typed, go to a numbered folder
    /// (``appendToFolder(contentsOf:to:in:fileExtension:options:)``).
    ///
    /// ```swift
    /// try store.append(contentsOf: [first, second], to: "log.json", in: .applicationSupport)
    /// ```
    ///
    /// - Throws: as ``append(_:to:in:options:)-(Value,_,_,_)``.
    public func append<Value: Codable>(contentsOf values: [Value], to path: String, in location: Location,
                                       options: WriteOptions = .default) throws {
        if Value.self == Data.self, let items = values as? [Data] {
            try appendToFolder(contentsOf: items, to: path, in: location, options: options)
        } else {
            try appendElements(values, to: path, in: location, options: options)
        }
    }

    /// The append to an array file itself.
    private func appendElements<Value: Codable>(_ values: [Value], to path: String, in location: Location,
                                                options: WriteOptions) throws {
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
                        } catch Errno.fileExists {
                            continue  // another writer created it meanwhile: append to theirs
                        }
                    }
                    let file: OpenFile
                    do {
                        // A device is refused before it is opened (opening one can act: a tape
                        // rewinds); the kind is checked again on the descriptor below.
                        if let present = try folder.statusIfPresent(of: relative.name), present.kind == .other {
                            throw Self.specialFileError(present, operation: .append, location: location, path: path)
                        }
                        // Without blocking: a FIFO put in the file's place must not hang the open.
                        file = try folder.open(relative.name, flags: Sys.readWrite | Sys.nonBlocking | Sys.noControllingTerminal)
                    } catch Errno.noSuchEntry {
                        continue  // removed meanwhile: create it anew
                    } catch Errno.isFolder {
                        throw StowageError(.wrongKind, operation: .append, location: location, path: path,
                                           reason: "it is a folder; append Data to a numbered folder instead")
                    } catch Errno.tooManySymbolicLinkLevels {
                        throw StowageError(.invalidPath, operation: .append, location: location, path: path,
                                           reason: "it is a symbolic link; Stowage does not follow links inside a container")
                    }
                    let kind = try file.status()
                    if kind.kind != .file {
                        throw Self.specialFileError(kind, operation: .append, location: location, path: path)
                    }
                    try file.lock(exclusive: true)
                    defer { file.unlock() }
                    // Another writer may have replaced the file while we waited for the lock.
                    let opened = try file.status()
                    guard let current = try folder.statusIfPresent(of: relative.name),
                          current.inode == opened.inode, current.device == opened.device else { continue }
                    try AppendJournal.recover(file: file, name: relative.name, in: folder, durable: durable)

                    if format.isJSON {
                        let outcome = try JSONArrayFile.append(elements, to: file, name: relative.name, in: folder, durable: durable,
                                                               checkingFirstElement: { first in
                                                                   try checkElement(first, decodesAs: Value.self, location: location, path: path)
                                                               })
                        switch outcome {
                        case .appended:
                            return
                        case .malformed(let problem):
                            throw StowageError(.decodingFailed, operation: .append, location: location, path: path,
                                               reason: "the file is not a well-formed JSON array: \(problem); the file is unchanged")
                        case .notAnArray:
                            break
                        }
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
                                       reason: "the file holds neither an array of \(Value.self) nor a single \(Value.self); the file is unchanged")
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

    /// Refuses an append of `Value`s to an array whose first element, `first` (its JSON bytes),
    /// does not decode as a `Value`.
    private func checkElement<Value: Codable>(_ first: Data, decodesAs type: Value.Type, location: Location,
                                              path: String) throws {
        do {
            _ = try format.decode(Value.self, from: first)
        } catch {
            let limit = 64
            var excerpt = String(decoding: first.prefix(limit), as: UTF8.self)
            if first.count > limit { excerpt += "…" }
            var reason = "the array's elements are not \(Value.self): its first element, \(excerpt), "
                + "does not decode as one; the file is unchanged"
            if first.first == UInt8(ascii: "["), !(Value.self is any CodableElements.Type) {
                reason += ". An array passed to append adds its elements; to add an array as one element, "
                    + "wrap it: append([element], ...)"
            }
            throw StowageError(.decodingFailed, operation: .append, location: location, path: path,
                               underlying: error, reason: reason)
        }
    }
}

/// An array of Codable elements seen through a generic `Value`: how
/// ``Store/append(_:to:in:options:)-(Value,_,_,_)`` appends the elements of an array whose static
/// type is only `Value` (generic code, or an overload the compiler preferred), instead of nesting it.
protocol CodableElements {
    func append(to store: Store, path: String, location: Location, options: WriteOptions) throws
}

extension Array: CodableElements where Element: Codable {
    func append(to store: Store, path: String, location: Location, options: WriteOptions) throws {
        try store.append(contentsOf: self, to: path, in: location, options: options)
    }
}

// Other collections that encode as a JSON array add their elements too, never the whole
// collection as one element (a `Set` in its iteration order).
extension ContiguousArray: CodableElements where Element: Codable {
    func append(to store: Store, path: String, location: Location, options: WriteOptions) throws {
        try store.append(contentsOf: Array(self), to: path, in: location, options: options)
    }
}

extension Set: CodableElements where Element: Codable {
    func append(to store: Store, path: String, location: Location, options: WriteOptions) throws {
        try store.append(contentsOf: Array(self), to: path, in: location, options: options)
    }
}
