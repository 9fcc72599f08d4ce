import Foundation

extension DiskCache {
    /// Stores `data` under `key`, replacing any previous entry, then evicts if a limit is exceeded.
    ///
    /// - Parameters:
    ///   - data: The entry's contents.
    ///   - key: Any string; it is hashed to a file name and stored in the entry.
    ///   - expiresAfter: How long after the set the entry reads as a miss: a hit until just before
    ///     that instant, a miss from it on. `nil` for never; `.zero` or less is already expired:
    ///     the previous entry is removed and nothing is written.
    /// - Throws: ``StowageError/Code/noSpace`` (naming the key) when the volume is full even
    ///   after evicting, and other write errors; the previous entry stays as it was.
    public func set(_ data: Data, for key: String, expiresAfter: Duration? = nil) throws {
        try set(data, for: key, expirySeconds: expiresAfter?.inSeconds)
    }

    /// The set itself, its expiry in seconds: `nil` or `.infinity` for never, 0 or less (also
    /// `-.infinity`) already expired, NaN ``StowageError/Code/invalidArgument`` naming the key.
    func set(_ data: Data, for key: String, expirySeconds expiresAfter: TimeInterval?) throws {
        let (fanOut, name) = Self.fileName(for: key)
        let expiry: Double
        switch expiresAfter {
        case nil, .infinity?:
            expiry = 0  // never
        case let seconds? where seconds.isNaN:
            throw StowageError(.invalidArgument, operation: .cache, path: errorPath(key),
                               reason: "the expiry is NaN; give seconds (0 or less: already expired; .infinity: never)")
        case let seconds?:
            let now = Self.wallClock()
            expiry = now + seconds
            // Expired from its instant on: one that is already due replaces the entry with nothing.
            guard expiry > now else { return try run(key) { try removeEntry(key, in: try openRoot(), keepingLimits: true) } }
        }
        let header = Self.header(key: key, expiry: expiry, dataLength: data.count)
        try run(key) {
            let root = try openRoot()
            // The entry's bytes go to a temporary file before the change, so writers on one folder
            // write at once; only putting it in place, counting and evicting take turns. The header
            // and the data are written one after the other, never copied into one buffer (for an
            // entry of 1 MB that copy, and the fresh pages it touches, cost a fifth of the write).
            let staged = try? StagedEntry(header: header, data: data, fanOut: fanOut, in: root)
            defer { staged?.discard() }
            try FaultPoint.cacheStaged.reach()
            let (evictedItself, before, generation) = try indexChange(root) { totals in
                // In place: the staged file, or (when staging failed, the disk full, or the staged
                // file was removed by a sweep of the whole folder) a write made now.
                func put() throws {
                    if let staged, try staged.commit(as: name, fanOut: fanOut, in: root, totals: &totals) { return }
                    try write(header + data, fanOut: fanOut, name: name, in: root, totals: &totals)
                }
                do {
                    try put()
                } catch let error as SystemCallError where error.errno == .noSpace || error.errno == .quotaExceeded {
                    // Room from the cache's own least recently used entries, then once more; but only
                    // when what they take (with the fan-out folders evicting them all would empty)
                    // and what is free could hold the entry at all: a write that cannot fit must
                    // not empty the cache for nothing. The eviction writes nothing, so all it
                    // frees is the entry's. A staged entry has its blocks already: it needs its
                    // fan-out folder, or one block more for the folder's list of names.
                    let figures = try root.spaceFigures()
                    let needed = staged?.isStaged == true
                        ? max(figures.blockSize, try Self.room(for: 0, fanOut: fanOut, in: root, blockSize: figures.blockSize))
                        : try Self.room(for: header.count + data.count, fanOut: fanOut, in: root, blockSize: figures.blockSize)
                    guard totals.allocatedBytes + (try Self.fanOutFoldersAllocated(in: root)) + figures.available >= needed else { throw error }
                    let room = SweepPolicy(maximumAllocatedBytes: max(0, totals.allocatedBytes - needed),
                                           order: .leastRecentlyUsed, lowWatermark: limits.lowWatermark)
                    guard try evict(root, policy: room, totals: &totals, keepingFolders: false).freedAllocatedBytes > 0 else { throw error }
                    try put()
                }
                var evicted: Set<String> = []
                if limits.areExceeded(by: totals) {
                    let policy = limits.evictionPolicy
                    // From the index's totals (one walk, not two), sparing the entry just written
                    // (it may tie in the order with entries written within the same tick of the
                    // file system's clock, or come before entries whose access time was set
                    // later by hand). Should the limits still be exceeded (the entry alone is
                    // over one, or files were put in the folder behind the caches' backs), once
                    // more from the walk's own totals, sparing nothing.
                    evicted = Self.entryNames(try evict(root, policy: policy, totals: &totals, measured: true,
                                                        sparing: RawPath(fanOut).appending(RawPath(name))))
                    if limits.areExceeded(by: totals) { evicted.formUnion(Self.entryNames(try evict(root, policy: policy, totals: &totals))) }
                }
                return evicted.contains(name)
            }
            // Kept in memory as of this change's generation (should another process have changed
            // the folder since, the next lookup sees a newer one and drops it); not when its own
            // eviction removed it.
            memory.changed(key, from: before, to: generation)
            if !evictedItself {
                memory.insert(key, data: data, expiry: expiry, generation: generation, current: generation,
                              now: Self.wallClock())
            }
        }
    }

    /// An entry's bytes in a temporary file of the cache's staging folder
    /// (``TemporaryItem/stagingFolder``), written before the change that puts it in place
    /// (``commit(as:fanOut:in:totals:)``), or removed (``discard()``). The file is held: this
    /// writer keeps an exclusive `flock` on it from its creation until it is in place or removed
    /// (``TemporaryItem/heldPrefix``), so the leftover of a process killed in between is
    /// reclaimed by the next change of any instance (``DiskCache/reclaimAbandonedStaging(in:)``),
    /// never one of a writer still alive.
    private final class StagedEntry {
        /// The names of the files this process's writers have staged and not yet put in place or
        /// removed: each one is held by its writer, so a reclaim passes them by without probing
        /// their locks (four system calls each, inside the change, for every set in flight beside
        /// it). A name leaves the set only once its file is in place or removed (or, should that
        /// removal fail, no longer held), so a file that is not in it is probed as before.
        private static let liveLock = NSLock()
        nonisolated(unsafe) private static var liveNames: Set<RawPath> = []

        /// Whether `name` is a file a writer of this process holds now (see `liveNames`).
        static func isLive(_ name: RawPath) -> Bool { liveLock.withLock { liveNames.contains(name) } }

        /// Adds `name` to the live names (`true`: its file is staged and held) or takes it out.
        private static func track(_ name: String, live: Bool) {
            liveLock.withLock { _ = live ? liveNames.insert(RawPath(name)).inserted : liveNames.remove(RawPath(name)) != nil }
        }

        private let staging: OpenFile
        /// The entry's fan-out folder, when it was there before the change (opened outside the
        /// turn); `nil` once a commit found it removed meanwhile.
        private var parent: OpenFile?
        private let temporary: String
        /// The file, open (and locked) until it is in place or removed.
        private let file: OpenFile
        private var committed = false
        /// Whether the file is still at its temporary name (not in place, not removed).
        private(set) var isStaged = true

        /// Writes `header`, then `data`, to a new temporary file in the staging folder of `root`
        /// (made if missing), and opens the fan-out folder `fanOut` when it is there: all before
        /// the change, so that the turn only puts the file in place.
        init(header: Data, data: Data, fanOut: String, in root: OpenFile) throws {
            parent = try? root.openFolder(fanOut)  // best effort: the commit opens (or makes) it otherwise
            staging = try DiskCache.openOrMakeFolder(TemporaryItem.stagingFolder, in: root)
            temporary = TemporaryItem.makeName(held: true)
            file = try staging.open(temporary, flags: Sys.writeCreateExclusive, mode: .defaultFile)
            do {
                // Taken before the first byte: the removal walk never takes an empty held file
                // for abandoned, so only a walk probing at this very moment could hold the lock,
                // and then staging gives way to the write in the change.
                guard try file.tryLock(exclusive: true) else { throw SystemCallError(errno: .wouldBlock, call: "flock") }
                Self.track(temporary, live: true)
                try file.writeAll(header)
                try file.writeAll(data)
            } catch {
                try? staging.removeEntry(temporary, folder: false)  // best effort: the write's error is what matters
                Self.track(temporary, live: false)
                throw error
            }
        }

        /// Renames the file into place as `name` in the fan-out folder `fanOut` of `root` (made
        /// if missing) and counts it (inside a change); `false` when it is gone (the staging
        /// folder removed with the cache's contents meanwhile).
        func commit(as name: String, fanOut: String, in root: OpenFile, totals: inout CacheIndex.Totals) throws -> Bool {
            guard isStaged else { return false }
            // A sweep of the folder by something else than a cache removes the fan-out folders it
            // empties, maybe just after this found or made one.
            return try AtomicWrite.retryingVanishedFolders {
                // The folder opened before the change; should it have been removed since (the
                // rename then fails with ENOENT), opened or made again by the next attempt.
                let parent = try self.parent ?? DiskCache.openOrMakeFolder(fanOut, in: root)
                self.parent = nil
                let previous = try parent.statusIfPresent(of: name).flatMap { $0.kind == .file ? $0 : nil }
                try FaultPoint.atomicWriteBeforeRename.reach()
                do {
                    try staging.rename(temporary, to: parent, as: name)
                } catch Errno.noSuchEntry where (try? staging.statusIfPresent(of: temporary)) == nil {
                    isStaged = false
                    return false
                }
                isStaged = false
                committed = true
                // Closed once in place, so that its lock covers every moment it has its temporary name.
                try file.close()
                try FaultPoint.atomicWriteRenamed.reach()
                try FaultPoint.cacheWritten.reach()
                try DiskCache.count(name, in: parent, replacing: previous, totals: &totals)
                return true
            }
        }

        /// Removes the temporary file unless it was put in place, then lets its lock go.
        func discard() {
            if !committed { try? staging.removeEntry(temporary, folder: false) }  // best effort: a leftover is reclaimed later
            if file.descriptor >= 0 { try? file.close() }  // best effort: the file is in place or gone
            Self.track(temporary, live: false)
        }
    }

    /// The folder `name` of `root`, made if missing (a fan-out folder, the staging folder).
    static func openOrMakeFolder(_ name: String, in root: OpenFile) throws -> OpenFile {
        do {
            return try root.openFolder(name)
        } catch Errno.noSuchEntry {
            try Store.createFolderIfMissing(name, in: root, mode: .defaultFolder)
            return try root.openFolder(name)
        }
    }

    /// Whether the staging folder of `root` holds a staged file that a writer killed between
    /// staging and putting it in place left (its lock free): listed just before each change's
    /// turn, outside it. The common case costs one listing of a folder that holds only the sets in
    /// flight, and a lock probe of each of other processes' (this process's own are known, and
    /// held: ``StagedEntry/isLive(_:)``).
    func stagingHoldsAbandoned(in root: OpenFile) throws -> Bool {
        guard let staging = try Self.stagingFolder(of: root) else { return false }
        var abandoned = false
        try staging.forEachEntry { name, kind in
            if !abandoned, kind == nil || kind == .file, !StagedEntry.isLive(name) {
                abandoned = SweepEngine.writerIsGone(name, in: staging.descriptor)
            }
        }
        return abandoned
    }

    /// Removes, through the removal walk, the staged files of the staging folder of `root` whose
    /// writers are gone (their locks free), inside a change. So what killed writers staged lasts
    /// until the next change of any instance in any process after their death, and no limit need count it.
    func reclaimAbandonedStaging(in root: OpenFile) throws {
        guard let staging = try Self.stagingFolder(of: root) else { return }  // removed meanwhile, with what it held
        _ = try Removal.run(root: staging, path: folder.appending(path: TemporaryItem.stagingFolder).fileSystemPath,
                            .limits(SweepPolicy()), operation: .cache)
    }

    /// The staging folder of `root`; `nil` when there is none (no set staged here yet, or something
    /// else in the way: writes then go directly).
    private static func stagingFolder(of root: OpenFile) throws -> OpenFile? {
        do {
            return try root.openFolder(TemporaryItem.stagingFolder)
        } catch Errno.noSuchEntry, Errno.notFolder {
            return nil
        }
    }

    /// Runs `body`, a change of the folder `root` (see ``CacheIndex/change(in:measure:_:)``),
    /// after reclaiming what killed writers staged (looked for before the turn, removed in it).
    func indexChange<Result>(_ root: OpenFile, _ body: (inout CacheIndex.Totals) throws -> Result) throws
        -> (result: Result, before: UInt64, after: UInt64) {
        let abandoned = try stagingHoldsAbandoned(in: root)
        return try index.change(in: root, measure: { try Self.measure(root) }) { totals in
            if abandoned { try reclaimAbandonedStaging(in: root) }
            return try body(&totals)
        }
    }

    /// The bytes an entry file of `size` bytes needs on a volume of `blockSize` blocks: its whole
    /// blocks, and one more for its fan-out folder when that must be made.
    static func room(for size: Int, fanOut: String, in root: OpenFile, blockSize: Int64) throws -> Int64 {
        let block = max(1, blockSize)
        let folder = try root.statusIfPresent(of: fanOut)?.kind == .folder ? 0 : block
        return (Int64(size) + block - 1) / block * block + folder
    }

    /// What the fan-out folders of `root` take themselves (their own blocks, not their entries'):
    /// what evicting every entry would free besides the entries.
    private static func fanOutFoldersAllocated(in root: OpenFile) throws -> Int64 {
        var total: Int64 = 0
        try root.forEachEntry { name, kind in
            guard kind == nil || kind == .folder, !name.hasPrefix(RelativePath.reservedPrefix),
                  let status = try root.statusIfPresent(of: name), status.kind == .folder else { return }
            total += status.allocatedSize
        }
        return total
    }

    /// Counts the entry `name` just put in place in `parent`, which replaced `previous` (an entry file, or nothing).
    private static func count(_ name: String, in parent: OpenFile, replacing previous: FileStatus?,
                              totals: inout CacheIndex.Totals) throws {
        totals.allocatedBytes += try parent.status(of: name).allocatedSize - (previous?.allocatedSize ?? 0)
        if previous == nil { totals.count += 1 }
    }

    /// Writes one entry file atomically into its fan-out folder (made if missing) and counts it.
    private func write(_ content: Data, fanOut: String, name: String, in root: OpenFile,
                       totals: inout CacheIndex.Totals) throws {
        // A sweep of the folder by something else than a cache (`stowage sweep`, relief) removes
        // the fan-out folders it empties, maybe just after this write found or made one.
        try AtomicWrite.retryingVanishedFolders {
            let parent = try DiskCache.openOrMakeFolder(fanOut, in: root)
            let previous = try parent.statusIfPresent(of: name).flatMap { $0.kind == .file ? $0 : nil }
            // Entries carry no markers of their own to pass on (a pin is set on the entry's file
            // by hand, and a replaced entry is a new one).
            try AtomicWrite.write(content, into: parent, name: name, durable: false, protection: nil, keepingMarkers: false)
            try FaultPoint.cacheWritten.reach()
            try DiskCache.count(name, in: parent, replacing: previous, totals: &totals)
        }
    }

    /// Stores an encoded value under `key`.
    public func set<Value: Encodable>(_ value: Value, for key: String, expiresAfter: Duration? = nil) throws {
        try set(try encode(value, key), for: key, expirySeconds: expiresAfter?.inSeconds)
    }
}
