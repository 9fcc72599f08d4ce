import Foundation

extension DiskCache {
    /// The entries' allocated bytes, as the last change by any instance left them (O(1): a load
    /// from the shared index).
    public var allocatedBytes: Int64 { index.settledTotals.allocatedBytes }
    /// The number of entries, as the last change by any instance left them (O(1)).
    public var count: Int { index.settledTotals.count }
    /// How many evictions this instance has made (for tests and diagnostics).
    public var sweepCount: Int { index.sweepCount }
    /// The bytes of entry data held in the memory tier.
    public var memoryCostBytes: Int { memory.totalCost }

    /// Evicts down to the low watermark of the limits, least recently used first, as a write
    /// over a limit does, and measures the folder again.
    @discardableResult
    public func sweep() throws -> SweepReport {
        let policy = limits.evictionPolicy
        return try run("") {
            let root = try openRoot()
            return try change(root, key: nil) { totals in try evict(root, policy: policy, totals: &totals) }
        }
    }

    /// Removes entries as `policy` says, through the removal walk, and takes the totals the walk
    /// measured. Called inside a change.
    /// With `measured`, the totals are the index's, exact, and the walk that totals the folder is left out.
    /// With `keepingFolders` (an eviction for the limits), the fan-out folders it empties stay, as
    /// the next sets would make them again; an eviction for room on a full volume removes them
    /// (their blocks are room too).
    ///
    /// An eviction writes nothing (no sweep record, unlike ``Sweeper``): what it frees is left
    /// for the entries, and a full disk never takes back the room a set evicted for.
    @discardableResult
    func evict(_ root: OpenFile, policy: SweepPolicy, totals: inout CacheIndex.Totals,
               measured: Bool = false, sparing spared: RawPath? = nil, keepingFolders: Bool = true) throws -> SweepReport {
        let report = try Removal.run(root: root, path: folder.fileSystemPath,
                                     .limits(policy, measured: measured ? (totals.count, totals.allocatedBytes) : nil, sparing: spared,
                                             keepingFolders: keepingFolders),
                                     operation: .cache)
        index.noteSweep()
        // What went from disk goes from memory too (a reader that read it meanwhile, from the
        // generation this change began with, cannot keep it: the change moves the generation on).
        let evicted = Self.entryNames(report)
        if !evicted.isEmpty { memory.remove { evicted.contains(Self.fileName(for: $0).1) } }
        try FaultPoint.cacheEvicted.reach()
        totals = CacheIndex.Totals(allocatedBytes: report.keptAllocatedBytes, count: report.keptFileCount)
        return report
    }

    /// The file names of the entries `report` says were removed.
    static func entryNames(_ report: SweepReport) -> Set<String> {
        Set(report.removed.compactMap { $0.reason == .leftover ? nil : $0.path.split(separator: "/").last.map(String.init) })
    }

    /// Measures the entries of the folder `root`: the index's rebuild. Folders' own blocks,
    /// Stowage's bookkeeping files and `CACHEDIR.TAG` are not entries, as for the removal walk.
    static func measure(_ root: OpenFile) throws -> CacheIndex.Totals {
        var totals = CacheIndex.Totals(allocatedBytes: 0, count: 0)
        try FileTreeWalk(root: root).run({ entry in
            if entry.name.hasPrefix(RelativePath.reservedPrefix) || entry.name.equals(CacheDirectoryTag.name) { return false }
            if entry.status.kind == .file {
                totals.count += 1
                totals.allocatedBytes += entry.status.allocatedSize
            }
            return entry.status.kind == .folder
        }, problem: { _, _ in })  // an unreadable fan-out folder only makes the totals low until the next eviction
        return totals
    }
}
