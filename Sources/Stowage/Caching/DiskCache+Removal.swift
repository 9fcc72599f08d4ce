import Foundation

extension DiskCache {
    /// Removes the entry under `key`; removing an absent entry is not an error.
    public func remove(_ key: String) throws {
        try run(key) { try removeEntry(key, in: try openRoot()) }
    }

    /// Removes the entry of `key` in the folder `root`, and counts it no more.
    ///
    /// With `read`, only the very file that was read (same device and inode) goes: one another
    /// writer put in its place since (a fresh entry for an expired one, say) stays. With
    /// `keepingLimits` (a set of an entry already expired, which is this removal), the change
    /// then evicts as a set does when the folder is over a limit (left so by a writer killed
    /// mid-change, measured again now): after any set returns, the limits hold.
    func removeEntry(_ key: String, in root: OpenFile, ifStill read: FileStatus? = nil, keepingLimits: Bool = false) throws {
        let (fanOut, name) = Self.fileName(for: key)
        try change(root, key: key) { totals in
            try Self.removeEntryFile(name, fanOut: fanOut, in: root, ifStill: read, totals: &totals)
            if keepingLimits && limits.areExceeded(by: totals) { try evict(root, policy: limits.evictionPolicy, totals: &totals) }
        }
    }

    /// Removes the entry file `name` of the fan-out folder `fanOut` (only the very file `read`,
    /// when given), and counts it no more. Called inside a change.
    private static func removeEntryFile(_ name: String, fanOut: String, in root: OpenFile, ifStill read: FileStatus?,
                                        totals: inout CacheIndex.Totals) throws {
        let parent: OpenFile
        do {
            parent = try root.openFolder(fanOut)
        } catch Errno.noSuchEntry {
            return  // no folder, no entry (an eviction may have just removed the emptied folder)
        }
        guard let status = try parent.statusIfPresent(of: name) else { return }
        if let read, status.device != read.device || status.inode != read.inode { return }
        do {
            try Removal.removeItem(name, in: parent)
        } catch Errno.noSuchEntry {
            return
        }
        if status.kind == .file {
            totals.allocatedBytes -= status.allocatedSize
            totals.count -= 1
        }
    }

    /// Removes every entry, through the removal walk: entries marked ``Marker/pinned`` stay, as
    /// do mount points and writes in progress.
    ///
    /// - Returns: What was removed.
    @discardableResult
    public func removeAll() throws -> SweepReport {
        try removeAll(cancellation: nil, reporter: nil)
    }

    func removeAll(cancellation: CancellationFlag?, reporter: ProgressReporter?) throws -> SweepReport {
        let report = try run("") {
            let root = try openRoot()
            return try change(root, key: nil) { totals in
                let report = try Removal.run(root: root, path: folder.fileSystemPath, .contents, operation: .cache,
                                             reporter: reporter, cancellation: cancellation)
                totals = report.wasCancelled ? try Self.measure(root)
                                             : CacheIndex.Totals(allocatedBytes: report.keptAllocatedBytes, count: report.keptFileCount)
                return report
            }
        }
        memory.removeAll()
        return report
    }
}
