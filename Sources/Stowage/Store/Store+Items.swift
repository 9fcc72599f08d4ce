import Foundation

extension Store {
    /// Removes the file or folder (with everything in it) at `path` in `location`.
    ///
    /// A symbolic link is removed itself; what it points to is never touched.
    ///
    /// - Throws: ``StowageError/Code/notFound`` when nothing is there,
    ///   ``StowageError/Code/invalidPath``, ``StowageError/Code/permissionDenied``.
    public func remove(_ path: String, from location: Location) throws {
        try perform(.remove, location, path) {
            let relative = try RelativePath(path)
            guard let folder = try openParent(of: relative, in: location, create: false, protection: nil,
                                              operation: .remove) else {
                throw StowageError(.notFound, operation: .remove, location: location, path: path)
            }
            try Removal.removeItem(relative.name, in: folder)
            try AppendJournal.end(for: relative.name, in: folder)  // it described the file just removed
        }
    }

    /// Whether anything (file, folder or link) is at `path` in `location`, telling "no" from
    /// "could not tell".
    ///
    /// `false` means nothing is there: the item is missing, a folder on the way is missing, or a
    /// file is on the way (`"a/b"` where `a` is a file names nothing). When Stowage cannot look,
    /// it throws rather than guess. For the answer `Disk.exists` gives, which is `false` for
    /// anything it cannot find, write `(try? store.exists(path, in: location)) == true`: a hint,
    /// never a reason to create or overwrite something.
    ///
    /// ```swift
    /// if try store.exists("Inbox/messages.json", in: .documents) { ... }
    /// ```
    ///
    /// - Throws: ``StowageError/Code/invalidPath`` for a path that is not a valid
    ///   ``RelativePath`` (`""`, `"../x"`, an absolute path: every path operation rejects these
    ///   alike) or that leads through a symbolic link; ``StowageError/Code/permissionDenied``
    ///   when a folder on the way cannot be searched. A missing item is `false`, not an error.
    public func exists(_ path: String, in location: Location) throws -> Bool {
        do {
            return try status(of: path, in: location, operation: .inspect) != nil
        } catch let error as StowageError where error.code == .wrongKind && error.errno == .notFolder {
            return false  // a file on the way: nothing can be below it
        }
    }

    /// Whether `path` in `location` names an item Stowage can reach, every error read as "no":
    /// the earlier second name of ``exists(_:in:)``, one question with one name now.
    @available(*, deprecated, message: "use try exists(_:in:); (try? exists(_:in:)) == true where an error may read as \"no\"")
    public func contains(_ path: String, in location: Location) -> Bool {
        (try? exists(path, in: location)) == true  // best effort, as documented: errors read as "no"
    }

    /// Whether the item at `path` in `location` is a folder (a link to a folder is not).
    ///
    /// - Throws: ``StowageError/Code/notFound`` when nothing is there,
    ///   ``StowageError/Code/invalidPath``.
    public func isFolder(_ path: String, in location: Location) throws -> Bool {
        guard let status = try status(of: path, in: location, operation: .inspect) else {
            throw StowageError(.notFound, operation: .inspect, location: location, path: path)
        }
        return status.isFolder
    }

    /// Moves the item at `path` from one location to another, keeping its relative path
    /// unless `newPath` is given. Folders on the way are created.
    ///
    /// Within one file system this is a single atomic rename. Between file systems (on Linux,
    /// `tmp` is often a separate tmpfs) the item is copied, synced, renamed into place, and
    /// only then removed from its old place: a crash leaves it in the old place, the new, or both,
    /// never in neither.
    ///
    /// ```swift
    /// try store.move("download.zip", from: .temporary, to: .documents)
    /// ```
    ///
    /// - Throws: ``StowageError/Code/notFound``, ``StowageError/Code/alreadyExists`` when the
    ///   destination exists (nothing is replaced), ``StowageError/Code/invalidPath`` for an
    ///   invalid path or a destination inside the item itself (a folder moved into itself; the
    ///   error's ``StowageError/destinationPath`` names where it was going, and nothing is touched),
    ///   ``StowageError/Code/noSpace``.
    public func move(_ path: String, from source: Location, to destination: Location, as newPath: String? = nil,
                     options: WriteOptions = .default) throws {
        try relocate(path, from: source, to: newPath ?? path, in: destination, options: options, operation: .move)
    }

    /// Renames the item at `path` to `newPath` within `location`; `newPath` may be in another
    /// folder, which is created if needed.
    ///
    /// A folder cannot go inside itself: `rename("album", to: "album/sub", in: .documents)` throws
    /// ``StowageError/Code/invalidPath`` naming both paths (`rename 'Documents/album' to
    /// 'Documents/album/sub' failed: a folder cannot be moved into itself`) before anything is
    /// touched on disk.
    ///
    /// - Throws: as ``move(_:from:to:as:options:)``.
    public func rename(_ path: String, to newPath: String, in location: Location, options: WriteOptions = .default) throws {
        try relocate(path, from: location, to: newPath, in: location, options: options, operation: .rename)
    }

    /// Removes everything in `location`, keeping the location's folder itself (and, in Caches,
    /// its `CACHEDIR.TAG`); returns what was removed.
    ///
    /// Only the location's own folder is emptied: in the default container on Linux that is a
    /// folder of the app's own (`$XDG_CACHE_HOME/<app>`, `$TMPDIR/<app>`, ...), never `~/.cache`
    /// or `/tmp` themselves. It goes through the removal walk that sweeps use, so:
    /// - a location folder that is a link is refused (``StowageError/Code/invalidPath``), and
    ///   links inside are removed, never followed;
    /// - mount points inside (bind mounts included) are left alone and reported as issues;
    /// - files and folders marked ``Marker/pinned`` are kept (clearing is the "Clear cache"
    ///   button, and a pin is the app's word that a file must survive it; remove a pinned item
    ///   by name with ``remove(_:from:)``);
    /// - temporary files of writes in progress (younger than an hour) are kept.
    ///
    /// A location that was never created is already clear.
    ///
    /// - Parameters:
    ///   - location: The location to empty.
    ///   - dryRun: Report what would be removed, and remove nothing.
    /// - Throws: ``StowageError/Code/invalidPath``, ``StowageError/Code/permissionDenied`` (also
    ///   for a location folder every user writes to, such as `/tmp`),
    ///   ``StowageError/Code/refused`` for a rooted container whose root is `/`, the home folder
    ///   or a folder above it, ``StowageError/Code/ioFailure``. Items that cannot be removed are
    ///   issues in the report.
    @discardableResult
    public func clear(_ location: Location, dryRun: Bool = false) throws -> SweepReport {
        try clear(location, dryRun: dryRun, reporter: nil, cancellation: nil)
    }

    /// Empties `location` as ``clear(_:dryRun:)`` does, on threads of its own, reporting
    /// progress; cancelling the task stops the clearing before its next removal and returns
    /// exactly what was removed until then, marked ``SweepReport/wasCancelled``.
    ///
    /// This is a long-running call under the one contract (see ``WorkProgress`` and
    /// "Long-running work" in the README): cancellation is not an error, progress comes from
    /// the removing threads, throttled to `progressInterval`.
    /// The handler is required, so that a call without one (in an `async` function too) stays
    /// the synchronous form; pass `{ _ in }` to get cancellation alone.
    ///
    /// ```swift
    /// let report = try await store.clear(.caches) { progress in
    ///     print("\(progress.phase): \(progress.items) files, \(ByteCount(progress.bytes).formatted())")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - location: The location to empty.
    ///   - dryRun: Report what would be removed, and remove nothing.
    ///   - progressInterval: The least time between two progress reports.
    ///   - progress: Called on a working thread, with `location` in ``WorkProgress/location``:
    ///     the files examined and their allocated bytes (``WorkProgress/Phase/scanning``), then
    ///     the files removed, the bytes freed and the bytes all of them free
    ///     (``WorkProgress/Phase/removing``, not in a dry run). Keep it short.
    /// - Throws: as ``clear(_:dryRun:)``; cancellation is not an error.
    /// - Important: Files removed before the cancellation stay removed.
    @discardableResult
    public func clear(_ location: Location, dryRun: Bool = false, progressInterval: Duration = WorkProgress.defaultInterval,
                      progress: @escaping @Sendable (WorkProgress) -> Void) async throws -> SweepReport {
        let cancellation = CancellationFlag()
        return try await LongRunningWork.run(progressInterval: progressInterval, progress: progress,
                                             cancel: { cancellation.cancel() }) { reporter in
            try clear(location, dryRun: dryRun, reporter: reporter, cancellation: cancellation)
        }
    }

    private func clear(_ location: Location, dryRun: Bool, reporter: ProgressReporter?,
                       cancellation: CancellationFlag?) throws -> SweepReport {
        try perform(.clear, location, "") {
            try container.refuseSystemRoot(for: .clear)
            let path = try container.url(for: location).fileSystemPath
            guard let folder = try container.openFolder(of: location, create: false, operation: .clear) else {
                return SweepReport(folder: path, isDryRun: dryRun, removed: [], removedFolders: [], freedLogicalBytes: 0,
                                   freedAllocatedBytes: 0, keptFileCount: 0, keptAllocatedBytes: 0, pinnedItemCount: 0, issues: [])
            }
            return try Removal.run(root: folder, path: path, .contents, dryRun: dryRun, operation: .clear,
                                                     reporter: reporter, cancellation: cancellation, location: location)
        }
    }

    // MARK: Internals

    func status(of path: String, in location: Location, operation: StowageError.Operation) throws -> FileStatus? {
        try perform(operation, location, path) {
            let relative = try RelativePath(path)
            guard let folder = try openParent(of: relative, in: location, create: false, protection: nil,
                                              operation: operation) else { return nil }
            return try folder.statusIfPresent(of: relative.name)
        }
    }

    private func relocate(_ path: String, from source: Location, to newPath: String, in destination: Location,
                          options: WriteOptions, operation: StowageError.Operation) throws {
        let relativeSource = try perform(operation, source, path) { try RelativePath(path) }
        let relativeDestination = try perform(operation, destination, newPath) { try RelativePath(newPath) }
        guard let from = try perform(operation, source, path, {
            try openParent(of: relativeSource, in: source, create: false, protection: nil, operation: operation)
        }), let sourceStatus = try perform(operation, source, path, { try from.statusIfPresent(of: relativeSource.name) }) else {
            throw StowageError(.notFound, operation: operation, location: source, path: path)
        }
        func intoItself(errno: Errno? = nil, systemCall: String? = nil) -> StowageError {
            StowageError.movedIntoItself(operation: operation, location: source, path: path,
                                         destinationLocation: destination, destinationPath: newPath,
                                         isFolder: sourceStatus.isFolder, errno: errno, systemCall: systemCall)
        }
        // Checked before anything is made: otherwise folders on the way to the destination would
        // be made inside the item, and the kernel would answer a bare EINVAL (or ENOTDIR).
        if try perform(operation, destination, newPath, {
            try container.path(of: relativeDestination, in: destination)
                .isInside(try container.path(of: relativeSource, in: source))
        }) {
            throw intoItself()
        }
        // An append a crash interrupted is settled first: its journal is found by the file's name.
        try perform(operation, source, path) {
            if try AppendJournal.exists(for: relativeSource.name, in: from),
               try from.statusIfPresent(of: relativeSource.name)?.isFile == true {
                try AppendJournal.settle(relativeSource.name, in: from)
            }
        }
        try perform(operation, destination, newPath) {
            try AtomicWrite.retryingVanishedFolders {
                guard let to = try openParent(of: relativeDestination, in: destination, create: true,
                                              protection: options.protection, operation: operation) else {
                    throw StowageError(.notFound, operation: operation, location: destination, path: newPath)
                }
                let durable = options.isDurable(in: destination)
                do {
                    try from.renameWithoutReplacing(relativeSource.name, to: to, as: relativeDestination.name)
                } catch Errno.fileExists, Errno.notEmpty {
                    throw StowageError(.alreadyExists, operation: operation, location: destination, path: newPath,
                                       reason: "something is there already; remove it first")
                } catch Errno.invalidArgument {
                    // Into itself by another spelling (a case-insensitive volume, say).
                    throw intoItself(errno: .invalidArgument, systemCall: "renameat")
                } catch Errno.crossDevice {
                    try Self.copyAcrossVolumes(relativeSource.name, from: from, to: to, as: relativeDestination.name,
                                               durable: durable, protection: options.protection)
                }
                if durable {
                    try to.syncFolder()
                    try from.syncFolder()
                }
            }
        }
    }

    /// Copy under a temporary name, sync, rename into place, then remove the original.
    private static func copyAcrossVolumes(_ name: String, from source: OpenFile, to destination: OpenFile,
                                          as newName: String, durable: Bool, protection: FileProtection?) throws {
        let temporary = TemporaryItem.makeName()
        do {
            try TreeOperations.copy(RawPath(name), in: source, to: destination, as: RawPath(temporary), durable: durable,
                                    protection: protection)
            try destination.renameWithoutReplacing(temporary, to: destination, as: newName)
        } catch {
            try? Removal.removeItem(temporary, in: destination)  // best effort: the copy is incomplete anyway
            if let error = error as? SystemCallError, [.fileExists, .notEmpty].contains(error.errno) {
                throw SystemCallError(errno: .fileExists, call: error.call)
            }
            throw error
        }
        if durable { try destination.syncFolder() }
        try Removal.removeItem(name, in: source)
    }
}

extension Container {
    /// The absolute path of `path` in `location` as names, without touching the disk.
    fileprivate func path(of path: RelativePath, in location: Location) throws -> [String] {
        RelativePath.names(in: try url(for: location).fileSystemPath) + path.components
    }
}

extension Array where Element == String {
    /// Whether these names are strictly below `folder`'s.
    fileprivate func isInside(_ folder: [String]) -> Bool {
        count > folder.count && starts(with: folder)
    }
}

extension StowageError {
    /// The error for moving an item to a place inside itself.
    static func movedIntoItself(operation: Operation, location: Location, path: String,
                                destinationLocation: Location, destinationPath: String, isFolder: Bool = true,
                                errno: Errno? = nil, systemCall: String? = nil) -> StowageError {
        StowageError(.invalidPath, operation: operation, location: location, path: path,
                     destinationLocation: destinationLocation, destinationPath: destinationPath,
                     errno: errno, systemCall: systemCall,
                     reason: isFolder ? "a folder cannot be moved into itself"
                                      : "the destination is below a file, which holds nothing")
    }
}
