import Dispatch
import Foundation

extension SweepEngine {
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
            // The workers do not inherit the task's storage budget (a task-local value): bound
            // again there, so what they remove is given back to it.
            let simulation = SimulationContext.current
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                simulation.run {
                    while let group = outcomes.claimGroup(below: groups.count) {
                        removeGroup(groups[group], of: victims, into: outcomes)
                    }
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
                    outcomes.note(UsageIssue(pathBytes: absolutePath(victim.path), errno: nil, message: "changed since it was chosen; kept"))
                    continue
                }
                if victim.kind == .folder {
                    try Removal.removeItem(name, in: parent)  // a leftover staging folder, whole
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
    func open(folder: RawPath) throws -> OpenFile {
        guard !folder.isEmpty else { return OpenFile(adopting: try Sys.dup(root.descriptor)) }
        let rootMount = try self.rootMount()
        var current = root
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
