import Foundation

/// A key-value cache on disk, in the caches location, whose limits hold after every write,
/// whoever writes: any number of instances, in any number of processes, on one folder.
///
/// ```swift
/// let thumbnails = try DiskCache(name: "thumbnails",
///                                limits: DiskCache.Limits(maximumAllocatedSize: 50_000_000))
/// try await thumbnails.set(pngData, for: url.absoluteString)
/// let cached = try await thumbnails.data(for: url.absoluteString)   // nil on a miss
/// ```
///
/// **Entries.** Keys of any length become safe file names (two 64-bit FNV-1a hashes, in 256
/// fan-out folders); each file starts with its full key, so a hash collision reads as a miss,
/// never as another key's value, and with its data's length, so an entry cut short reads as a
/// miss, never as truncated data. Every write is atomic: a reader sees the old entry or the new
/// one, never a torn one. Entries can expire.
///
/// **Limits.** After any `set(_:for:expiresAfter:)` returns, the entries' allocated
/// bytes are at most ``Limits/maximumAllocatedSize`` and their number at most
/// ``Limits/maximumCount``: a write that takes the cache over a limit evicts, least recently used
/// first, down to the low watermark, before it returns (so the next writes do not evict again),
/// and while it does no other write can begin. Only while a write is under way can the folder
/// hold one entry more than the limits allow: its own, until its eviction has run. An entry
/// larger than the low watermark of the size limit is evicted by its own write. The limits count
/// entries: the fan-out folders' own blocks, Stowage's bookkeeping files (the 64-byte index and
/// sweep records, a block each) and the temporary files of sets in progress (each set writes its
/// bytes before its turn, so the folder also holds one per set waiting) are not entries.
///
/// **Many writers.** The totals live in a shared index file in the folder (see "A cache on
/// disk" in the documentation for the design): every change takes its `flock`, so changes by all
/// instances and processes happen one at a time, from the totals the last one left; a process
/// killed in the middle of a change leaves the index marked, and the next change measures the
/// folder again. Eviction goes through the removal walk (``Sweeper``): pinned entries and writes
/// in progress stay. Files put in the folder by other means are counted at the next measure.
///
/// **Memory tier.** Entries up to a quarter of ``Limits/memoryCapacity`` (8 MiB unless set; 0
/// turns it off) are also kept in memory, least recently used out first, so a repeated hit makes
/// no system call; emptied when the system warns of memory pressure (Apple platforms). It is
/// exact across instances and processes: every change moves the shared index's generation on,
/// and a memory hit first compares it (a load from shared memory, no system call), dropping the
/// tier when another instance or process changed anything. Only a cache folder removed or made
/// again behind the caches' backs (Caches cleared, the system purging it) is seen late: within
/// one second of the next read.
///
/// **Full disk.** A write that meets a full volume evicts its own least recently used entries
/// (below the low watermark of what they take less the new entry) and tries once more; if that
/// fails too, it throws ``StowageError/Code/noSpace`` naming the key, and the previous entry
/// stays as it was.
///
/// **Threads and tasks.** Every method may be called from any thread; the `async` forms run the
/// file work on threads of their own, never blocking the caller's actor, and are cancelled before
/// they start (a write is never abandoned half done); ``removeAll(progressInterval:progress:)`` stops between
/// removals when cancelled.
public final class DiskCache: Sendable {
    /// Size, count and memory limits.
    public struct Limits: Sendable, Hashable {
        /// The most allocated bytes the entries may take.
        public var maximumAllocatedSize: Int64?
        /// The most entries.
        public var maximumCount: Int?
        /// The fraction of a limit an eviction goes down to (0 < x ≤ 1).
        public var lowWatermark: Double
        /// The most bytes of entry data kept in memory; 0 turns the memory tier off. Entries
        /// larger than a quarter of it are never kept in memory.
        public var memoryCapacity: Int

        /// The memory tier's capacity unless given: 8 MiB.
        public static let defaultMemoryCapacity = 8 << 20

        /// Limits; none on disk unless given, and an 8 MiB memory tier.
        public init(maximumAllocatedSize: Int64? = nil, maximumCount: Int? = nil, lowWatermark: Double = 0.8,
                    memoryCapacity: Int = Limits.defaultMemoryCapacity) {
            self.maximumAllocatedSize = maximumAllocatedSize
            self.maximumCount = maximumCount
            self.lowWatermark = lowWatermark
            self.memoryCapacity = memoryCapacity
        }

        /// Why these limits cannot be kept, or `nil`.
        var problem: String? {
            if let problem = SweepPolicy(maximumAllocatedSize: maximumAllocatedSize, maximumCount: maximumCount,
                                         lowWatermark: lowWatermark).problem { return problem }
            if memoryCapacity < 0 { return "the memory capacity cannot be negative" }
            return nil
        }

        /// Whether `totals` exceed a limit.
        func areExceeded(by totals: CacheIndex.Totals) -> Bool {
            (maximumAllocatedSize.map { totals.allocatedBytes > $0 } ?? false) || (maximumCount.map { totals.count > $0 } ?? false)
        }
    }

    /// The cache's folder.
    public let folder: URL
    /// The limits kept on every write.
    public let limits: Limits
    /// How values are encoded.
    public let format: any ValueFormat

    /// Where the folder is: inside a container (opened name by name, never through a link, so a
    /// folder swapped for a link later cannot lead the cache outside), or any folder the caller
    /// chose (opened by its path, which may be a link).
    private enum Place {
        case container(Store, RelativePath)
        case path
    }

    private let place: Place
    private let index: CacheIndex
    let memory: MemoryTier
    /// When the memory tier last checked that the folder's index is still the one it maps.
    private let verified = Clock()
    /// The folder reads start from, opened again at most once a second.
    private let readingRoot = ReadingRoot()

    /// A cache in the folder `name` of `container`'s caches location (created if needed).
    ///
    /// Like the Store, the cache opens its folder name by name and never through a symbolic
    /// link: should the folder be swapped for a link later, every call is `invalidPath`. A folder
    /// removed behind its back (Caches cleared, say) is made again by the next call.
    ///
    /// - Throws: ``StowageError/Code/invalidPath`` for a name that is not a valid path,
    ///   ``StowageError/Code/invalidArgument`` for limits that cannot be kept (a low watermark
    ///   outside (0, 1], a negative limit).
    public convenience init(name: String, in container: Container, limits: Limits = Limits(),
                            format: any ValueFormat = JSONFormat()) throws {
        let store = Store(container: container)
        let relative = try store.perform(.locate, .caches, name) { try RelativePath(name) }
        try self.init(folder: try store.url(for: name, in: .caches), place: .container(store, relative),
                      limits: limits, format: format)
    }

    /// A cache in the folder `name` of this app's caches location: the default container
    /// (``Container/default(appIdentifier:environment:)``) of ``Container/currentAppIdentifier``.
    ///
    /// - Throws: as ``init(name:in:limits:format:)``, and ``StowageError/Code/invalidArgument``
    ///   when the default container cannot be found.
    public convenience init(name: String, limits: Limits = Limits(), format: any ValueFormat = JSONFormat()) throws {
        try self.init(name: name, in: try Container.default(appIdentifier: Container.currentAppIdentifier),
                      limits: limits, format: format)
    }

    /// A cache in any folder (created if needed).
    public convenience init(folder: URL, limits: Limits = Limits(), format: any ValueFormat = JSONFormat()) throws {
        try self.init(folder: folder, place: .path, limits: limits, format: format)
    }

    private init(folder: URL, place: Place, limits: Limits, format: any ValueFormat) throws {
        if let problem = limits.problem {
            throw StowageError(.invalidArgument, operation: .cache, path: folder.fileSystemPath, reason: problem)
        }
        self.folder = folder
        self.place = place
        self.limits = limits
        self.format = format
        memory = MemoryTier(capacity: limits.memoryCapacity)
        index = try Self.run(folder, "") {
            let root = try Self.openRoot(folder, place)  // opening the folder makes it
            return try CacheIndex(in: root, measure: { try Self.measure(root) })
        }
    }

    /// Opens the cache's folder, making it again if it was removed.
    private static func openRoot(_ folder: URL, _ place: Place) throws -> OpenFile {
        switch place {
        case .path:
            do {
                return try OpenFile.openFolder(atPath: folder.fileSystemPath, followingLinks: true)
            } catch Errno.noSuchEntry {
                try Container.createFolders(atPath: folder.fileSystemPath)
                return try OpenFile.openFolder(atPath: folder.fileSystemPath, followingLinks: true)
            }
        case .container(let store, let relative):
            return try store.perform(.cache, .caches, relative.string) {
                try store.openFolder(relative, in: .caches, operation: .cache, create: true)
            }
        }
    }

    /// Opens the cache's folder by name, and gives it to reads too (so that a read after a write
    /// of this instance starts from the folder the write used, should the folder have been made again).
    private func openRoot() throws -> OpenFile {
        let root = try Self.openRoot(folder, place)
        readingRoot.replace(with: root, now: Self.uptime)
        return root
    }

    /// Runs `change` alone among every instance and process on the folder (see ``CacheIndex``),
    /// then tells the memory tier: `key`'s entry is dropped from it (`nil`: nothing in particular).
    private func change<Result>(_ root: OpenFile, key: String?, _ change: (inout CacheIndex.Totals) throws -> Result) throws -> Result {
        let (result, before, after) = try index.change(in: root, measure: { try Self.measure(root) }, change)
        memory.changed(key, from: before, to: after)
        return result
    }

    // MARK: Reading and writing

    /// Stores `data` under `key`, replacing any previous entry, then evicts if a limit is exceeded.
    ///
    /// - Parameters:
    ///   - data: The entry's contents.
    ///   - key: Any string; it is hashed to a file name and stored in the entry.
    ///   - expiresAfter: Seconds after which the entry reads as a miss; `nil` for never.
    /// - Throws: ``StowageError/Code/noSpace`` (naming the key) when the volume is full even
    ///   after evicting, and other write errors; the previous entry stays as it was.
    public func set(_ data: Data, for key: String, expiresAfter: TimeInterval? = nil) throws {
        let (fanOut, name) = Self.fileName(for: key)
        let expiry = expiresAfter.map { Date().timeIntervalSince1970 + $0 } ?? 0
        var content = Self.header(key: key, expiry: expiry, dataLength: data.count)
        content.append(data)
        try run(key) {
            let root = try openRoot()
            // The entry's bytes go to a temporary file before the change, so writers on one folder
            // write at once; only putting it in place, counting and evicting take turns.
            let staged = try? StagedEntry(content, fanOut: fanOut, in: root)
            defer { staged?.discard() }
            let (_, before, generation) = try index.change(in: root, measure: { try Self.measure(root) }) { totals in
                do {
                    if let staged, try staged.commit(as: name, totals: &totals) {
                        // in place
                    } else {
                        try write(content, fanOut: fanOut, name: name, in: root, totals: &totals)
                    }
                } catch let error as SystemCallError where error.errno == .noSpace || error.errno == .quotaExceeded {
                    // Room from the cache's own least recently used entries, then once more; but only
                    // when what they take and what is free could hold the entry at all (a write
                    // that cannot fit must not empty the cache for nothing).
                    let needed = Int64(content.count)
                    guard totals.allocatedBytes + (try root.spaceFigures().available) >= needed else { throw error }
                    let room = SweepPolicy(maximumAllocatedSize: max(0, totals.allocatedBytes - needed),
                                           order: .leastRecentlyUsed, lowWatermark: limits.lowWatermark)
                    guard try evict(root, policy: room, totals: &totals).freedAllocatedBytes > 0 else { throw error }
                    try write(content, fanOut: fanOut, name: name, in: root, totals: &totals)
                }
                if limits.areExceeded(by: totals) {
                    let policy = SweepPolicy(maximumAllocatedSize: limits.maximumAllocatedSize, maximumCount: limits.maximumCount,
                                             order: .leastRecentlyUsed, lowWatermark: limits.lowWatermark)
                    // From the index's totals (one walk, not two); should files put in the folder
                    // behind the caches' backs leave it over a limit, once more from the walk's own.
                    try evict(root, policy: policy, totals: &totals, measured: true)
                    if limits.areExceeded(by: totals) { try evict(root, policy: policy, totals: &totals) }
                }
            }
            // Kept in memory as of this change's generation: should another process have changed
            // the folder since, the next lookup sees a newer one and drops it.
            memory.changed(key, from: before, to: generation)
            memory.insert(key, data: data, expiry: expiry, generation: generation, current: generation,
                          now: Date().timeIntervalSince1970)
        }
    }

    /// An entry's bytes in a temporary file of its fan-out folder, written before the change that
    /// puts it in place (``commit(as:totals:)``), or removed (``discard()``). A leftover of a
    /// process killed in between is reclaimed by a later eviction once it is an hour old, as
    /// every interrupted atomic write's is.
    private final class StagedEntry {
        private let parent: OpenFile
        private let temporary: String
        private var committed = false

        /// Writes `content` to a new temporary file in the fan-out folder `fanOut` of `root` (made if missing).
        init(_ content: Data, fanOut: String, in root: OpenFile) throws {
            do {
                parent = try root.openFolder(fanOut)
            } catch Errno.noSuchEntry {
                try Store.createFolderIfMissing(fanOut, in: root, mode: .defaultFolder)
                parent = try root.openFolder(fanOut)
            }
            temporary = TemporaryItem.makeName()
            let file = try parent.open(temporary, flags: Sys.writeCreateExclusive, mode: .defaultFile)
            do {
                try file.writeAll(content)
                try file.close()
            } catch {
                try? parent.removeEntry(temporary, folder: false)  // best effort: the write's error is what matters
                throw error
            }
        }

        /// Renames the file into place as `name` and counts it (inside a change); `false` when it
        /// is gone (its folder removed by a sweep of something else than a cache meanwhile).
        func commit(as name: String, totals: inout CacheIndex.Totals) throws -> Bool {
            let previous = try parent.statusIfPresent(of: name).flatMap { $0.kind == .file ? $0 : nil }
            try FaultPoint.atomicWriteBeforeRename.reach()
            do {
                try parent.rename(temporary, to: parent, as: name)
            } catch Errno.noSuchEntry {
                return false
            }
            committed = true
            try FaultPoint.atomicWriteRenamed.reach()
            try FaultPoint.cacheWritten.reach()
            try DiskCache.count(name, in: parent, replacing: previous, totals: &totals)
            return true
        }

        /// Removes the temporary file unless it was put in place.
        func discard() {
            if !committed { try? parent.removeEntry(temporary, folder: false) }  // best effort: a leftover is reclaimed later
        }
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
            let parent: OpenFile
            do {
                parent = try root.openFolder(fanOut)
            } catch Errno.noSuchEntry {
                try Store.createFolderIfMissing(fanOut, in: root, mode: .defaultFolder)
                parent = try root.openFolder(fanOut)
            }
            let previous = try parent.statusIfPresent(of: name).flatMap { $0.kind == .file ? $0 : nil }
            // Entries carry no markers of their own to pass on (a pin is set on the entry's file
            // by hand, and a replaced entry is a new one).
            try AtomicWrite.write(content, into: parent, name: name, durable: false, protection: nil, keepingMarkers: false)
            try FaultPoint.cacheWritten.reach()
            try DiskCache.count(name, in: parent, replacing: previous, totals: &totals)
        }
    }

    /// Stores an encoded value under `key`.
    public func set<Value: Encodable>(_ value: Value, for key: String, expiresAfter: TimeInterval? = nil) throws {
        try set(try encode(value, key), for: key, expiresAfter: expiresAfter)
    }

    /// The data stored under `key`, or `nil` on a miss (absent, expired, or removed behind the
    /// cache's back). Records the access, for least-recently-used eviction (at most once a minute
    /// per entry, also for hits in memory).
    ///
    /// - Throws: read errors other than absence; a corrupt entry is removed and reads as a miss.
    public func data(for key: String) throws -> Data? {
        let now = Date().timeIntervalSince1970
        if memory.capacity > 0 {
            try run(key) { try verifyIndex(now: now) }
            if let hit = memory.lookup(key, generation: index.generation, now: now) {
                if hit.recordDue { try run(key) { try recordAccess(key) } }
                return hit.data
            }
        }
        let generation = index.generation
        guard let (data, expiry) = try run(key, { try read(key, now: now) }) else { return nil }
        memory.insert(key, data: data, expiry: expiry, generation: generation, current: index.generation, now: now)
        return data
    }

    /// Reads `key`'s entry from its file: its data and expiry, or `nil` on a miss.
    private func read(_ key: String, now: Double) throws -> (Data, Double)? {
        let (fanOut, name) = Self.fileName(for: key)
        let root = try readingRoot.folder(now: Self.uptime) { try Self.openRoot(folder, place) }
        let file: OpenFile
        do {
            // One call where the system can (no link followed, the folder never left); one name
            // at a time otherwise, and for anything odd on the way, which then fails as it always did.
            do {
                file = try root.openForReading(beneath: fanOut + "/" + name)
            } catch let error as SystemCallError where error.errno != .noSuchEntry {
                file = try root.openFolder(fanOut).openForReading(name)
            }
        } catch Errno.noSuchEntry {
            return nil
        }
        // A FIFO or a device in an entry's place is no entry: dropped like a corrupt one
        // (reading it would block, or never end).
        let status = try file.status()
        guard status.kind == .file else {
            try removeEntry(key, in: root, ifStill: status)
            return nil
        }
        // Entries are never written in place (a new one is renamed over the old), so the size
        // read once is the file's: the header first, then the data straight into its own buffer.
        guard let size = Int(exactly: status.size), size < Int.max else { throw SystemCallError(errno: .valueTooLarge, call: "read") }
        var prefix = try file.read(atMost: min(size, Self.headerRead), at: 0)
        var header = Self.parseHeader(prefix, fileSize: size)
        if case .needs(let count) = header {  // a key longer than the first read
            prefix = try file.read(atMost: count, at: 0)
            header = Self.parseHeader(prefix, fileSize: size)
        }
        guard case .entry(let entryKey, let expiry, let dataOffset) = header,
              let data = try file.read(exactly: size - dataOffset, at: Int64(dataOffset), startingWith: prefix.dropFirst(dataOffset)) else {
            try removeEntry(key, in: root, ifStill: status)  // corrupt (or cut short since): drop it
            return nil
        }
        guard entryKey == key else { return nil }  // another key with the same hash: a miss
        if expiry > 0 && expiry <= now {
            try removeEntry(key, in: root, ifStill: status)
            return nil
        }
        try Store.recordAccess(to: file, status: status)
        return (data, expiry)
    }

    /// The bytes read first: the header of any key up to about 4 KB, and all of a small entry.
    private static let headerRead = 4096

    /// Records an access to `key`'s entry on disk (a hit in memory), if it is still there.
    private func recordAccess(_ key: String) throws {
        let (fanOut, name) = Self.fileName(for: key)
        do {
            try Store.recordAccess(to: try openRoot().openFolder(fanOut).openForReading(name))
        } catch Errno.noSuchEntry {
            return
        }
    }

    /// At most once a second, checks that the folder's index is still the one this instance
    /// maps; if the folder was removed or made again, a change opens the new one and moves the
    /// generation on, which empties the memory tier.
    private func verifyIndex(now: Double) throws {
        guard verified.isDue(Self.uptime, every: 1) else { return }
        let root = try openRoot()
        if try !index.isCurrent(in: root) { try change(root, key: nil) { _ in } }
    }

    /// The value stored under `key`, or `nil` on a miss.
    ///
    /// - Throws: ``StowageError/Code/decodingFailed`` when the entry does not decode as `Value`.
    public func value<Value: Decodable>(_ type: Value.Type, for key: String) throws -> Value? {
        try decode(type, try data(for: key), key)
    }

    /// Removes the entry under `key`; removing an absent entry is not an error.
    public func remove(_ key: String) throws {
        try run(key) { try removeEntry(key, in: try openRoot()) }
    }

    /// Removes the entry of `key` in the folder `root`, and counts it no more.
    ///
    /// With `read`, only the very file that was read (same device and inode) goes: one another
    /// writer put in its place since (a fresh entry for an expired one, say) stays.
    private func removeEntry(_ key: String, in root: OpenFile, ifStill read: FileStatus? = nil) throws {
        let (fanOut, name) = Self.fileName(for: key)
        try change(root, key: key) { totals in
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
    }

    /// Removes every entry, through the removal walk: entries marked ``Marker/pinned`` stay, as
    /// do mount points and writes in progress.
    ///
    /// - Returns: What was removed.
    @discardableResult
    public func removeAll() throws -> SweepReport {
        try removeAll(cancellation: nil, reporter: nil)
    }

    private func removeAll(cancellation: CancellationFlag?, reporter: ProgressReporter?) throws -> SweepReport {
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

    // MARK: Size and eviction

    /// The entries' allocated bytes, as the last change by any instance left them (O(1): a load
    /// from the shared index).
    public var allocatedBytes: Int64 { index.settledTotals.allocatedBytes }
    /// The number of entries, as the last change by any instance left them (O(1)).
    public var count: Int { index.settledTotals.count }
    /// How many evictions this instance has made (for tests and diagnostics).
    public var sweepCount: Int { index.sweepCount }
    /// The bytes of entry data held in the memory tier.
    public var memoryCost: Int { memory.totalCost }

    /// Evicts down to the low watermark of the limits, least recently used first, as a write
    /// over a limit does, and measures the folder again.
    @discardableResult
    public func sweep() throws -> SweepReport {
        let policy = SweepPolicy(maximumAllocatedSize: limits.maximumAllocatedSize, maximumCount: limits.maximumCount,
                                 order: .leastRecentlyUsed, lowWatermark: limits.lowWatermark)
        return try run("") {
            let root = try openRoot()
            return try change(root, key: nil) { totals in try evict(root, policy: policy, totals: &totals) }
        }
    }

    /// Removes entries as `policy` says, through the removal walk, and takes the totals the walk
    /// measured. Called inside a change.
    /// With `measured`, the totals are the index's, exact, and the walk that totals the folder is left out.
    @discardableResult
    private func evict(_ root: OpenFile, policy: SweepPolicy, totals: inout CacheIndex.Totals,
                       measured: Bool = false) throws -> SweepReport {
        let report = try Sweeper.run(root: root, path: folder.fileSystemPath, policy: policy, dryRun: false, now: Date(),
                                     operation: .cache, measured: measured ? (totals.count, totals.allocatedBytes) : nil)
        index.noteSweep()
        try FaultPoint.cacheEvicted.reach()
        totals = CacheIndex.Totals(allocatedBytes: report.keptAllocatedBytes, count: report.keptFileCount)
        return report
    }

    /// Measures the entries of the folder `root`: the index's rebuild. Folders' own blocks,
    /// Stowage's bookkeeping files and `CACHEDIR.TAG` are not entries, as for the removal walk.
    private static func measure(_ root: OpenFile) throws -> CacheIndex.Totals {
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

    // MARK: Async

    /// Stores `data` under `key` on a thread of its own, as `set(_:for:expiresAfter:)`.
    ///
    /// - Throws: `CancellationError` when the task is cancelled before the write begins (then
    ///   nothing changed); otherwise as the synchronous form.
    public func set(_ data: Data, for key: String, expiresAfter: TimeInterval? = nil) async throws {
        try await offActor { try self.set(data, for: key, expiresAfter: expiresAfter) }
    }

    /// Stores an encoded value under `key` on a thread of its own.
    public func set<Value: Encodable>(_ value: Value, for key: String, expiresAfter: TimeInterval? = nil) async throws {
        let data = try encode(value, key)
        try await offActor { try self.set(data, for: key, expiresAfter: expiresAfter) }
    }

    /// The data stored under `key`, or `nil` on a miss: from memory at once, else read on a
    /// thread of its own.
    ///
    /// - Throws: `CancellationError` when the task is cancelled before the read begins;
    ///   otherwise as `data(for:)`.
    public func data(for key: String) async throws -> Data? {
        let now = Date().timeIntervalSince1970
        if memory.capacity > 0, !verified.wouldBeDue(Self.uptime, every: 1),
           let hit = memory.lookup(key, generation: index.generation, now: now) {
            // The access goes on disk once a minute, as for a hit from disk (off the actor too).
            if hit.recordDue { try await offActor { try self.run(key) { try self.recordAccess(key) } } }
            return hit.data
        }
        return try await offActor { try self.data(for: key) }
    }

    /// The value stored under `key`, or `nil` on a miss.
    public func value<Value: Decodable>(_ type: Value.Type, for key: String) async throws -> Value? {
        try decode(type, try await data(for: key), key)
    }

    /// Removes the entry under `key` on a thread of its own.
    public func remove(_ key: String) async throws {
        try await offActor { try self.remove(key) }
    }

    /// Removes every entry, as ``removeAll()``, on a thread of its own, reporting progress as a
    /// sweep does (``Sweeper/sweep(_:dryRun:now:allowingSystemFolders:progressInterval:progress:)``);
    /// cancelling the task stops before the next removal and returns what was removed until then
    /// (``SweepReport/wasCancelled``). Cancellation is not an error.
    @discardableResult
    public func removeAll(progressInterval: Duration = WorkProgress.defaultInterval,
                          progress: (@Sendable (WorkProgress) -> Void)? = nil) async throws -> SweepReport {
        let cancellation = CancellationFlag()
        return try await LongRunningWork.run(progressInterval: progressInterval, progress: progress,
                                             cancel: { cancellation.cancel() }) { reporter in
            try self.removeAll(cancellation: cancellation, reporter: reporter)
        }
    }

    /// Runs `body` on the caches' own threads, after checking the task was not cancelled.
    private func offActor<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try Task.checkCancellation()
        return try await withCheckedThrowingContinuation { continuation in
            Self.queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Where the `async` forms do their file work: Dispatch's threads, made for blocking calls,
    /// never the cooperative pool's.
    private static let queue = DispatchQueue(label: "Stowage.DiskCache", qos: .userInitiated, attributes: .concurrent)

    // MARK: Helpers

    private func encode<Value: Encodable>(_ value: Value, _ key: String) throws -> Data {
        do {
            return try format.encode(value)
        } catch {
            throw StowageError(.encodingFailed, operation: .cache, path: key, underlying: error)
        }
    }

    private func decode<Value: Decodable>(_ type: Value.Type, _ data: Data?, _ key: String) throws -> Value? {
        guard let data else { return nil }
        do {
            return try format.decode(type, from: data)
        } catch {
            throw StowageError(.decodingFailed, operation: .cache, path: key, underlying: error)
        }
    }

    /// Runs `body`, naming the folder (and the key, when there is one) in a system call's error.
    private func run<T>(_ key: String, _ body: () throws -> T) throws -> T { try Self.run(folder, key, body) }

    private static func run<T>(_ folder: URL, _ key: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SystemCallError {
            let path = folder.fileSystemPath + (key.isEmpty ? "" : " [" + key.prefix(64) + "]")
            throw StowageError(error, operation: .cache, path: path)
        }
    }

    /// The cache's folder as reads open it: the same descriptor for up to a second, then the
    /// folder opened again (by name, as every change opens it), so a hit makes no system call for
    /// the folder. A folder removed or swapped for a link within that second is read as it was
    /// opened (a removed one holds no entries: misses), never through the link.
    ///
    /// `@unchecked Sendable`: `folder` and `opened` are read and written only while `lock` is
    /// held; an `OpenFile` handed out stays open while its user holds it, also once replaced here.
    private final class ReadingRoot: @unchecked Sendable {
        private let lock = NSLock()
        private var current: OpenFile?
        private var opened = -Double.infinity

        func folder(now: Double, open: () throws -> OpenFile) throws -> OpenFile {
            if let cached = lock.withLock({ now - opened < 1 ? current : nil }) { return cached }
            let fresh = try open()
            replace(with: fresh, now: now)
            return fresh
        }

        func replace(with folder: OpenFile, now: Double) {
            lock.withLock {
                current = folder
                opened = now
            }
        }
    }

    /// Seconds on a monotonic clock (since first asked): what the once-a-second checks measure, so
    /// that a wall clock set back never stretches "a second" into the time it went back.
    private static var uptime: Double {
        let elapsed = ContinuousClock.now - origin
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
    private static let origin = ContinuousClock.now

    /// A time that says when something is due again; safe from any thread.
    ///
    /// `@unchecked Sendable`: `last` is read and written only while `lock` is held.
    private final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var last = -Double.infinity

        /// Whether `interval` seconds passed since it was last due, without making it due now.
        func wouldBeDue(_ now: Double, every interval: Double) -> Bool {
            lock.withLock { now - last >= interval }
        }

        /// Whether `interval` seconds passed since it was last due (and then, that it is due now).
        func isDue(_ now: Double, every interval: Double) -> Bool {
            lock.withLock {
                guard now - last >= interval else { return false }
                last = now
                return true
            }
        }
    }

    // MARK: Entry files

    private static let magic = Array("STOWAGE-CACHE-2\n".utf8)

    /// The fan-out folder and file name of a key.
    ///
    /// The fan-out folder is the top byte of the first hash after a finaliser (MurmurHash3's
    /// `fmix64`): FNV-1a's own top byte barely changes when keys differ only at their end, and
    /// put 87 keys `p0-t0-N` in 3 of the 256 folders.
    static func fileName(for key: String) -> (String, String) {
        let bytes = Array(key.utf8)
        let first = AppendJournal.checksum(bytes)
        let second = AppendJournal.checksum(bytes + [0x5A])
        let name = String(first, radix: 16).leftPadded(16) + String(second, radix: 16).leftPadded(16)
        return (String(mixed(first) >> 56, radix: 16).leftPadded(2), name)
    }

    /// MurmurHash3's 64-bit finaliser: every bit of `hash` moves every bit of the result.
    private static func mixed(_ hash: UInt64) -> UInt64 {
        var value = hash
        value ^= value >> 33
        value &*= 0xff51_afd7_ed55_8ccd
        value ^= value >> 33
        value &*= 0xc4ce_b9fe_1a85_ec53
        value ^= value >> 33
        return value
    }

    /// An entry starts with the magic, the key's length (4 bytes) and UTF-8 bytes, the expiry
    /// (8 bytes, a `Double`'s bits, 0 for never) and the data's length (8 bytes), all little
    /// endian; the data follows. The length tells a whole entry from one cut short (a write that
    /// was not synced, then a power loss, can leave a file shorter than it was written).
    static func header(key: String, expiry: Double, dataLength: Int) -> Data {
        var data = Data(magic)
        let keyBytes = Array(key.utf8)
        withUnsafeBytes(of: UInt32(keyBytes.count).littleEndian) { data.append(contentsOf: $0) }
        data.append(contentsOf: keyBytes)
        withUnsafeBytes(of: expiry.bitPattern.littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt64(dataLength).littleEndian) { data.append(contentsOf: $0) }
        return data
    }

    /// The key, expiry and where the data starts; `nil` for anything but a whole entry.
    static func parse(_ content: Data) -> (key: String, expiry: Double, dataOffset: Int)? {
        guard case .entry(let key, let expiry, let dataOffset) = parseHeader(content, fileSize: content.count) else { return nil }
        return (key, expiry, dataOffset)
    }

    /// What the first bytes of an entry file of `fileSize` bytes say.
    enum Header: Equatable {
        /// A whole entry: its key, expiry, and where its data starts.
        case entry(key: String, expiry: Double, dataOffset: Int)
        /// The header goes on past `prefix`: read this many bytes and ask again.
        case needs(Int)
        /// Not an entry, or one cut short or grown.
        case corrupt
    }

    /// Parses the header at the start of `prefix`, the first bytes of an entry file of `fileSize`
    /// bytes: whole only if its data's length is exactly what follows the header in the file.
    static func parseHeader(_ prefix: Data, fileSize: Int) -> Header {
        let start = prefix.startIndex
        guard fileSize >= magic.count + 4 else { return .corrupt }
        guard prefix.count >= magic.count + 4 else { return .needs(magic.count + 4) }
        guard prefix.prefix(magic.count).elementsEqual(magic) else { return .corrupt }
        let keyLength = Int(littleEndian(prefix, at: start + magic.count, count: 4))
        let dataOffset = magic.count + 4 + keyLength + 16
        guard fileSize >= dataOffset else { return .corrupt }
        guard prefix.count >= dataOffset else { return .needs(dataOffset) }
        let keyStart = start + magic.count + 4
        let key = String(decoding: prefix[keyStart..<keyStart + keyLength], as: UTF8.self)
        let expiry = Double(bitPattern: littleEndian(prefix, at: keyStart + keyLength, count: 8))
        let dataLength = littleEndian(prefix, at: keyStart + keyLength + 8, count: 8)
        guard UInt64(fileSize - dataOffset) == dataLength else { return .corrupt }
        return .entry(key: key, expiry: expiry, dataOffset: dataOffset)
    }

    /// The little-endian number in the `count` bytes of `content` at `index`.
    private static func littleEndian(_ content: Data, at index: Int, count: Int) -> UInt64 {
        content[index..<index + count].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
    }
}

extension StowageError.Operation {
    /// Reading or writing a ``DiskCache`` entry.
    public static let cache = StowageError.Operation("cache")
}

extension String {
    func leftPadded(_ length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
