// What a scan keeps besides its walk (``ScanEngine``): the largest files, the identities of
// files counted once, and the paths it builds.

/// The N largest files seen, kept in a small array (N is small; no full sort of all files).
struct LargestFiles {
    typealias Entry = (path: RawPath, logical: Int64, allocated: Int64)

    let limit: Int
    let byLogical: Bool
    private(set) var entries: [Entry] = []
    /// The smallest kept key once the list is full, -1 before.
    private var threshold: Int64 = -1

    init(limit: Int, byLogical: Bool) {
        self.limit = limit
        self.byLogical = byLogical
    }

    private func key(_ entry: Entry) -> Int64 { byLogical ? entry.logical : entry.allocated }

    /// Whether a file of this size would enter the list (so its path is worth building).
    func wouldKeep(_ status: FileStatus) -> Bool {
        limit > 0 && (entries.count < limit || (byLogical ? status.size : status.allocatedSize) > threshold)
    }

    mutating func offer(path: RawPath, status: FileStatus) {
        insert((path, status.size, status.allocatedSize))
    }

    mutating func insert(_ entry: Entry) {
        guard limit > 0 else { return }
        if entries.count < limit {
            entries.append(entry)
        } else if key(entry) > threshold, let index = entries.indices.min(by: { key(entries[$0]) < key(entries[$1]) }) {
            entries[index] = entry
        } else {
            return
        }
        threshold = entries.count < limit ? -1 : entries.lazy.map(key).min() ?? -1
    }

    mutating func merge(_ other: LargestFiles) {
        for entry in other.entries { insert(entry) }
    }

    /// Largest first; ties by path, so reports are stable.
    func sorted() -> [UsageItem] {
        entries.sorted { key($0) != key($1) ? key($0) > key($1) : $0.path < $1.path }
            .map { UsageItem(pathBytes: $0.path.bytes, depth: 0, isFolder: false, logicalBytes: $0.logical, allocatedBytes: $0.allocated, fileCount: 1) }
    }
}

/// A file's identity on its device, to count hard links once.
struct FileIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
}

extension RawPath {
    /// This path with the C name `name` (`length` bytes) added below it, in one allocation (a scan
    /// builds one for every sub-folder). The room is made with `reserveCapacity`, which the
    /// compiler specializes for bytes: `Array(unsafeUninitializedCapacity:)` calls the standard
    /// library's generic allocation, whose look-up of the storage's type cost about 580
    /// instructions a folder, 7% of a scan's own.
    func appending(cName name: UnsafePointer<CChar>, length: Int) -> RawPath {
        let slash = bytes.last == UInt8(ascii: "/") ? 0 : 1
        var joined: [UInt8] = []
        joined.reserveCapacity(bytes.count + slash + length)
        joined.append(contentsOf: bytes)
        if slash == 1 { joined.append(UInt8(ascii: "/")) }
        name.withMemoryRebound(to: UInt8.self, capacity: length) {
            joined.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
        }
        return RawPath(bytes: joined)
    }
}
