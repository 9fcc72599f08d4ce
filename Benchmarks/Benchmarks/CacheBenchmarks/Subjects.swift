import Foundation
import Stowage

/// One of the caches measured; `get` gives the bytes read, `nil` on a miss.
protocol Subject: AnyObject, Sendable {
    func set(_ data: Data, for key: String) throws
    func get(_ key: String) throws -> Int?
}

enum Kind: String, CaseIterable { case floor = "Floor", foundation = "Foundation", stowage = "Stowage" }

struct CallFailed: Error { var call: String, code = errno }

/// The disk rows have the memory tier off (`memoryCapacityBytes: 0`); the memory-tier row passes the limit.
func makeSubject(_ kind: Kind, folder: String, limit: Int64, memoryCapacityBytes: Int = 0) throws -> any Subject {
    switch kind {
    case .stowage: try DiskCache(folder: URL(filePath: folder, directoryHint: .isDirectory),
                                 limits: DiskCache.Limits(maximumAllocatedBytes: limit, memoryCapacityBytes: memoryCapacityBytes))
    case .floor: FloorSubject(folder: folder, limit: limit)
    case .foundation: try FoundationSubject(folder: URL(filePath: folder), limit: limit)
    }
}

extension DiskCache: Subject {
    func set(_ data: Data, for key: String) throws { try set(data, for: key, expiresAfter: nil) }
    func get(_ key: String) throws -> Int? { try data(for: key)?.count }
}

/// A key's file name as DiskCache makes it: two 64-bit FNV-1a hashes (of the key, and of the key
/// and 0x5A) in hex; the first two digits name its fan-out folder.
func hashedName(_ key: String) -> String {
    var first: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in key.utf8 { first = (first ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return String(format: "%016lx%016lx", first, (first ^ 0x5A) &* 0x100_0000_01b3)
}

/// The floor: the same bytes with bare system calls (open, write, rename; open, fstat, read), in 256
/// fan-out folders made up front. A FIFO of the keys written (in memory; every key set is new) holds
/// the folder's allocated bytes at the limit by unlinking the oldest: the floor of eviction.
final class FloorSubject: Subject, @unchecked Sendable {
    let folder: String, limit: Int64
    private let lock = NSLock()
    private var fifo: [(path: String, bytes: Int64)] = [], oldest = 0, total: Int64 = 0

    init(folder: String, limit: Int64) {
        (self.folder, self.limit) = (folder, limit)
        for name in [""] + (0 ..< 256).map({ String(format: "/%02x", $0) }) { mkdir(folder + name, 0o755) }  // may exist
    }

    private func path(_ key: String) -> String {
        let name = hashedName(key)
        return folder + "/" + name.prefix(2) + "/" + name
    }

    func set(_ data: Data, for key: String) throws {
        let path = path(key), temporary = path + ".tmp"
        let descriptor = open(temporary, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CallFailed(call: "open") }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }  // all of it, below 2 GiB
        var status = stat()
        fstat(descriptor, &status)  // its allocated size, for the FIFO
        close(descriptor)
        guard written == data.count else { throw CallFailed(call: "write") }
        guard rename(temporary, path) == 0 else { throw CallFailed(call: "rename") }
        let victims: [String] = lock.withLock {
            fifo.append((path, Int64(status.st_blocks) * 512))
            total += Int64(status.st_blocks) * 512
            var victims: [String] = []
            while total > limit, oldest < fifo.count {
                total -= fifo[oldest].bytes
                victims.append(fifo[oldest].path)
                oldest += 1
            }
            return victims
        }
        for victim in victims { unlink(victim) }
    }

    func get(_ key: String) throws -> Int? {
        let descriptor = open(path(key), O_RDONLY | O_CLOEXEC)
        if descriptor < 0, errno == ENOENT { return nil }
        guard descriptor >= 0 else { throw CallFailed(call: "open") }
        defer { close(descriptor) }
        var status = stat()
        fstat(descriptor, &status)
        let size = Int(status.st_size)
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = max(0, read(descriptor, buffer.baseAddress, size))  // all of it, below 2 GiB
        }.count
    }
}

/// Kingfisher's DiskStorage in Foundation: `Data.write(to:options: .atomic)` (on Linux it fsyncs),
/// dates by `setAttributes` (creation = last access, which Linux ignores; modification = expiry,
/// 7 days on), a running total in memory and, past the limit, `removeSizeExceededValues`:
/// enumerate, sort by date (here the modification date), remove oldest first down to 80%. Its
/// folder is flat, as Kingfisher's. Sizes are file sizes rounded up to 4 KiB blocks: Foundation on
/// Linux gives totalFileAllocatedSize as st_blocks x st_blksize, 8 times too much on ext4.
final class FoundationSubject: Subject, @unchecked Sendable {
    let folder: URL, limit: Int64
    private let lock = NSLock(), sweepLock = NSLock()
    private var total: Int64 = 0

    init(folder: URL, limit: Int64) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        (self.folder, self.limit) = (folder, limit)
        total = entries().reduce(0) { $0 + $1.bytes }  // Kingfisher's totalSize()
    }

    private func url(_ key: String) -> URL { folder.appending(path: hashedName(key)) }
    private func blocks(_ size: Int) -> Int64 { Int64((size + 4095) / 4096 * 4096) }

    private func touch(_ url: URL) throws {
        let now = Date()
        try FileManager.default.setAttributes([.creationDate: now, .modificationDate: now + 7 * 86_400],
                                              ofItemAtPath: url.path(percentEncoded: false))
    }

    func set(_ data: Data, for key: String) throws {
        let url = url(key)
        try data.write(to: url, options: .atomic)
        try touch(url)
        if lock.withLock({ total += blocks(data.count); return total > limit }) { sweep() }
    }

    func get(_ key: String) throws -> Int? {
        let url = url(key), data: Data
        do { data = try Data(contentsOf: url) } catch CocoaError.fileReadNoSuchFile { return nil }
        try? touch(url)  // Kingfisher extends the expiry of a hit
        return data.count
    }

    private func sweep() {
        sweepLock.withLock {
            guard lock.withLock({ total > limit }) else { return }  // another thread swept meanwhile
            let files = entries().sorted { $0.date < $1.date }
            var size = files.reduce(0) { $0 + $1.bytes }
            for file in files where size > Int64(Double(limit) * 0.8) {
                try? FileManager.default.removeItem(at: file.url)  // another process may have removed it
                size -= file.bytes
            }
            lock.withLock { total = size }
        }
    }

    private func entries() -> [(url: URL, date: Date, bytes: Int64)] {
        let keys: [URLResourceKey] = [.contentModificationDateKey, .fileSizeKey, .isDirectoryKey]
        let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: keys,
                                                  options: .skipsHiddenFiles)
        return (walk?.allObjects ?? []).compactMap { item in
            guard let url = item as? URL, let values = try? url.resourceValues(forKeys: Set(keys)),
                  values.isDirectory != true else { return nil }
            return (url, values.contentModificationDate ?? .distantPast, blocks(values.fileSize ?? 0))
        }
    }
}
