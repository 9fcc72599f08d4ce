import Foundation

/// A key-value cache on disk, in the caches location, whose limits hold after every write,
/// whoever writes: any number of instances, in any number of processes, on one folder.
///
/// ```swift
/// let thumbnails = try DiskCache(name: "thumbnails",
///                                limits: DiskCache.Limits(maximumAllocatedBytes: 50_000_000))
/// try await thumbnails.set(pngData, for: url.absoluteString)
/// let cached = try await thumbnails.data(for: url.absoluteString)   // nil on a miss
/// ```
///
/// **Entries.** Keys of any length become safe file names (two 64-bit FNV-1a hashes, in 256
/// fan-out folders); each file starts with its full key, so a hash collision reads as a miss,
/// never as another key's value, and with its data's length, so an entry cut short reads as a
/// miss, never as truncated data. Every write is atomic: a reader sees the old entry or the new
/// one, never a torn one. Entries can expire: an entry is a hit until just before its expiry
/// instant and a miss from that instant on; an expiry of 0 seconds or less is already expired
/// (the set removes the previous entry and writes nothing), `.infinity` is never, and NaN is
/// ``StowageError/Code/invalidArgument``.
///
/// **Limits.** After any `set(_:for:expiresAfter:)` returns, the entries' allocated bytes are at
/// most ``Limits/maximumAllocatedBytes`` and their number at most ``Limits/maximumCount``: a write
/// that takes the cache over a limit evicts, least recently used first, down to the low watermark,
/// before it returns (so the next writes do not evict again), and while it does no other write can
/// begin. Only while a write is under way can the folder hold one entry more than the limits allow:
/// its own, until its eviction has run. A write never evicts the entry it has just written,
/// whatever the others' access times (entries written within one tick of the file system's clock
/// tie), unless that entry alone is over the size limit: then its own write evicts it. The limits
/// count entries: the fan-out folders' own blocks, the 64-byte index (a block) and the temporary
/// files of sets in progress (each set writes its bytes before its turn, so the folder also holds
/// one per set waiting) are not entries. A set holds a lock on its temporary file while it lives:
/// the file of a writer killed before its turn is reclaimed by the next change (or sweep) at
/// once. An eviction writes nothing: no sweep record, unlike a sweep asked for by name
/// (``Sweeper``); it keeps the fan-out folders it empties, but for room on a full disk.
///
/// **Many writers.** The totals live in a shared index file in the folder (see "A cache on
/// disk" in the documentation for the design): every change takes its `flock`, so changes by all
/// instances and processes happen one at a time, from the totals the last one left; a process
/// killed in the middle of a change leaves the index marked, and the next change measures the
/// folder again. Eviction goes through the removal walk (``Sweeper``): pinned entries and writes
/// in progress stay. Files put in the folder by other means are counted at the next measure.
///
/// **Memory tier.** Entries up to a quarter of ``Limits/memoryCapacityBytes`` (8 MiB unless set; 0
/// turns it off) are also kept in memory, least recently used out first, so a repeated hit makes
/// no system call; emptied when the system warns of memory pressure (Apple platforms). It is
/// exact across instances and processes: every change moves the shared index's generation on,
/// and a memory hit first compares it (a load from shared memory, no system call), dropping the
/// tier when another instance or process changed anything. An eviction drops what it removed
/// from its own instance's tier (an entry its own set evicted is never kept). Only a cache folder removed or made
/// again behind the caches' backs (Caches cleared, the system purging it) is seen late: within
/// one second of the next read.
///
/// **Full disk.** A write that meets a full volume evicts its own least recently used entries
/// (below the low watermark of what they take less the room the new entry needs: its whole
/// blocks, and a block for its fan-out folder when that must be made) and tries once more. The
/// eviction writes nothing, so the room it frees is the entry's. When even evicting every entry
/// could not make that room, it evicts nothing. If the write still fails, it throws
/// ``StowageError/Code/noSpace`` naming the key, and the previous entry stays as it was.
///
/// **Threads and tasks.** Every method may be called from any thread; the `async` forms run the
/// file work on threads of their own, never blocking the caller's actor, and are cancelled before
/// they start (a write is never abandoned half done); ``removeAll(progressInterval:progress:)`` stops between
/// removals when cancelled.
public final class DiskCache: Sendable {
    /// The cache's folder.
    public let folder: URL
    /// The limits kept on every write.
    public let limits: Limits
    /// How values are encoded.
    public let format: any ValueFormat

    /// Where the folder is: inside a container (opened name by name, never through a link, so a
    /// folder swapped for a link later cannot lead the cache outside), or any folder the caller
    /// chose (opened by its path, which may be a link).
    enum Place {
        case container(Store, RelativePath)
        case path
    }

    let place: Place
    let index: CacheIndex
    let memory: MemoryTier
    /// When the memory tier last checked that the folder's index is still the one it maps.
    let verified = Clock()
    /// The folder reads start from, opened again at most once a second.
    let readingRoot = ReadingRoot()

    /// A cache in the folder `name` of `container`'s caches location (created if needed).
    ///
    /// Like the Store, the cache opens its folder name by name and never through a symbolic
    /// link: should the folder be swapped for a link later, every call is `invalidPath`. A folder
    /// removed behind its back (Caches cleared, say) is made again by the next call, or by a
    /// set under way when it went.
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
        memory = MemoryTier(capacity: limits.memoryCapacityBytes)
        index = try Self.run(folder, "") {
            let root = try Self.openRoot(folder, place)  // opening the folder makes it
            return try CacheIndex(in: root, folderPath: folder.fileSystemPath, reopen: { try Self.openRoot(folder, place) },
                                  measure: { try Self.measure($0) })
        }
    }

    /// Opens the cache's folder, making it again if it was removed.
    static func openRoot(_ folder: URL, _ place: Place) throws -> OpenFile {
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
    func openRoot() throws -> OpenFile {
        let root = try Self.openRoot(folder, place)
        readingRoot.replace(with: root, now: Self.uptime)
        return root
    }

    /// Runs `change` alone among every instance and process on the folder (see ``CacheIndex``),
    /// then tells the memory tier: `key`'s entry is dropped from it (`nil`: nothing in particular).
    func change<Result>(_ root: OpenFile, key: String?, _ change: (inout CacheIndex.Totals) throws -> Result) throws -> Result {
        let (result, before, after) = try indexChange(root, change)
        memory.changed(key, from: before, to: after)
        return result
    }

    // MARK: Helpers

    func encode<Value: Encodable>(_ value: Value, _ key: String) throws -> Data {
        do {
            return try format.encode(value)
        } catch {
            throw StowageError(.encodingFailed, operation: .cache, path: key, underlying: error)
        }
    }

    func decode<Value: Decodable>(_ type: Value.Type, _ data: Data?, _ key: String) throws -> Value? {
        guard let data else { return nil }
        do {
            return try format.decode(type, from: data)
        } catch {
            throw StowageError(.decodingFailed, operation: .cache, path: key, underlying: error)
        }
    }

    /// Runs `body`, naming the folder (and the key, when there is one) in a system call's error.
    ///
    /// A `body` that meets "no such file or directory" runs once more: the folder was removed
    /// under the call (Caches cleared, a folder removed behind the cache's back) after the call
    /// opened it, and every call opens it by name, making it again, so the second run works in
    /// the new folder. Each call's work is whole or nothing (an atomic write, a removal, a change
    /// of the index under its lock), so running it again repeats nothing twice.
    func run<T>(_ key: String, _ body: () throws -> T) throws -> T { try Self.run(folder, key, body) }

    private static func run<T>(_ folder: URL, _ key: String, _ body: () throws -> T) throws -> T {
        do {
            do {
                return try body()
            } catch Errno.noSuchEntry {
                return try body()
            }
        } catch let error as SystemCallError {
            throw StowageError(error, operation: .cache, path: errorPath(folder, key))
        }
    }

    /// How errors name the folder and `key` (when there is one): `FOLDER [KEY]`, the key cut at 64 characters.
    func errorPath(_ key: String) -> String { Self.errorPath(folder, key) }

    private static func errorPath(_ folder: URL, _ key: String) -> String {
        folder.fileSystemPath + (key.isEmpty ? "" : " [" + key.prefix(64) + "]")
    }

    /// The cache's folder as reads open it: the same descriptor for up to a second, then the
    /// folder opened again (by name, as every change opens it), so a hit makes no system call for
    /// the folder. A folder removed or swapped for a link within that second is read as it was
    /// opened (a removed one holds no entries: misses), never through the link.
    ///
    /// `@unchecked Sendable`: `folder` and `opened` are read and written only while `lock` is
    /// held; an `OpenFile` handed out stays open while its user holds it, also once replaced here.
    final class ReadingRoot: @unchecked Sendable {
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

    /// The wall clock entries expire by, in seconds since 1970: the system's, unless a test sets
    /// another for its task (so that an expiry's boundary is tested exactly, and nothing sleeps).
    @TaskLocal static var wallClock: @Sendable () -> Double = { Date().timeIntervalSince1970 }

    /// Seconds on a monotonic clock (since first asked): what the once-a-second checks measure, so
    /// that a wall clock set back never stretches "a second" into the time it went back.
    static var uptime: Double {
        let elapsed = ContinuousClock.now - origin
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
    private static let origin = ContinuousClock.now

    /// A time that says when something is due again; safe from any thread.
    ///
    /// `@unchecked Sendable`: `last` is read and written only while `lock` is held.
    final class Clock: @unchecked Sendable {
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
}

extension StowageError.Operation {
    /// Reading or writing a ``DiskCache`` entry.
    public static let cache = StowageError.Operation("cache")
}
