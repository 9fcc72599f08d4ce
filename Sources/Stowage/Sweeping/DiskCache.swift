import Foundation

/// A key-value cache on disk, in the caches location, whose limits hold continuously.
///
/// Keys of any length become safe file names (two 64-bit FNV-1a hashes, in 256 fan-out folders);
/// each file starts with its full key, so a hash collision reads as a miss, never as another
/// key's value, and with its data's length, so an entry cut short reads as a miss, never as
/// truncated data. Entries can expire. A write that takes the cache over a limit sweeps it, least
/// recently used first, down to the low watermark (so the next writes do not sweep again).
/// ``totalAllocatedSize`` and ``count`` are O(1): an index of totals, built by one scan when the
/// cache is opened, kept by every write and removal, and rebuilt by every sweep. Entries removed
/// behind the cache's back are misses, and the next sweep corrects the totals.
///
/// ```swift
/// let thumbnails = try DiskCache(name: "thumbnails", in: container,
///                                limits: DiskCache.Limits(maximumAllocatedSize: 50_000_000))
/// try thumbnails.set(pngData, for: url.absoluteString)
/// let cached = try thumbnails.data(for: url.absoluteString)   // nil on a miss
/// ```
///
/// `@unchecked Sendable`: the totals are read and written only while `lock` is held; the files
/// themselves are written atomically and may be used from many threads and processes.
public final class DiskCache: @unchecked Sendable {
    /// Size and count limits.
    public struct Limits: Sendable, Hashable {
        /// The most allocated bytes the entries may take.
        public var maximumAllocatedSize: Int64?
        /// The most entries.
        public var maximumCount: Int?
        /// The fraction of a limit a sweep goes down to (0 < x ≤ 1).
        public var lowWatermark: Double

        /// Limits; none unless given.
        public init(maximumAllocatedSize: Int64? = nil, maximumCount: Int? = nil, lowWatermark: Double = 0.8) {
            self.maximumAllocatedSize = maximumAllocatedSize
            self.maximumCount = maximumCount
            self.lowWatermark = lowWatermark
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
    private let lock = NSLock()
    private var allocated: Int64 = 0
    private var entries = 0
    private var sweeps = 0

    /// A cache in the folder `name` of `container`'s caches location (created if needed).
    ///
    /// Like the Store, the cache opens its folder name by name and never through a symbolic
    /// link: should the folder be swapped for a link later, every call is `invalidPath`. A folder
    /// removed behind its back (Caches cleared, say) is made again by the next call.
    ///
    /// - Throws: ``StowageError/Code/invalidPath`` for a name that is not a valid path,
    ///   ``StowageError/Code/invalidArgument`` for a low watermark outside (0, 1].
    public convenience init(name: String, in container: Container, limits: Limits = Limits(),
                            format: any ValueFormat = JSONFormat()) throws {
        let store = Store(container: container)
        let relative = try store.perform(.locate, .caches, name) { try RelativePath(name) }
        try self.init(folder: try store.url(for: name, in: .caches), place: .container(store, relative),
                      limits: limits, format: format)
    }

    /// A cache in any folder (created if needed).
    public convenience init(folder: URL, limits: Limits = Limits(), format: any ValueFormat = JSONFormat()) throws {
        try self.init(folder: folder, place: .path, limits: limits, format: format)
    }

    private init(folder: URL, place: Place, limits: Limits, format: any ValueFormat) throws {
        guard limits.lowWatermark > 0, limits.lowWatermark <= 1 else {
            throw StowageError(.invalidArgument, operation: .cache, path: folder.fileSystemPath,
                               reason: "the low watermark must be more than 0 and at most 1")
        }
        self.folder = folder
        self.place = place
        self.limits = limits
        self.format = format
        try rebuildIndex()  // opening the folder makes it

    }

    /// Opens the cache's folder, making it again if it was removed.
    private func openRoot() throws -> OpenFile {
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

    // MARK: Reading and writing

    /// Stores `data` under `key`, replacing any previous entry, then sweeps if a limit is exceeded.
    ///
    /// - Parameters:
    ///   - data: The entry's contents.
    ///   - key: Any string; it is hashed to a file name and stored in the entry.
    ///   - expiresAfter: Seconds after which the entry reads as a miss; `nil` for never.
    /// - Throws: ``StowageError/Code/noSpace`` and other write errors; the previous entry stays.
    public func set(_ data: Data, for key: String, expiresAfter: TimeInterval? = nil) throws {
        let (fanOut, name) = Self.fileName(for: key)
        let expiry = expiresAfter.map { Date().timeIntervalSince1970 + $0 } ?? 0
        var content = Self.header(key: key, expiry: expiry, dataLength: data.count)
        content.append(data)
        try run(key) {
            // A sweep (of this cache, or of another process sharing it) removes the fan-out
            // folders it empties, maybe just after this write found or made one.
            try AtomicWrite.retryingVanishedFolders { try write(content, fanOut: fanOut, name: name) }
        }
        if isOverLimit { try sweep() }
    }

    /// Writes one entry file atomically into its fan-out folder (made if missing) and updates the index.
    private func write(_ content: Data, fanOut: String, name: String) throws {
        let root = try openRoot()
        if try root.statusIfPresent(of: fanOut) == nil {
            try Store.createFolderIfMissing(fanOut, in: root, mode: .defaultFolder)
        }
        let parent = try root.openFolder(fanOut)
        let previous = try parent.statusIfPresent(of: name)
        try AtomicWrite.write(content, into: parent, name: name, durable: false, protection: nil)
        let written = try parent.status(of: name).allocatedSize
        lock.withLock {
            allocated += written - (previous?.allocatedSize ?? 0)
            if previous == nil { entries += 1 }
        }
    }

    /// Stores an encoded value under `key`.
    public func set<Value: Encodable>(_ value: Value, for key: String, expiresAfter: TimeInterval? = nil) throws {
        let data: Data
        do {
            data = try format.encode(value)
        } catch {
            throw StowageError(.encodingFailed, operation: .cache, path: key, underlying: error)
        }
        try set(data, for: key, expiresAfter: expiresAfter)
    }

    /// The data stored under `key`, or `nil` on a miss (absent, expired, or removed behind the
    /// cache's back). Records the access, for least-recently-used sweeps.
    ///
    /// - Throws: read errors other than absence; a corrupt entry is removed and reads as a miss.
    public func data(for key: String) throws -> Data? {
        let (fanOut, name) = Self.fileName(for: key)
        return try run(key) {
            let root = try openRoot()
            let file: OpenFile
            let parent: OpenFile
            do {
                parent = try root.openFolder(fanOut)
                file = try parent.openForReading(name)
            } catch Errno.noSuchEntry {
                return nil
            }
            // A FIFO or a device in an entry's place is no entry: dropped like a corrupt one
            // (reading it would block, or never end).
            guard try file.status().kind == .file else {
                try removeEntry(name, in: parent)
                return nil
            }
            let content = try file.readAll()
            guard let entry = Self.parse(content), entry.key == key else {
                if Self.parse(content) == nil { try removeEntry(name, in: parent) }  // corrupt: drop it
                return nil  // another key with the same hash: a miss
            }
            if entry.expiry > 0 && entry.expiry <= Date().timeIntervalSince1970 {
                try removeEntry(name, in: parent)
                return nil
            }
            try Store.recordAccess(to: file)
            return content.subdata(in: entry.dataOffset..<content.count)
        }
    }

    /// The value stored under `key`, or `nil` on a miss.
    ///
    /// - Throws: ``StowageError/Code/decodingFailed`` when the entry does not decode as `Value`.
    public func value<Value: Decodable>(_ type: Value.Type, for key: String) throws -> Value? {
        guard let data = try data(for: key) else { return nil }
        do {
            return try format.decode(type, from: data)
        } catch {
            throw StowageError(.decodingFailed, operation: .cache, path: key, underlying: error)
        }
    }

    /// Removes the entry under `key`; removing an absent entry is not an error.
    public func remove(_ key: String) throws {
        let (fanOut, name) = Self.fileName(for: key)
        try run(key) {
            let root = try openRoot()
            let parent: OpenFile
            do {
                parent = try root.openFolder(fanOut)
            } catch Errno.noSuchEntry {
                return  // no folder, no entry (a sweep may have just removed the emptied folder)
            }
            try removeEntry(name, in: parent)
        }
    }

    /// Removes every entry, through the removal walk: entries marked ``Marker/pinned`` stay, as
    /// do mount points and writes in progress.
    public func removeAll() throws {
        try run("") {
            let root = try openRoot()
            let report = try TreeOperations.removeContents(of: root, path: folder.fileSystemPath, dryRun: false,
                                                           operation: .cache)
            lock.withLock {
                allocated = report.keptAllocatedBytes
                entries = report.keptFiles
            }
        }
    }

    // MARK: Size and sweeping

    /// The allocated bytes of all entries, from the index (O(1)).
    public var totalAllocatedSize: Int64 { lock.withLock { allocated } }
    /// The number of entries, from the index (O(1)).
    public var count: Int { lock.withLock { entries } }
    /// How many sweeps this instance has made (for tests and diagnostics).
    public var sweepCount: Int { lock.withLock { sweeps } }

    private var isOverLimit: Bool {
        lock.withLock {
            (limits.maximumAllocatedSize.map { allocated > $0 } ?? false) || (limits.maximumCount.map { entries > $0 } ?? false)
        }
    }

    /// Sweeps the cache down to the low watermark of its limits, least recently used first, and
    /// rebuilds the index from what the sweep saw.
    @discardableResult
    public func sweep() throws -> SweepReport {
        let policy = SweepPolicy(maximumAllocatedSize: limits.maximumAllocatedSize, maximumCount: limits.maximumCount,
                                 order: .leastRecentlyUsed, lowWatermark: limits.lowWatermark)
        let report = try run("") {
            try Sweeper.run(root: try openRoot(), path: folder.fileSystemPath, policy: policy, goal: .limits,
                            dryRun: false, now: Date())
        }
        lock.withLock {
            allocated = report.keptAllocatedBytes
            entries = report.keptFiles
            sweeps += 1
        }
        return report
    }

    /// Counts the entries on disk: the index's scan. Folders' own blocks and Stowage's
    /// bookkeeping files are not entries.
    private func rebuildIndex() throws {
        var files = 0
        var bytes: Int64 = 0
        try run("") {
            try FileTreeWalk(root: try openRoot()).run({ entry in
                if entry.status.kind == .file && !entry.name.hasPrefix(RelativePath.reservedPrefix) {
                    files += 1
                    bytes += entry.status.allocatedSize
                }
                return entry.status.kind == .folder
            }, problem: { _, _ in })  // an unreadable fan-out folder only makes the totals low until the next sweep
        }
        lock.withLock {
            entries = files
            allocated = bytes
        }
    }

    private func removeEntry(_ name: String, in parent: OpenFile) throws {
        guard let status = try parent.statusIfPresent(of: name) else { return }
        do {
            try parent.removeEntry(name, folder: false)
        } catch Errno.noSuchEntry {
            return
        }
        lock.withLock {
            allocated -= status.allocatedSize
            entries -= 1
        }
    }

    /// Runs `body`, naming the folder (and the key, when there is one) in a system call's error.
    private func run<T>(_ key: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SystemCallError {
            let path = folder.fileSystemPath + (key.isEmpty ? "" : " [" + key.prefix(64) + "]")
            throw StowageError(error, operation: .cache, path: path)
        }
    }

    // MARK: Entry files

    private static let magic = Array("STOWAGE-CACHE-2\n".utf8)

    /// The fan-out folder and file name of a key.
    static func fileName(for key: String) -> (String, String) {
        let bytes = Array(key.utf8)
        let first = AppendJournal.checksum(bytes)
        let second = AppendJournal.checksum(bytes + [0x5A])
        let name = String(first, radix: 16).leftPadded(16) + String(second, radix: 16).leftPadded(16)
        return (String(name.prefix(2)), name)
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
        let start = content.startIndex
        guard content.count >= magic.count + 4, content.prefix(magic.count).elementsEqual(magic) else { return nil }
        let keyLength = Int(littleEndian(content, at: start + magic.count, count: 4))
        let keyStart = start + magic.count + 4
        guard content.count >= magic.count + 4 + keyLength + 16 else { return nil }
        let key = String(decoding: content[keyStart..<keyStart + keyLength], as: UTF8.self)
        let expiry = Double(bitPattern: littleEndian(content, at: keyStart + keyLength, count: 8))
        let dataLength = littleEndian(content, at: keyStart + keyLength + 8, count: 8)
        let dataOffset = magic.count + 4 + keyLength + 16
        guard UInt64(content.count - dataOffset) == dataLength else { return nil }
        return (key, expiry, dataOffset)
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
