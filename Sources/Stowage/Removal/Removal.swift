import Foundation

/// The one entry point of everything that deletes: sweeps and a ``DiskCache``'s evictions
/// (``Selection/limits(_:)``), pressure relief (``Selection/free(_:order:purgeableOnly:)``),
/// `clear` and ``DiskCache/removeAll()`` (``Selection/contents``), a fill's release
/// (``Selection/chosen(_:)``), and the removal of one named item, whole (``removeItem(_:in:)``:
/// ``Store/remove(_:from:)``, a cache entry, a staging folder). Each runs the one removal walk
/// (``SweepEngine``) under its one safety policy, and the engine is made nowhere else.
///
/// Removal depends on nothing above the Platform layer but the names of Stowage's own files:
/// the Store, the caches, relief and fills call it, never the reverse.
enum Removal {
    /// What goes.
    enum Selection {
        /// What the policy's limits (size, count, age) say must go, in its order. With `measured`,
        /// the totals of the files the limits count, known exactly (a ``DiskCache``'s index), the
        /// walk that totals them is left out. `sparing` names a file (below the folder) that is
        /// counted but never chosen by size or count: the entry a ``DiskCache`` set has just
        /// written, which ties with others written within the same tick of the file system's
        /// clock, or an older access time set by hand, and must not be its own victim. With
        /// `keepingFolders`, the folders the removal empties stay (a ``DiskCache``'s fan-out folders,
        /// which its next sets would make again).
        case limits(SweepPolicy, measured: (files: Int, allocatedBytes: Int64)? = nil, sparing: RawPath? = nil,
                    keepingFolders: Bool = false)
        /// At least this many allocated bytes, in `order`, of any file, or only of files marked
        /// purgeable (locations the system never purges otherwise).
        case free(Int64, order: SweepOrder, purgeableOnly: Bool)
        /// Everything inside the folder: pins, Stowage's records and journals, a `CACHEDIR.TAG`
        /// directly in it and writes in progress stay.
        case contents
        /// Files the caller chose (a fill's release, from its manifest, directly in the folder),
        /// each checked again just before it is removed. The caller holds the folder's lock.
        case chosen([SweepEngine.Candidate])
        /// A whole tree named for removal: every entry, pins not honoured (``removeItem(_:in:)``).
        case wholeTree
        /// One entry directly in the folder, named by a person, and everything in it, by the rules
        /// of ``contents`` (``Sweeper/removeItem(atPath:dryRun:)``, the usage browser's delete).
        case entry(RawPath)
    }

    /// Removes what `selection` names inside the folder `root`, already opened without following a
    /// link (as a container opens its folders, or ``ProtectedFolders`` a named one); `path` names it
    /// in the report and errors.
    ///
    /// The folder is locked (an exclusive `flock`) for the whole removal, so that removals of one
    /// folder by several processes take turns; but for ``Selection/chosen(_:)``, whose caller holds
    /// it. A folder that is pinned, or under a pinned folder, keeps everything. Nothing is written:
    /// space is freed first, and what a caller records afterwards is its own business.
    ///
    /// With `reporter`, progress goes there from the walking and removing threads, naming
    /// `location` when the folder is a container's; with `cancellation`, a cancelled removal stops
    /// before its next file and reports what it did until then (``SweepReport/wasCancelled``).
    /// `expectedBytes` is what progress reports expect the removal to free (what the victims take, unless given).
    static func run(root: OpenFile, path: String, _ selection: Selection, dryRun: Bool = false, now: Date = Date(),
                    operation: StowageError.Operation = .sweep, reporter: ProgressReporter? = nil,
                    cancellation: CancellationFlag? = nil, location: Location? = nil,
                    expectedBytes: Int64? = nil) throws -> SweepReport {
        do {
            if case .chosen = selection {
                return try remove(root: root, path: path, selection, dryRun: dryRun, now: now, reporter: reporter,
                                  cancellation: cancellation, location: location, expectedBytes: expectedBytes)
            }
            try root.lock(exclusive: true)
            defer { root.unlock() }
            // A pinned folder protects everything under it, also when it is the folder named.
            if try isPinned(root) {
                return SweepReport(folder: path, isDryRun: dryRun, removed: [], removedFolders: [], freedLogicalBytes: 0,
                                   freedAllocatedBytes: 0, keptFileCount: 0, keptAllocatedBytes: 0, pinnedItemCount: 1, issues: [])
            }
            return try remove(root: root, path: path, selection, dryRun: dryRun, now: now, reporter: reporter,
                              cancellation: cancellation, location: location, expectedBytes: expectedBytes)
        } catch let error as SystemCallError {
            throw StowageError(error, operation: operation, path: path)
        }
    }

    private static func remove(root: OpenFile, path: String, _ selection: Selection, dryRun: Bool, now: Date,
                               reporter: ProgressReporter?, cancellation: CancellationFlag?,
                               location: Location?, expectedBytes: Int64?) throws -> SweepReport {
        let engine = makeEngine(root: root, path: path, selection, now: now)
        let watched = reporter != nil || cancellation != nil
        let chosen: SweepEngine.Selection
        if case .chosen(let victims) = selection {
            chosen = SweepEngine.Selection(victims: victims, keptFiles: 0, keptAllocated: 0, pinned: 0)
        } else {
            do {
                chosen = try engine.select(progress: !watched ? nil : { files, bytes in
                    reporter?.report(.scanning, items: files, bytes: bytes, location: location)
                    return !(cancellation?.isCancelled ?? false)
                })
            } catch is CancellationError {
                return SweepReport(folder: path, isDryRun: dryRun, removed: [], removedFolders: [], freedLogicalBytes: 0,
                                   freedAllocatedBytes: 0, keptFileCount: 0, keptAllocatedBytes: 0, pinnedItemCount: 0,
                                   issues: engine.issues, wasCancelled: true)
            }
        }
        let expected = expectedBytes ?? chosen.victims.reduce(0) { $0 + $1.freedAllocated }
        try FaultPoint.sweepChosen.reach()
        let removed = dryRun ? chosen.victims : engine.remove(chosen.victims, progress: !watched ? nil : { files, bytes in
            reporter?.report(.removing, items: files, bytes: bytes, expectedBytes: expected, location: location)
            return !(cancellation?.isCancelled ?? false)
        }, shouldStop: cancellation.map { flag in { flag.isCancelled } })
        // Cancelled: stopped before trying every victim (a dry run that finished choosing is
        // whole, and so is a removal cancelled after its last file).
        let cancelled = !dryRun && engine.stoppedEarly
        // A cancelled removal removes only the folders that what it did remove emptied; files a
        // caller chose leave their folder alone (it is the caller's), as does a removal keeping folders.
        var folders: [RawPath] = []
        if case .chosen = selection {} else if case .limits(_, _, _, keepingFolders: true) = selection {} else {
            let predicted = engine.emptiedFolders(by: cancelled ? removed : chosen.victims)
            folders = dryRun ? predicted : engine.removeFolders(predicted)
        }
        let files = removed.map(SweptFile.init)
        let removedPaths = Set(removed.map(\.path))
        let keptVictims = chosen.victims.filter { !removedPaths.contains($0.path) && $0.reason != .leftover }
        return SweepReport(
            folder: path, isDryRun: dryRun, removed: files, removedFolders: folders.map(\.description),
            freedLogicalBytes: files.reduce(0) { $0 + $1.logicalBytes },
            freedAllocatedBytes: files.reduce(0) { $0 + $1.allocatedBytes },
            keptFileCount: chosen.keptFiles + keptVictims.count,
            keptAllocatedBytes: chosen.keptAllocated + keptVictims.reduce(0) { $0 + $1.allocated },
            pinnedItemCount: chosen.pinned, issues: engine.issues, wasCancelled: cancelled)
    }

    /// Removes the item `name` in `folder`: a file, a link (the link itself) or a whole folder
    /// with everything in it, Stowage's own items included. Pins do not protect what the caller
    /// names explicitly.
    ///
    /// A folder that is a mount point, or that holds one (a bind mount included) or a folder
    /// that cannot be read, is refused before anything is removed: it could not go whole.
    ///
    /// - Throws: a `SystemCallError` (`ENOENT` when nothing is there), or ``StowageError``
    ///   naming what stops the removal.
    static func removeItem(_ name: String, in folder: OpenFile) throws {
        try removeItem(RawPath(name), in: folder)
    }

    /// ``removeItem(_:in:)`` of a name as bytes.
    static func removeItem(_ name: RawPath, in folder: OpenFile) throws {
        let status = try Sys.fstatat(folder.descriptor, name)
        guard status.isFolder else {
            try folder.removeEntry(name, folder: false)
            return
        }
        let child = try folder.openFolder(name)
        guard try child.mountIdentity().isSameMount(as: folder.mountIdentity()) else {
            throw StowageError(.refused, operation: .remove, path: name.description,
                               reason: "it is a mount point; Stowage never removes across a mount")
        }
        let engine = makeEngine(root: child, path: name.description, .wholeTree, now: Date())
        let selection = try engine.select()
        if let blocker = engine.issues.first {
            throw blocked(by: blocker, removing: name, nothingRemoved: true)
        }
        let removed = engine.remove(selection.victims)
        _ = engine.removeFolders(engine.emptiedFolders(by: removed))
        if let blocker = engine.issues.first {
            throw blocked(by: blocker, removing: name, nothingRemoved: false)
        }
        try folder.removeEntry(name, folder: true)
    }

    /// Removes `name` in `folder` where that loses no data, and only then: a link (the link
    /// itself, never what it names), a FIFO, a socket or a device node, one name of a file that
    /// has others (a hard link: the others keep its bytes), or an empty folder (`rmdir`: a folder
    /// that gained an entry meanwhile stays). The item is looked at (`lstat`) just before it goes.
    ///
    /// - Returns: `false` when the item holds data (a file with one name, a folder with
    ///   entries): nothing was removed.
    /// - Throws: a `SystemCallError` of the removal (`ENOENT` passes as removed).
    static func removeIfHoldingNoData(_ name: String, in folder: OpenFile) throws -> Bool {
        guard let status = try folder.statusIfPresent(of: name) else { return true }
        if status.kind == .file && status.linkCount <= 1 { return false }
        do {
            try folder.removeEntry(name, folder: status.isFolder)
        } catch Errno.noSuchEntry {
            return true
        } catch Errno.notEmpty, Errno.fileExists {  // rmdir of a folder with entries
            return false
        }
        return true
    }

    /// What relief could free in the folder `root` (files and allocated bytes), by the same
    /// selection as ``Selection/free(_:order:purgeableOnly:)`` and without removing anything,
    /// with the issues met. `examined` is told each file met; an error it throws ends the walk.
    static func freeable(root: OpenFile, path: String, order: SweepOrder, purgeableOnly: Bool,
                         examined: ((FileStatus) throws -> Void)? = nil) throws -> (files: Int, allocated: Int64, issues: [UsageIssue]) {
        let engine = makeEngine(root: root, path: path, .free(.max, order: order, purgeableOnly: purgeableOnly), now: Date())
        let (files, allocated) = try engine.freeableTotals(examined: examined)
        return (files, allocated, engine.issues)
    }

    /// The removal walk for `selection`: made here and nowhere else.
    private static func makeEngine(root: OpenFile, path: String, _ selection: Selection, now: Date) -> SweepEngine {
        switch selection {
        case .limits(let policy, let measured, let spared, _):
            SweepEngine(rootPath: path, root: root, policy: policy, goal: .limits, now: now, knownTotals: measured, spared: spared)
        case .free(let bytes, let order, let purgeableOnly):
            SweepEngine(rootPath: path, root: root, policy: SweepPolicy(order: order), goal: .free(bytes, purgeableOnly: purgeableOnly), now: now)
        case .contents:
            SweepEngine(rootPath: path, root: root, policy: SweepPolicy(), goal: .everything(.contents), now: now)
        case .entry(let name):
            SweepEngine(rootPath: path, root: root, policy: SweepPolicy(), goal: .everything(.entry(name)), now: now)
        case .chosen, .wholeTree:
            SweepEngine(rootPath: path, root: root, policy: SweepPolicy(), goal: .everything(.wholeTree), now: now)
        }
    }

    /// Whether the folder a removal starts from is pinned (a file system without attributes has no pins).
    private static func isPinned(_ root: OpenFile) throws -> Bool {
        do {
            return try root.attribute(Marker.pinned.attribute) == Marker.setValue
        } catch Errno.attributesUnsupported {
            return false
        }
    }

    /// The error for a folder removal stopped by `issue`.
    private static func blocked(by issue: UsageIssue, removing name: RawPath, nothingRemoved: Bool) -> StowageError {
        let outcome = nothingRemoved ? "nothing was removed" : "the rest was removed"
        guard let errno = issue.errno else {
            return StowageError(.refused, operation: .remove, path: name.description,
                                reason: "\(issue.path): \(issue.message); \(outcome)")
        }
        return StowageError(SystemCallError(errno: errno, call: "unlinkat"), operation: .remove, path: issue.path,
                            reason: "\(issue.message); \(outcome)")
    }
}
