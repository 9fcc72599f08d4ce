import Foundation

extension Store {
    /// Saves `items` as a folder of numbered files `0`, `1`, `2`, ... at `path` in `location`.
    ///
    /// A name of its own, so that a folder is never written where a JSON file was meant: an
    /// array of `Data` given to ``save(_:to:in:options:)-(Value,_,_,_)`` is saved as a folder too
    /// (so that it reads back as what it is), but a call that means a folder says so.
    ///
    /// The folder is written completely under a temporary name and then renamed into place, so
    /// readers see the whole folder or none of it. Saving over an existing item is an error
    /// unless ``WriteOptions/replacesExistingFolder`` is set; then the old folder is swapped out
    /// atomically (`renameat2(RENAME_EXCHANGE)` where the file system has it) and removed.
    ///
    /// ```swift
    /// try store.saveFolder(pages, to: "Scans/receipt", in: .documents, fileExtension: "png")
    /// // Scans/receipt/0.png, Scans/receipt/1.png, ...
    /// ```
    ///
    /// - Parameters:
    ///   - items: The files' contents, in order.
    ///   - path: The folder, relative to the location.
    ///   - location: Where the folder lives.
    ///   - fileExtension: An extension for every file, such as `"png"`; none by default.
    ///   - options: Durability, protection, and whether an existing folder may be replaced.
    /// - Throws: ``StowageError/Code/alreadyExists`` when something is at `path` and replacement
    ///   was not asked for, ``StowageError/Code/invalidArgument`` for an extension containing `/`,
    ///   and the errors of ``save(_:to:in:options:)-(Data,_,_,_)``.
    public func saveFolder(_ items: [Data], to path: String, in location: Location, fileExtension: String? = nil,
                           options: WriteOptions = .default) throws {
        try perform(.save, location, path) {
            let relative = try RelativePath(path)
            let suffix = try Self.numberedSuffix(fileExtension, location: location, path: path)
            let durable = options.isDurable(in: location)
            try checkSpace(forFiles: items.map { Int64($0.count) }, in: location, options: options,
                           operation: .save, path: path)
            try AtomicWrite.retryingVanishedFolders {
                guard let folder = try openParent(of: relative, in: location, create: true,
                                                  protection: options.protection, operation: .save) else {
                    throw StowageError(.notFound, operation: .save, location: location, path: path)
                }
                let existing = try folder.statusIfPresent(of: relative.name)
                if existing != nil && !options.replacesExistingFolder {
                    throw StowageError(.alreadyExists, operation: .save, location: location, path: path,
                                       reason: "something is there already; save with WriteOptions(replacesExistingFolder: true) to replace it")
                }
                let temporary = TemporaryItem.makeName()
                let mode = options.protection.folderMode
                try folder.createFolder(temporary, mode: mode)
                do {
                    let staging = try folder.openFolder(temporary)
                    for (index, item) in items.enumerated() {
                        try AtomicWrite.write(item, into: staging, name: "\(index)\(suffix)", durable: durable,
                                              protection: options.protection, replacing: false)
                    }
                    if durable { try staging.syncFolder() }
                    if existing == nil {
                        try folder.renameWithoutReplacing(temporary, to: folder, as: relative.name)
                    } else {
                        try Self.swapIn(temporary, over: relative.name, in: folder)
                    }
                } catch {
                    try? Removal.removeItem(temporary, in: folder)  // best effort: the original error is what matters
                    throw error
                }
                if durable { try folder.syncFolder() }
            }
        }
    }

    /// Retrieves the files of the folder at `path` in `location`: the numbered files first, in
    /// numeric order (`10` after `9`), then the other files by name.
    ///
    /// A folder written by ``saveFolder(_:to:in:fileExtension:options:)`` or ``appendToFolder(_:to:in:fileExtension:options:)`` holds
    /// only numbered files (`0`, `1`, ... or `0.png`, `1.png`, ...), which come back in the order
    /// they were saved. Any other regular file is returned too, after them, ordered by the bytes
    /// of its name, as `Disk.retrieve(_:from:as: [Data].self)` returns every file of the folder:
    /// a folder of `deer.png`, `bird.png` and `diary.json` gives bird, deer, diary. Hidden files
    /// (names starting with `.`, Stowage's own bookkeeping among them), sub-folders and symbolic
    /// links are skipped; links are never followed.
    ///
    /// ```swift
    /// let pages = try store.retrieveFolder(from: "Scans/receipt", in: .documents)
    /// ```
    ///
    /// - Throws: ``StowageError/Code/notFound``, ``StowageError/Code/wrongKind`` when `path` is a
    ///   file, ``StowageError/Code/invalidPath``. An empty folder is `[]`, not an error.
    public func retrieveFolder(from path: String, in location: Location) throws -> [Data] {
        try retrieveNamedFiles(from: path, in: location).map(\.data)
    }

    /// The files of the folder at `path` with their names, in the order of
    /// ``retrieveFolder(from:in:)``.
    func retrieveNamedFiles(from path: String, in location: Location) throws -> [(name: String, data: Data)] {
        try perform(.retrieve, location, path) {
            let relative = try RelativePath(path)
            let folder = try openFolder(relative, in: location, operation: .retrieve, create: false)
            try folder.lock(exclusive: false)
            defer { folder.unlock() }
            return try Self.filesInRetrievalOrder(in: folder).map { name in
                (name.description, try folder.openForReading(name).readAll())
            }
        }
    }

    /// Appends `data` to the numbered folder at `path` as the next number after the highest
    /// present (a missing folder is created and the file is `0`).
    ///
    /// Safe from many threads and processes at once: the folder is locked while the number is
    /// chosen and the file written.
    ///
    /// - Parameters:
    ///   - data: The new file's contents.
    ///   - path: The numbered folder, relative to the location (created if missing).
    ///   - location: Where the folder lives.
    ///   - fileExtension: The new file's extension; `nil` reuses the extension of the
    ///     highest-numbered file present, if any.
    ///   - options: Durability and protection of the new file.
    /// ```swift
    /// try store.appendToFolder(photo, to: "Album", in: .documents, fileExtension: "png")  // Album/3.png
    /// ```
    ///
    /// - Throws: ``StowageError/Code/wrongKind`` when `path` is a file, and the errors of
    ///   ``save(_:to:in:options:)-(Data,_,_,_)``.
    public func appendToFolder(_ data: Data, to path: String, in location: Location, fileExtension: String? = nil,
                               options: WriteOptions = .default) throws {
        try appendToFolder(contentsOf: [data], to: path, in: location, fileExtension: fileExtension, options: options)
    }

    /// Appends several files to the numbered folder at `path`, numbered in order.
    ///
    /// ```swift
    /// try store.appendToFolder(contentsOf: newPages, to: "Scans/receipt", in: .documents)
    /// ```
    ///
    /// - Throws: as ``appendToFolder(_:to:in:fileExtension:options:)``.
    public func appendToFolder(contentsOf items: [Data], to path: String, in location: Location,
                               fileExtension: String? = nil, options: WriteOptions = .default) throws {
        try perform(.append, location, path) {
            let relative = try RelativePath(path)
            let durable = options.isDurable(in: location)
            try checkSpace(forFiles: items.map { Int64($0.count) }, in: location, options: options,
                           operation: .append, path: path)
            try AtomicWrite.retryingVanishedFolders {
                let folder = try openFolder(relative, in: location, operation: .append, create: true,
                                                    protection: options.protection)
                try folder.lock(exclusive: true)
                defer { folder.unlock() }
                let entries = try Self.numberedEntries(in: folder)
                let suffix = try fileExtension.map { try Self.numberedSuffix($0, location: location, path: path) }
                    ?? entries.last.map(\.suffix) ?? ""
                var next = (entries.last?.number ?? -1) + 1
                for item in items {
                    try AtomicWrite.write(item, into: folder, name: "\(next)\(suffix)", durable: durable,
                                          protection: options.protection, replacing: false)
                    next += 1
                }
                if durable { try folder.syncFolder() }
            }
        }
    }

    // MARK: Internals

    struct NumberedEntry {
        var number: Int
        var name: String
        var suffix: String
    }

    /// The numbered files in `folder`, sorted by number.
    static func numberedEntries(in folder: OpenFile) throws -> [NumberedEntry] {
        var entries: [NumberedEntry] = []
        try folder.forEachEntry { name, _ in
            if let entry = numberedEntry(name) { entries.append(entry) }
        }
        return entries.sorted { $0.number < $1.number }
    }

    /// The names of the regular files in `folder` in the order ``retrieveFolder(from:in:)``
    /// returns them: numbered files by number (equal numbers by name), then the others by their
    /// names' bytes; hidden files, folders and links left out. Names are bytes: a file whose
    /// name is not UTF-8 is read under that name, never under a repaired one.
    static func filesInRetrievalOrder(in folder: OpenFile) throws -> [RawPath] {
        var numbered: [NumberedEntry] = []
        var others: [RawPath] = []
        try folder.forEachEntry { name, kind in
            guard !name.hasPrefix(".") else { return }
            let isFile: Bool
            if let kind {
                isFile = kind == .file
            } else {
                isFile = try folder.statusIfPresent(of: name)?.kind == .file  // the file system gave no type
            }
            guard isFile else { return }
            if let entry = numberedEntry(name) {
                numbered.append(entry)
            } else {
                others.append(name)
            }
        }
        numbered.sort { $0.number != $1.number ? $0.number < $1.number : $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        return numbered.map { RawPath($0.name) } + others.sorted()
    }

    /// The number and suffix of a numbered file's name (`7`, `7.png`), or `nil` for another name
    /// (one that is not UTF-8 among them).
    static func numberedEntry(_ raw: RawPath) -> NumberedEntry? {
        guard raw.isUTF8 else { return nil }
        let name = raw.description
        let stem = name.prefix { $0 != "." }
        guard !stem.isEmpty, stem.allSatisfy(\.isASCII), let number = Int(stem), number >= 0,
              String(number) == stem else { return nil }
        return NumberedEntry(number: number, name: name, suffix: String(name.dropFirst(stem.count)))
    }

    /// Creates the folder `name`; one created by someone else meanwhile is just as good.
    static func createFolderIfMissing(_ name: String, in folder: OpenFile, mode: FilePermissions) throws {
        do {
            try folder.createFolder(name, mode: mode)
        } catch Errno.fileExists {
            return
        }
    }

    private static func numberedSuffix(_ fileExtension: String?, location: Location, path: String) throws -> String {
        guard let fileExtension, !fileExtension.isEmpty else { return "" }
        let trimmed = fileExtension.hasBytePrefix(".") ? String(fileExtension.dropFirst()) : fileExtension
        if trimmed.isEmpty || trimmed.utf8.contains(UInt8(ascii: "/")) || trimmed.utf8.contains(0) || trimmed.utf8.count > 64 {
            throw StowageError(.invalidArgument, operation: .save, location: location, path: path,
                               reason: "the file extension '\(fileExtension)' is not usable")
        }
        return "." + trimmed
    }

    /// Puts the folder `temporary` in place of `name` and removes what was there.
    private static func swapIn(_ temporary: String, over name: String, in folder: OpenFile) throws {
        // The folder saved over keeps its markers, as a file saved over does (see KeptMarkers).
        let kept = try KeptMarkers.of(entry: name, in: folder)
        if !kept.isEmpty { try kept.apply(to: folder.openFolder(temporary)) }
        do {
            try folder.exchange(temporary, name)
            try Removal.removeItem(temporary, in: folder)  // now holds the old item
        } catch Errno.renameFlagsUnavailable {
            // No atomic exchange here: move the old item aside, move the new one in, remove the old.
            let aside = TemporaryItem.makeName()
            try folder.rename(name, to: folder, as: aside)
            do {
                try folder.rename(temporary, to: folder, as: name)
            } catch {
                try? folder.rename(aside, to: folder, as: name)  // best effort: put the old item back
                throw error
            }
            try Removal.removeItem(aside, in: folder)
        }
    }
}

// MARK: Earlier spellings, kept for one release

extension Store {
    /// ``saveFolder(_:to:in:fileExtension:options:)``, in its earlier spelling, an overload of
    /// `save` that wrote a folder where a JSON file may have been meant.
    @available(*, deprecated, renamed: "saveFolder(_:to:in:fileExtension:options:)")
    public func save(_ items: [Data], to path: String, in location: Location, fileExtension: String? = nil,
                     options: WriteOptions = .default) throws {
        try saveFolder(items, to: path, in: location, fileExtension: fileExtension, options: options)
    }

    /// ``retrieveFolder(from:in:)``, in its earlier spelling.
    @available(*, deprecated, message: "use retrieveFolder(from:in:)")
    public func retrieve(_ type: [Data].Type, from path: String, in location: Location) throws -> [Data] {
        try retrieveFolder(from: path, in: location)
    }

    /// ``appendToFolder(_:to:in:fileExtension:options:)``, in its earlier spelling.
    @available(*, deprecated, renamed: "appendToFolder(_:to:in:fileExtension:options:)")
    public func append(_ data: Data, to path: String, in location: Location, fileExtension: String? = nil,
                       options: WriteOptions = .default) throws {
        try appendToFolder(data, to: path, in: location, fileExtension: fileExtension, options: options)
    }

    /// ``appendToFolder(contentsOf:to:in:fileExtension:options:)``, in an earlier spelling (the
    /// one `Disk.append(_: [Data], ...)` uses).
    @available(*, deprecated, renamed: "appendToFolder(contentsOf:to:in:fileExtension:options:)")
    public func append(_ items: [Data], to path: String, in location: Location, fileExtension: String? = nil,
                       options: WriteOptions = .default) throws {
        try appendToFolder(contentsOf: items, to: path, in: location, fileExtension: fileExtension, options: options)
    }

    /// ``appendToFolder(contentsOf:to:in:fileExtension:options:)``, in its earlier spelling.
    @available(*, deprecated, renamed: "appendToFolder(contentsOf:to:in:fileExtension:options:)")
    public func append(contentsOf items: [Data], to path: String, in location: Location,
                       fileExtension: String? = nil, options: WriteOptions = .default) throws {
        try appendToFolder(contentsOf: items, to: path, in: location, fileExtension: fileExtension, options: options)
    }
}
