import Foundation

extension DiskCache {
    /// The data stored under `key`, or `nil` on a miss (absent, expired, or removed behind the
    /// cache's back). Records the access, for least-recently-used eviction (at most once a minute
    /// per entry, also for hits in memory).
    ///
    /// - Throws: read errors other than absence; a corrupt entry is removed and reads as a miss.
    public func data(for key: String) throws -> Data? {
        let now = Self.wallClock()
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
    func recordAccess(_ key: String) throws {
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
}
