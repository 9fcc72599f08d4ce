import Dispatch
import Foundation

/// The walk and victim selection behind ``Sweeper``.
///
/// Two walks, both through file descriptors, never following links or leaving the file system:
/// the first totals the files, the second offers each to a ``VictimHeap`` that keeps only the
/// files that must go (the least deserving on top, dropped as soon as the others cover the
/// need). Memory grows with the victims, which the report lists anyway, and with the number of
/// folders (to know which ones the sweep empties), never with all the files.
///
/// `@unchecked Sendable`: only ``remove(_:)`` runs threads, and they read nothing but the
/// immutable root; what they find goes into their own outcomes, merged after they finish.
final class SweepEngine: @unchecked Sendable {
    /// What the sweep is for.
    enum Goal {
        /// Keep the policy's limits.
        case limits
        /// Free at least this many allocated bytes (pressure relief), from files that pass the filter.
        case free(Int64, purgeableOnly: Bool)
    }

    struct Candidate {
        var path: String
        var folder: String
        var device: UInt64
        var inode: UInt64
        var logical: Int64
        var allocated: Int64
        var access: Double
        var modification: Double
        var reason: SweepReason
    }

    let rootPath: String
    let root: OpenFile
    let policy: SweepPolicy
    let goal: Goal
    let now: Double
    private(set) var issues: [UsageIssue] = []
    /// Entries per folder (relative path), to predict which folders the sweep empties.
    private var entriesPerFolder: [String: Int] = [:]

    init(rootPath: String, root: OpenFile, policy: SweepPolicy, goal: Goal, now: Date) {
        self.rootPath = rootPath
        self.root = root
        self.policy = policy
        self.goal = goal
        self.now = now.timeIntervalSince1970
    }

    // MARK: Selection

    /// Chooses the victims; nothing is removed.
    func select() throws -> (victims: [Candidate], keptFiles: Int, keptAllocated: Int64, pinned: Int) {
        var totalFiles = 0
        var totalAllocated: Int64 = 0
        if case .limits = goal, policy.maximumAllocatedSize != nil || policy.maximumCount != nil {
            try walk(recording: false) { _, _, status, kind in
                if kind == .ordinary {
                    totalFiles += 1
                    totalAllocated += status.allocatedSize
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
        }

        var forced: [Candidate] = []
        var forcedAllocated: Int64 = 0
        var forcedCount = 0
        var pinned = 0
        var heap = VictimHeap(order: policy.order)
        var seenFiles = 0
        var seenAllocated: Int64 = 0
        try walk(recording: true) { folder, name, status, kind in
            switch kind {
            case .leftover:
                guard now - status.modificationTime >= policy.leftoverGracePeriod else { return }
                forced.append(candidate(folder, name, status, reason: .leftover))
                return
            case .ordinary:
                break
            }
            seenFiles += 1
            seenAllocated += status.allocatedSize
            let absolute = { self.absolutePath(folder, name) }
            if case .limits = goal, let maximumAge = policy.maximumAge, now - timestamp(of: status) > maximumAge {
                if try Marker.pinned.isSet(atPath: absolute()) {
                    pinned += 1
                    return
                }
                forced.append(candidate(folder, name, status, reason: .age))
                forcedAllocated += status.allocatedSize
                forcedCount += 1
                return
            }
            guard bytesToFree > 0 || countToFree > 0 else { return }
            if heap.isSatisfied(bytes: bytesToFree - forcedAllocated, count: countToFree - forcedCount),
               !heap.deserves(status, over: heap.top) {
                return
            }
            if case .free(_, let purgeableOnly) = goal, purgeableOnly, !(try Marker.purgeable.isSet(atPath: absolute())) {
                return
            }
            if try Marker.pinned.isSet(atPath: absolute()) {
                pinned += 1
                return
            }
            heap.insert(candidate(folder, name, status, reason: heapReason))
            heap.trim(bytes: bytesToFree - forcedAllocated, count: countToFree - forcedCount)
        }
        heap.trim(bytes: bytesToFree - forcedAllocated, count: countToFree - forcedCount)
        var victims = forced + heap.items
        victims.sort { $0.path < $1.path }
        let removedAllocated = victims.filter { $0.reason != .leftover }.reduce(0) { $0 + $1.allocated }
        let removedCount = victims.filter { $0.reason != .leftover }.count
        return (victims, seenFiles - removedCount, seenAllocated - removedAllocated, pinned)
    }

    private func timestamp(of status: FileStatus) -> Double {
        policy.order == .leastRecentlyUsed ? status.accessTime : status.modificationTime
    }

    private func candidate(_ folder: String, _ name: String, _ status: FileStatus, reason: SweepReason) -> Candidate {
        Candidate(path: folder.isEmpty ? name : folder + "/" + name, folder: folder, device: status.device,
                  inode: status.inode, logical: status.size, allocated: status.allocatedSize,
                  access: status.accessTime, modification: status.modificationTime, reason: reason)
    }

    private func absolutePath(_ folder: String, _ name: String) -> String {
        folder.isEmpty ? rootPath + "/" + name : rootPath + "/" + folder + "/" + name
    }

    /// The folders (relative paths) that would be empty once `victims` are gone, deepest first.
    func emptiedFolders(by victims: [Candidate]) -> [String] {
        var removedPerFolder: [String: Int] = [:]
        for victim in victims { removedPerFolder[victim.folder, default: 0] += 1 }
        var emptied: [String] = []
        for folder in entriesPerFolder.keys.sorted(by: { $0.split(separator: "/").count > $1.split(separator: "/").count || ($0.split(separator: "/").count == $1.split(separator: "/").count && $0 < $1) }) where !folder.isEmpty {
            guard removedPerFolder[folder, default: 0] == entriesPerFolder[folder] else { continue }
            emptied.append(folder)
            let parent = folder.contains("/") ? String(folder[..<folder.lastIndex(of: "/")!]) : ""
            removedPerFolder[parent, default: 0] += 1
        }
        return emptied
    }

    // MARK: The walk

    enum EntryKind { case ordinary, leftover }

    /// Calls `body` for every regular file (and leftover temporary item) below the root, by
    /// folder path and name. Stowage's own bookkeeping files are skipped; links are never
    /// followed nor removed; folders on other file systems are not entered. With `recording`
    /// set (the selecting walk, which every sweep makes), the entries of each folder and the
    /// folders that could not be read are recorded; the totalling walk before it records
    /// nothing, so each unreadable folder is reported once.
    private func walk(recording: Bool, _ body: (String, String, FileStatus, EntryKind) throws -> Void) throws {
        try FileTreeWalk(root: root).run({ entry in
            if RelativePath.isReserved(entry.name) {
                if TemporaryItem.isTemporary(entry.name) { try body(entry.folder, entry.name, entry.status, .leftover) }
                return false
            }
            if entry.folder.isEmpty && entry.name == CacheDirectoryTag.name { return false }
            switch entry.status.kind {
            case .file:
                try body(entry.folder, entry.name, entry.status, .ordinary)
                return false
            case .folder:
                return true
            default:
                return false  // links are never followed nor removed; devices, sockets and pipes are left alone
            }
        }, folderDone: { folder, entries in
            if recording { self.entriesPerFolder[folder] = entries }
        }, problem: { folder, error in
            if recording { self.issues.append(UsageIssue(path: folder, error: error)) }
        })
    }

    // MARK: Removal

    /// Removes `victims`, each only if it is still the file that was chosen (same inode, same
    /// modification time); returns those removed, in the order given.
    ///
    /// Unlinking is the kernel's work, not the disk's alone (journal, block bitmaps, discards), so
    /// folders are emptied by several threads at once, each folder by one thread (each thread
    /// holds one folder descriptor at a time, and a folder's lock is never contended).
    func remove(_ victims: [Candidate]) -> [Candidate] {
        var grouping: [[Int]] = []
        var groupOfFolder: [String: Int] = [:]
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
        let outcomes = RemovalOutcomes(count: victims.count)
        DispatchQueue.concurrentPerform(iterations: max(1, min(groups.count, Self.removalThreads))) { _ in
            while let group = outcomes.claimGroup(below: groups.count) {
                removeGroup(groups[group], of: victims, into: outcomes)
            }
        }
        issues += outcomes.issues.sorted { $0.path < $1.path }
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
        } catch {
            for index in indices { outcomes.fail(victims[index].path, error) }
            return
        }
        for index in indices {
            let victim = victims[index]
            do {
                let name = folder.isEmpty ? victim.path : String(victim.path.dropFirst(folder.count + 1))
                guard let status = try parent.statusIfPresent(of: name) else { continue }
                guard status.inode == victim.inode, status.device == victim.device,
                      status.modificationTime == victim.modification else {
                    outcomes.note(UsageIssue(path: victim.path, errno: 0, message: "changed since it was chosen; kept"))
                    continue
                }
                if status.isFolder {
                    try TreeOperations.remove(name, in: parent)
                } else {
                    try parent.removeEntry(name, folder: false)
                }
                outcomes.markRemoved(index)
            } catch {
                outcomes.fail(victim.path, error)
            }
        }
    }

    /// Removes the folders named (deepest first) if they are empty; returns those removed.
    func removeFolders(_ folders: [String]) -> [String] {
        folders.filter { folder in
            let parentPath = folder.contains("/") ? String(folder[..<folder.lastIndex(of: "/")!]) : ""
            let name = folder.contains("/") ? String(folder[folder.index(after: folder.lastIndex(of: "/")!)...]) : folder
            do {
                try open(folder: parentPath).removeEntry(name, folder: true)
                return true
            } catch let error as SystemCallError
                        where [Sys.notEmpty, Sys.exists, Sys.noSuchEntry].contains(error.errno) {
                return false  // not empty any more (something was written meanwhile) or gone: not an error
            } catch {
                issues.append(UsageIssue(path: folder, error: error))
                return false
            }
        }
    }

    /// Opens a folder below the root by walking name by name, never through a link.
    private func open(folder: String) throws -> OpenFile {
        var current = OpenFile(adopting: try Sys.dup(root.descriptor))
        for name in folder.split(separator: "/") where !folder.isEmpty {
            current = try current.openFolder(String(name))
        }
        return current
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

    init(count: Int) {
        removed = .allocate(capacity: count)
        removed.initialize(repeating: false)
    }

    deinit { removed.deallocate() }

    /// The next folder group for a thread to empty, or `nil` when all are taken.
    func claimGroup(below count: Int) -> Int? {
        lock.withLock {
            guard nextGroup < count else { return nil }
            defer { nextGroup += 1 }
            return nextGroup
        }
    }

    func markRemoved(_ index: Int) { removed[index] = true }
    func wasRemoved(_ index: Int) -> Bool { removed[index] }

    func note(_ issue: UsageIssue) { lock.withLock { issues.append(issue) } }

    func fail(_ path: String, _ error: any Error) { note(UsageIssue(path: path, error: error)) }
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
