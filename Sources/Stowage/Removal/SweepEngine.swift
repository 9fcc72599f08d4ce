import Dispatch
import Foundation

/// The one removal walk: every operation that deletes (``Sweeper``, pressure relief, `clear`,
/// ``Store/remove(_:from:)``, ``DiskCache`` limits and ``DiskCache/removeAll()``) chooses its
/// victims here and removes them here, under one safety policy (a fill's release chooses its
/// files from its manifest, and removes them here):
///
/// - the root is opened by the caller without following a link (see ``Container``'s folders);
///   below it nothing is reached through a link, and no other mount is entered (a bind mount
///   included); each mount point met is reported and left alone;
/// - names are bytes (``RawPath``) from `readdir` to `unlinkat`, so every name can be removed;
/// - pins are honoured on files and on folders (a pinned folder, and all under it, is left);
/// - Stowage's in-flight items (temporary files of atomic writes, append journals) younger than
///   the grace period are never removed; its records are never removed by a sweep;
/// - each victim is re-checked (device, inode, modification time) just before its `unlinkat`;
/// - only folders the operation itself emptied are removed (`clear` also removes the empty
///   folders it was asked to clear);
/// - nothing is written before space is freed (``Sweeper`` writes its record afterwards, and a
///   failure to write it is an issue in the report, not a failure).
///
/// Selection is two walks at most, through file descriptors: the first totals the files (only
/// for size and count limits), the second offers each to a ``VictimHeap`` that keeps only the
/// files that must go. Memory grows with the victims and the number of folders, never with all
/// the files.
///
/// `@unchecked Sendable`: only ``remove(_:)`` runs threads, and they read nothing but the
/// immutable root; what they find goes into their own outcomes, merged after they finish.
final class SweepEngine: @unchecked Sendable {
    /// What the operation is for: its selection rule.
    enum Goal {
        /// Keep the policy's limits.
        case limits
        /// Free at least this many allocated bytes (pressure relief), from what the relief rule
        /// allows: any file, or only files marked purgeable (locations never purged otherwise).
        case free(Int64, purgeableOnly: Bool)
        /// Remove everything: of a location or cache (`clear`, ``DiskCache/removeAll()``: pins,
        /// Stowage's records and writes in progress stay), or of a tree named for removal
        /// (``Store/remove(_:from:)``, Stowage's own staging folders: all of it goes).
        case everything(Scope)
    }

    /// What "everything" takes.
    enum Scope {
        /// A location's or a cache's contents: pins honoured; Stowage's records, append journals,
        /// a `CACHEDIR.TAG` in the root and writes in progress kept.
        case contents
        /// A whole tree named for removal: every entry, pins not honoured.
        case wholeTree
    }

    struct Candidate {
        var path: RawPath
        var folder: RawPath
        var kind: FileStatus.Kind
        var device: UInt64
        var inode: UInt64
        var linkCount: UInt64
        var logical: Int64
        var allocated: Int64
        var access: Double
        var modification: Double
        var reason: SweepReason
        /// Whether removing it frees its blocks: not for a hard link whose data another name,
        /// not removed, keeps (set by ``SweepEngine/select()``).
        var freesSpace = true

        var freedAllocated: Int64 { freesSpace ? allocated : 0 }
        var freedLogical: Int64 { freesSpace ? logical : 0 }
    }

    struct Selection {
        var victims: [Candidate]
        var keptFiles: Int
        var keptAllocated: Int64
        var pinned: Int
    }

    let rootPath: String
    let root: OpenFile
    let policy: SweepPolicy
    let goal: Goal
    let now: Double
    private(set) var issues: [UsageIssue] = []
    /// Entries per folder, to predict which folders the operation empties.
    private var entriesPerFolder: [RawPath: Int] = [:]

    init(rootPath: String, root: OpenFile, policy: SweepPolicy, goal: Goal, now: Date) {
        self.rootPath = rootPath
        self.root = root
        self.policy = policy
        self.goal = goal
        self.now = now.timeIntervalSince1970
    }

    private var removesEverything: Bool {
        if case .everything = goal { return true }
        return false
    }

    private var removesWholeTree: Bool {
        if case .everything(.wholeTree) = goal { return true }
        return false
    }

    /// Whether the last ``remove(_:progress:shouldStop:)`` was stopped before trying every victim.
    private(set) var stoppedEarly = false

    /// Folders met (their inodes), so that only the very folder predicted empty is removed.
    private var folderInodes: [RawPath: UInt64] = [:]

    /// Whether `entry` is protected by a pin. A marker that cannot be read (no permission to
    /// read the file's attributes) counts as a pin: the entry is kept and reported, and the
    /// walk goes on with the rest of its folder.
    private func isPinned(_ entry: FileTreeWalk.Entry) -> Bool {
        guard !removesWholeTree else { return false }
        do {
            return try entry.carries(.pinned)
        } catch {
            issues.append(UsageIssue(pathBytes: absolutePath(entry.path), errno: (error as? SystemCallError)?.errno.rawValue ?? 0,
                                     message: "its pin could not be read (\(UsageIssue(path: "", error: error).message)); kept"))
            return true
        }
    }

    /// Whether the root, or a folder above it, is pinned: read once, by ``rootIsUnderPin()``.
    private var rootPin: Bool?

    /// Whether the root folder itself, or a folder above it on the root's mount, is pinned. A
    /// pin protects everything under it, wherever a walk starts: a sweep of `pinned/sub` once
    /// removed what `pinned/` protects, since pins were looked for only from the root down.
    ///
    /// Climbs by descriptors (`..` of the folder open, never a path rebuilt from text), reading
    /// each folder's marker, up to the top of the root's mount (a folder above it on another
    /// mount is another file system's business), `/`, or the first folder above that this user
    /// may not open (someone else's, or a sandbox's). As for entries, a marker that cannot be
    /// read counts as a pin: an issue says which, and nothing is removed. Read once per engine.
    private func rootIsUnderPin() -> Bool {
        if let rootPin { return rootPin }
        let answer = climbForPin()
        rootPin = answer
        return answer
    }

    private func climbForPin() -> Bool {
        var folder = root
        var path = rootPath
        do {
            let mount = try root.mountIdentity()
            for _ in 0..<4096 {  // deeper than any path can be (PATH_MAX / 2)
                do {
                    if try ExtendedAttributes.value(Marker.pinned.attribute, of: folder.descriptor) == Marker.setValue { return true }
                } catch Errno.attributesUnsupported {
                    // No attributes on this file system: nothing here is pinned.
                }
                let status = try folder.status()
                let parent: OpenFile
                do {
                    parent = try folder.openFolder(RawPath(".."))
                } catch let error as SystemCallError where [.permissionDenied, .notPermitted].contains(error.errno) {
                    // A folder above that is not this user's to read (a 0711 /srv/app; an app
                    // sandbox's container folders): its pin is not this user's to honour, and
                    // reading one would be refused anyway. The climb ends here.
                    return false
                }
                let parentStatus = try parent.status()
                if parentStatus.inode == status.inode && parentStatus.device == status.device { return false }  // `/`
                guard try parent.mountIdentity().isSameMount(as: mount) else { return false }
                folder = parent
                path = URL(filePath: path).deletingLastPathComponent().fileSystemPath
            }
            return false
        } catch {
            issues.append(UsageIssue(path: path, errno: (error as? SystemCallError)?.errno.rawValue ?? 0,
                                     message: "a pin on it or a folder above it could not be read "
                                        + "(\(UsageIssue(path: "", error: error).message)); nothing below it removed"))
            return true
        }
    }

    /// Told the files examined or removed so far and their allocated bytes, on the thread
    /// doing the work (several threads while removing, one call at a time is the caller's
    /// business); returns `false` to stop the work.
    typealias Progress = (_ files: Int, _ allocatedBytes: Int64) -> Bool

    // MARK: Selection

    /// Chooses the victims; nothing is removed.
    ///
    /// - Parameter progress: Called after each file examined, with the files examined so far by
    ///   both walks; when it returns `false` the selection stops and throws `CancellationError`.
    func select(progress: Progress? = nil) throws -> Selection {
        var examined = 0
        var examinedAllocated: Int64 = 0
        func examine(_ status: FileStatus) throws {
            guard let progress else { return }
            examined += 1
            examinedAllocated += status.allocatedSize
            if !progress(examined, examinedAllocated) { throw CancellationError() }
        }
        var totalFiles = 0
        var totalAllocated: Int64 = 0
        if case .limits = goal, policy.maximumAllocatedSize != nil || policy.maximumCount != nil {
            try walk(recording: false) { entry, kind in
                if kind == .ordinary {
                    totalFiles += 1
                    totalAllocated += entry.status.allocatedSize
                    try examine(entry.status)
                }
            }
        }
        var bytesToFree: Int64 = 0
        var countToFree = 0
        var heapReason = SweepReason.size
        switch goal {
        case .limits:
            if let limit = policy.maximumAllocatedSize, totalAllocated > limit {
                bytesToFree = totalAllocated - Int64((Double(limit) * policy.lowWatermark).rounded(.down))
            }
            if let limit = policy.maximumCount, totalFiles > limit {
                countToFree = totalFiles - Int((Double(limit) * policy.lowWatermark).rounded(.down))
                if bytesToFree == 0 { heapReason = .count }
            }
        case .free(let bytes, _):
            bytesToFree = bytes
            heapReason = .pressure
        case .everything:
            break
        }

        var forced: [Candidate] = []
        var forcedAllocated: Int64 = 0
        var forcedCount = 0
        var pinned = 0
        var heap = VictimHeap(order: policy.order)
        var seenFiles = 0
        var seenAllocated: Int64 = 0
        try walk(recording: true) { entry, kind in
            let status = entry.status
            switch kind {
            case .leftover:
                forced.append(candidate(entry, reason: .leftover))
                return
            case .pinnedFolder:
                pinned += 1
                return
            case .ordinary:
                break
            }
            seenFiles += 1
            seenAllocated += status.allocatedSize
            try examine(status)
            if removesEverything {
                if isPinned(entry) {
                    pinned += 1
                    return
                }
                forced.append(candidate(entry, reason: .clear))
                return
            }
            if case .limits = goal, let maximumAge = policy.maximumAge, now - timestamp(of: status) > maximumAge {
                if isPinned(entry) {
                    pinned += 1
                    return
                }
                forced.append(candidate(entry, reason: .age))
                forcedAllocated += status.allocatedSize
                forcedCount += 1
                return
            }
            guard bytesToFree > 0 || countToFree > 0 else { return }
            if heap.isSatisfied(bytes: bytesToFree - forcedAllocated, count: countToFree - forcedCount),
               !heap.deserves(status, over: heap.top) {
                return
            }
            guard reliefMayFree(entry) else { return }
            if isPinned(entry) {
                pinned += 1
                return
            }
            heap.insert(candidate(entry, reason: heapReason))
            heap.trim(bytes: bytesToFree - forcedAllocated, count: countToFree - forcedCount)
        }
        heap.trim(bytes: bytesToFree - forcedAllocated, count: countToFree - forcedCount)
        var reported = Set<UsageIssue>()  // a pin that could not be read is met by both walks
        issues = issues.filter { reported.insert($0).inserted }
        var victims = forced + heap.items
        victims.sort { $0.path < $1.path }
        Self.markHardLinks(in: &victims)
        let counted = victims.filter { $0.reason != .leftover }  // the entries counted as seen
        return Selection(victims: victims, keptFiles: seenFiles - counted.count,
                         keptAllocated: seenAllocated - counted.reduce(0) { $0 + $1.allocated }, pinned: pinned)
    }

    /// The relief rule's file-level part, shared by relief, audit and the reclaimable figure:
    /// in locations never purged, only files marked purgeable (a marker that cannot be read is
    /// not there). Pins, Stowage's records and young in-flight items are excluded by the walk
    /// and ``isPinned(_:)`` for every goal.
    private func reliefMayFree(_ entry: FileTreeWalk.Entry) -> Bool {
        guard case .free(_, let purgeableOnly) = goal, purgeableOnly else { return true }
        return (try? entry.carries(.purgeable)) ?? false  // unreadable: not known to be purgeable, so kept
    }

    /// A hard-linked victim frees its blocks only when every name of its data is a victim; then
    /// the first of them counts the bytes freed, the others none.
    private static func markHardLinks(in victims: inout [Candidate]) {
        var names: [UInt64: [Int]] = [:]  // by inode; devices compared below
        for index in victims.indices where victims[index].linkCount > 1 {
            names[victims[index].inode, default: []].append(index)
        }
        for (_, indices) in names {
            let device = victims[indices[0]].device
            let sameFile = indices.filter { victims[$0].device == device }
            let allNames = UInt64(sameFile.count) >= victims[sameFile[0]].linkCount
            for (position, index) in sameFile.enumerated() { victims[index].freesSpace = allNames && position == 0 }
        }
    }

    /// Totals what a `.free` goal may take from the folder (the relief rule), without choosing:
    /// the reclaimable figure of ``Container/capacity(of:)`` and audit's pressure totals.
    ///
    /// - Parameter examined: Told the status of each file met, before it is judged; an error it
    ///   throws (a cancellation) ends the walk.
    func freeableTotals(examined: ((FileStatus) throws -> Void)? = nil) throws -> (files: Int, allocated: Int64) {
        var files = 0
        var allocated: Int64 = 0
        try walk(recording: true) { entry, kind in
            if kind == .ordinary { try examined?(entry.status) }
            guard kind != .pinnedFolder, reliefMayFree(entry), !isPinned(entry) else { return }
            files += kind == .ordinary ? 1 : 0
            allocated += entry.status.allocatedSize
        }
        return (files, allocated)
    }

    private func timestamp(of status: FileStatus) -> Double {
        policy.order == .leastRecentlyUsed ? status.accessTime : status.modificationTime
    }

    private func candidate(_ entry: FileTreeWalk.Entry, reason: SweepReason) -> Candidate {
        Candidate(path: entry.path, folder: entry.folder, status: entry.status, reason: reason)
    }

    /// The absolute path of `path` below the root, for issues: bytes, so that an issue names a
    /// file whose name is not UTF-8 exactly (``UsageIssue/pathBytes``).
    func absolutePath(_ path: RawPath) -> [UInt8] {
        RawPath(rootPath).appending(path).bytes
    }

    /// The folders that would be empty once `victims` are gone, deepest first: those holding
    /// entries, all of them victims or folders emptied in turn; and, when removing everything,
    /// folders that were empty already.
    func emptiedFolders(by victims: [Candidate]) -> [RawPath] {
        var removedPerFolder: [RawPath: Int] = [:]
        for victim in victims { removedPerFolder[victim.folder, default: 0] += 1 }
        var emptied: [RawPath] = []
        let deepestFirst = entriesPerFolder.keys.sorted { ($0.depth, $1) > ($1.depth, $0) }
        for folder in deepestFirst where !folder.isEmpty {
            let entries = entriesPerFolder[folder] ?? 0
            guard removedPerFolder[folder, default: 0] == entries, entries > 0 || removesEverything else { continue }
            emptied.append(folder)
            removedPerFolder[folder.parentAndName.parent, default: 0] += 1
        }
        return emptied
    }

    // MARK: The walk

    enum EntryKind { case ordinary, leftover, pinnedFolder }

    /// Calls `body` for every entry the goal may consider, with its kind: files (and, when
    /// removing everything, links and other non-folders) as `ordinary`; Stowage's leftover
    /// temporary items older than the grace period as `leftover` (files or folders); pinned
    /// folders (not entered) as `pinnedFolder`. Never offered, except for a whole tree named for
    /// removal: Stowage's other items (records, journals, fill folders), young temporary items,
    /// `CACHEDIR.TAG` files (but for clearing, nested ones). Links (except when removing
    /// everything) and other mounts are never offered. With `recording` set (the selecting walk,
    /// which every operation makes), the entries of each folder and the folders not entered are
    /// recorded, so each is reported once.
    private func walk(recording: Bool, _ body: (FileTreeWalk.Entry, EntryKind) throws -> Void) throws {
        let everything = removesEverything
        let wholeTree = removesWholeTree
        let underPin = !wholeTree && rootIsUnderPin()
        try FileTreeWalk(root: root, rootPath: rootPath).run({ entry in
            if underPin {
                // The whole walk is below a pin: every entry is kept, and counted as pinned.
                if !entry.name.hasPrefix(RelativePath.reservedPrefix) { try body(entry, .pinnedFolder) }
                return false
            }
            if !wholeTree {
                if entry.name.hasPrefix(RelativePath.reservedPrefix) {
                    if entry.name.hasPrefix(TemporaryItem.prefix), now - entry.status.modificationTime >= policy.leftoverGracePeriod {
                        try body(entry, .leftover)
                    }
                    return false
                }
                if entry.name.equals(CacheDirectoryTag.name) && !(everything && !entry.folder.isEmpty) { return false }
            }
            switch entry.status.kind {
            case .folder:
                if recording { self.folderInodes[entry.path] = entry.status.inode }
                if isPinned(entry) {
                    try body(entry, .pinnedFolder)
                    return false
                }
                return true
            case .file:
                try body(entry, .ordinary)
            case .symbolicLink, .other:
                if everything { try body(entry, .ordinary) }  // the link itself; never followed
            }
            return false
        }, folderDone: { folder, entries in
            if recording { self.entriesPerFolder[folder] = entries }
        }, problem: { folder, problem in
            if recording { self.issues.append(UsageIssue(pathBytes: self.absolutePath(folder), problem: problem)) }
        })
    }

    // MARK: Removal

    /// Removes `victims`, each only if it is still the item that was chosen (same device, inode
    /// and modification time); returns those removed, in the order given.
    ///
    /// Unlinking is the kernel's work, not the disk's alone (journal, block bitmaps, discards), so
    /// folders are emptied by several threads at once, each folder by one thread (each thread
    /// holds one folder descriptor at a time, and a folder's lock is never contended).
    ///
    /// - Parameters:
    ///   - progress: Called after each removal, on the removing thread, with the files removed so
    ///     far and the allocated bytes they freed; when it returns `false` no further victim is
    ///     removed.
    ///   - shouldStop: Asked before each removal; when it answers `true`, no further victim is
    ///     removed (``stoppedEarly`` then says whether any was left).
    func remove(_ victims: [Candidate], progress: Progress? = nil, shouldStop: (() -> Bool)? = nil) -> [Candidate] {
        var grouping: [[Int]] = []
        var groupOfFolder: [RawPath: Int] = [:]
        for (index, victim) in victims.enumerated() {
            if let group = groupOfFolder[victim.folder] {
                grouping[group].append(index)
            } else {
                groupOfFolder[victim.folder] = grouping.count
                grouping.append([index])
            }
        }
        // In inode order within a folder, as GNU rm does on many entries: neighbouring inodes
        // share inode-table and bitmap blocks, so each journal transaction touches fewer blocks.
        let groups = grouping.map { group in group.sorted { victims[$0].inode < victims[$1].inode } }
        let outcomes = RemovalOutcomes(count: victims.count, progress: progress, shouldStop: shouldStop)
        let threads = max(1, min(groups.count, Self.removalThreads))
        if threads == 1 {
            for group in groups { removeGroup(group, of: victims, into: outcomes) }
        } else {
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                while let group = outcomes.claimGroup(below: groups.count) {
                    removeGroup(groups[group], of: victims, into: outcomes)
                }
            }
        }
        issues += outcomes.issues.sorted { $0.path < $1.path }
        stoppedEarly = outcomes.stoppedEarly
        return victims.indices.filter { outcomes.wasRemoved($0) }.map { victims[$0] }
    }

    /// Twice the cores: a thread waiting on the file system's journal leaves its core to another.
    private static let removalThreads = max(2, 2 * ProcessInfo.processInfo.activeProcessorCount)

    /// Removes the victims at `indices`, all in one folder.
    private func removeGroup(_ indices: [Int], of victims: [Candidate], into outcomes: RemovalOutcomes) {
        let folder = victims[indices[0]].folder
        let parent: OpenFile
        do {
            parent = try open(folder: folder)
        } catch Errno.noSuchEntry {
            return  // the folder is gone, and its victims with it
        } catch {
            for index in indices { outcomes.fail(absolutePath(victims[index].path), error) }
            return
        }
        for index in indices {
            if outcomes.isStopped {  // asked before each unlink, so a stop removes nothing more
                outcomes.noteStoppedEarly()
                return
            }
            let victim = victims[index]
            let name = victim.path.parentAndName.name
            do {
                guard let status = try parent.statusIfPresent(of: name) else { continue }
                guard status.inode == victim.inode, status.device == victim.device, status.kind == victim.kind,
                      status.modificationTime == victim.modification else {
                    outcomes.note(UsageIssue(pathBytes: absolutePath(victim.path), errno: 0, message: "changed since it was chosen; kept"))
                    continue
                }
                if victim.kind == .folder {
                    try TreeOperations.remove(name, in: parent)  // a leftover staging folder, whole
                } else {
                    try parent.removeEntry(name, folder: false)
                }
                outcomes.markRemoved(index, freeing: victim.freedAllocated)
            } catch Errno.noSuchEntry {
                continue  // removed by someone else meanwhile
            } catch {
                outcomes.fail(absolutePath(victim.path), error)
            }
        }
    }

    /// Removes the folders named (deepest first) if they are empty; returns those removed.
    func removeFolders(_ folders: [RawPath]) -> [RawPath] {
        folders.filter { folder in
            let (parentPath, name) = folder.parentAndName
            do {
                let parent = try open(folder: parentPath)
                // The very folder the walk saw, not one put in its place since.
                guard let status = try parent.statusIfPresent(of: name), status.isFolder,
                      status.inode == folderInodes[folder] else { return false }
                try parent.removeEntry(name, folder: true)
                return true
            } catch Errno.notEmpty, Errno.fileExists, Errno.noSuchEntry {
                return false  // not empty any more (something was written meanwhile) or gone: not an error
            } catch {
                issues.append(UsageIssue(pathBytes: absolutePath(folder), error: error))
                return false
            }
        }
    }

    /// Opens a folder below the root by walking name by name, never through a link and never
    /// into another mount (the walk did not enter one, but a mount can appear meanwhile).
    private func open(folder: RawPath) throws -> OpenFile {
        var current = OpenFile(adopting: try Sys.dup(root.descriptor))
        guard !folder.isEmpty else { return current }
        let rootMount = try root.mountIdentity()
        for name in folder.components {
            current = try current.openFolder(name)
            guard try current.mountIdentity().isSameMount(as: rootMount) else {
                throw SystemCallError(errno: .crossDevice, call: "openat")
            }
        }
        return current
    }
}

extension SweepEngine.Candidate {
    /// The item at `path` (in `folder`, both below the root) whose status is `status`.
    init(path: RawPath, folder: RawPath, status: FileStatus, reason: SweepReason) {
        self.init(path: path, folder: folder, kind: status.kind, device: status.device, inode: status.inode,
                  linkCount: status.linkCount, logical: status.size, allocated: status.allocatedSize,
                  access: status.accessTime, modification: status.modificationTime, reason: reason)
    }
}

/// What became of each victim of ``SweepEngine/remove(_:)``, and which folder group is next.
///
/// `@unchecked Sendable`: each slot of `removed` is written by the one thread that took the
/// victim's folder group and read after all threads have finished; the rest is guarded by `lock`.
private final class RemovalOutcomes: @unchecked Sendable {
    private let removed: UnsafeMutableBufferPointer<Bool>
    private(set) var issues: [UsageIssue] = []
    private var nextGroup = 0
    private let lock = NSLock()
    private let progress: SweepEngine.Progress?
    private var removedCount = 0
    private var freed: Int64 = 0
    private var stopped = false
    /// Asked before each removal; `true` stops the removal (a cancelled task).
    private let shouldStop: (() -> Bool)?
    /// Whether victims were left unattempted because the removal was stopped.
    private(set) var stoppedEarly = false

    init(count: Int, progress: SweepEngine.Progress?, shouldStop: (() -> Bool)?) {
        removed = .allocate(capacity: count)
        removed.initialize(repeating: false)
        self.progress = progress
        self.shouldStop = shouldStop
    }

    deinit { removed.deallocate() }

    /// The next folder group for a thread to empty, or `nil` when all are taken.
    func claimGroup(below count: Int) -> Int? {
        let stop = isStopped
        return lock.withLock {
            guard nextGroup < count else { return nil }
            if stop {
                stoppedEarly = true
                return nil
            }
            defer { nextGroup += 1 }
            return nextGroup
        }
    }

    /// Records that a group was left part-way because the removal was stopped.
    func noteStoppedEarly() { lock.withLock { stoppedEarly = true } }

    /// Records the removal of the victim at `index`, and tells `progress`.
    func markRemoved(_ index: Int, freeing bytes: Int64) {
        removed[index] = true
        guard let progress else { return }
        let (count, total) = lock.withLock { () -> (Int, Int64) in
            removedCount += 1
            freed += bytes
            return (removedCount, freed)
        }
        if !progress(count, total) { lock.withLock { stopped = true } }
    }

    /// Whether `progress` or `shouldStop` asked to stop (with neither, never: no lock is taken).
    var isStopped: Bool {
        if let shouldStop, shouldStop() {
            lock.withLock { stopped = true }
            return true
        }
        return progress != nil && lock.withLock { stopped }
    }
    func wasRemoved(_ index: Int) -> Bool { removed[index] }

    func note(_ issue: UsageIssue) { lock.withLock { issues.append(issue) } }

    func fail(_ path: [UInt8], _ error: any Error) { note(UsageIssue(pathBytes: path, error: error)) }
}

/// The victims chosen so far, least deserving of removal on top, so the set can shrink to the
/// smallest that covers the need.
struct VictimHeap {
    let order: SweepOrder
    private(set) var items: [SweepEngine.Candidate] = []
    private(set) var allocated: Int64 = 0

    init(order: SweepOrder) { self.order = order }

    var top: SweepEngine.Candidate? { items.first }

    /// Whether `a` should be kept rather than `b` (so `a` sits above `b` in the heap).
    private func keeps(_ a: SweepEngine.Candidate, over b: SweepEngine.Candidate) -> Bool {
        switch order {
        case .largestFirst: (a.allocated, b.path) < (b.allocated, a.path)
        case .oldestModified: (a.modification, a.path) > (b.modification, b.path)
        default: (a.access, a.path) > (b.access, b.path)
        }
    }

    /// Whether a file with `status` deserves removal more than the current top.
    func deserves(_ status: FileStatus, over top: SweepEngine.Candidate?) -> Bool {
        guard let top else { return true }
        switch order {
        case .largestFirst: return status.allocatedSize > top.allocated
        case .oldestModified: return status.modificationTime < top.modification
        default: return status.accessTime < top.access
        }
    }

    /// Whether the heap, less its top, still covers the need.
    func isSatisfied(bytes: Int64, count: Int) -> Bool {
        guard let top else { return bytes <= 0 && count <= 0 }
        return allocated - top.allocated >= bytes && items.count - 1 >= count
    }

    mutating func insert(_ candidate: SweepEngine.Candidate) {
        items.append(candidate)
        allocated += candidate.allocated
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard keeps(items[child], over: items[parent]) else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    /// Drops the least deserving victims while the rest still cover the need.
    mutating func trim(bytes: Int64, count: Int) {
        while !items.isEmpty, isSatisfied(bytes: bytes, count: count) { removeTop() }
    }

    private mutating func removeTop() {
        allocated -= items[0].allocated
        items.swapAt(0, items.count - 1)
        items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var best = parent
            if left < items.count, keeps(items[left], over: items[best]) { best = left }
            if right < items.count, keeps(items[right], over: items[best]) { best = right }
            if best == parent { return }
            items.swapAt(parent, best)
            parent = best
        }
    }
}
