import Foundation

/// The entries a ``DiskCache`` keeps in memory in front of its folder: least recently used
/// first out, limited by the bytes of their data.
///
/// Every entry is as good as the generation of the shared index (``CacheIndex/generation``) it
/// was read or written at: when the generation moves on without this tier being told (another
/// instance or process changed the folder), everything is dropped at the next lookup.
///
/// `@unchecked Sendable`: every stored property is read and written only while `lock` is held.
final class MemoryTier: @unchecked Sendable {
    private final class Node {
        let key: [UInt8]
        var data: Data
        var expiry: Double
        /// When the entry's access was last recorded on disk (seconds since 1970).
        var recorded: Double
        var newer: Node?
        weak var older: Node?
        init(key: [UInt8], data: Data, expiry: Double, recorded: Double) {
            self.key = key
            self.data = data
            self.expiry = expiry
            self.recorded = recorded
        }
    }

    /// The most bytes of data held.
    let capacity: Int
    private let lock = NSLock()
    /// By the key's UTF-8 bytes, as the disk names entries: `String`'s own equality would make
    /// two keys that are canonically equivalent (`é` precomposed and decomposed) one.
    private var nodes: [[UInt8]: Node] = [:]
    private var newest: Node?
    private var oldest: Node?
    private var cost = 0
    private var generation: UInt64?

    init(capacity: Int) {
        self.capacity = capacity
        if capacity > 0 { MemoryPressure.register(self) }
    }

    /// The largest entry kept: a quarter of the capacity, so one large entry never empties the tier.
    var largestEntry: Int { capacity / 4 }

    /// A hit: the data under `key`, when the tier holds it at `generation` and it has not expired.
    /// `recordDue` tells whether its access should be recorded on disk again (then it counts as recorded).
    func lookup(_ key: String, generation: UInt64, now: Double) -> (data: Data, recordDue: Bool)? {
        guard capacity > 0 else { return nil }
        return lock.withLock {
            guard self.generation == generation else {
                removeAllLocked()
                self.generation = generation
                return nil
            }
            guard let node = nodes[Array(key.utf8)] else { return nil }
            if node.expiry > 0 && node.expiry <= now {
                unlink(node)
                return nil
            }
            moveToNewest(node)
            let due = now - node.recorded > Store.accessRecordingInterval
            if due { node.recorded = now }
            return (node.data, due)
        }
    }

    /// Keeps `data` under `key`, as read or written when the index was at `generation` (and is
    /// still, for a read: `current`); a read that another change overtook is not kept.
    func insert(_ key: String, data: Data, expiry: Double, generation: UInt64, current: UInt64, now: Double) {
        guard capacity > 0 else { return }
        lock.withLock {
            guard generation == current else { return }
            if self.generation != generation {
                removeAllLocked()
                self.generation = generation
            }
            let bytes = Array(key.utf8)
            if let node = nodes[bytes] { unlink(node) }
            guard data.count <= largestEntry else { return }
            let node = Node(key: bytes, data: data, expiry: expiry, recorded: now)
            nodes[bytes] = node
            node.older = newest
            newest?.newer = node
            newest = node
            if oldest == nil { oldest = node }
            cost += data.count
            while cost > capacity, let last = oldest { unlink(last) }
        }
    }

    /// After this instance's own change took the index from `before` to `after`: keeps what the
    /// tier holds when nobody else changed the folder meanwhile, and drops `key`'s entry.
    func changed(_ key: String?, from before: UInt64, to after: UInt64) {
        guard capacity > 0 else { return }
        lock.withLock {
            if generation == before {
                if let key, let node = nodes[Array(key.utf8)] { unlink(node) }
            } else {
                removeAllLocked()
            }
            generation = after
        }
    }

    /// Drops the entries whose key `isGone` says went from disk (an eviction's).
    func remove(where isGone: (String) -> Bool) {
        guard capacity > 0 else { return }
        lock.withLock {
            for node in Array(nodes.values) where isGone(String(decoding: node.key, as: UTF8.self)) { unlink(node) }
        }
    }

    /// Drops everything (memory pressure, `removeAll`).
    func removeAll() {
        lock.withLock { removeAllLocked() }
    }

    /// The bytes of data held.
    var totalCost: Int { lock.withLock { cost } }

    private func removeAllLocked() {
        nodes.removeAll()
        newest = nil
        oldest = nil
        cost = 0
    }

    private func unlink(_ node: Node) {
        nodes[node.key] = nil
        node.newer?.older = node.older
        node.older?.newer = node.newer
        if newest === node { newest = node.older }
        if oldest === node { oldest = node.newer }
        node.newer = nil
        node.older = nil
        cost -= node.data.count
    }

    private func moveToNewest(_ node: Node) {
        guard newest !== node else { return }
        node.newer?.older = node.older
        node.older?.newer = node.newer
        if oldest === node { oldest = node.newer }
        node.newer = nil
        node.older = newest
        newest?.newer = node
        newest = node
    }
}
