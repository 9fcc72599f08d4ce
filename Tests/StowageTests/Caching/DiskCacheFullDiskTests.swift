import Foundation
import Testing
import StowageTestSupport
@testable import Stowage

/// A set on a full volume evicts the cache's own least recently used entries and tries once
/// more; failing that, `noSpace` naming the key, and never a torn entry.
@Suite("DiskCache: a full disk")
struct DiskCacheFullDiskTests {
    @Test("on a full volume a set makes room from the least recently used entries; one that cannot fit is noSpace naming its key")
    func fullVolume() throws {
        let folder = TestFolder()
        let volume = try ScratchVolume.mount(size: "8m", in: folder)
        let url = volume.url.appending(path: "cache")
        let cache = try DiskCache(folder: url, limits: DiskCache.Limits(memoryCapacityBytes: 0))
        // Eight entries of 2 pages each, used oldest first: "e0" is the least recently used.
        for index in 0..<8 {
            try cache.set(Data(repeating: UInt8(index), count: 6000), for: "e\(index)")
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: Double(index - 100))],
                                                  ofItemAtPath: entryPath(url, "e\(index)"))
            try setAccessTime(entryPath(url, "e\(index)"), Date(timeIntervalSinceNow: Double(index - 100)))
        }
        let report = try Filler(plan: FillPlan(volume: volume.url, goal: .leaving(0))).fill()
        #expect(report.ending == .goalReached)
        #expect(try OpenFile.openFolder(atPath: volume.path, followingLinks: true).spaceFigures().available == 0)

        // 6,000 bytes of data need two pages: the least recently used entries make room.
        try cache.set(Data(repeating: 0xEE, count: 6000), for: "new")
        #expect(try cache.data(for: "new") == Data(repeating: 0xEE, count: 6000))
        #expect(try cache.data(for: "e0") == nil, "the least recently used entry made room")
        #expect(try cache.data(for: "e7") == Data(repeating: 7, count: 6000), "the most recently used stayed")
        let disk = try CacheFolder.entries(in: url)
        #expect(cache.count == disk.files && cache.allocatedBytes == disk.allocatedBytes)

        // More than all the cache holds: evicting everything is not enough.
        let error = expectStowageError(.noSpace) { try cache.set(Data(count: 1 << 20), for: "too big to fit") }
        #expect(error?.path?.contains("[too big to fit]") == true, "the error names the key: \(String(describing: error))")
        #expect(try cache.data(for: "too big to fit") == nil, "no torn entry")
        #expect(folder.leftoverTemporaryItems(prefixes: [TemporaryItem.prefix]).isEmpty, "no temporary file left")
        let after = try CacheFolder.entries(in: url)
        #expect(after.files == disk.files, "a write that cannot fit evicts nothing: \(after.files) of \(disk.files) entries left")
        let reopened = try DiskCache(folder: url, limits: DiskCache.Limits(memoryCapacityBytes: 0))
        #expect(reopened.count == after.files && reopened.allocatedBytes == after.allocatedBytes)

        // An empty cache on a full volume has nothing to give: noSpace at once.
        let empty = try DiskCache(folder: url.appending(path: "../empty-cache"), limits: DiskCache.Limits(memoryCapacityBytes: 0))
        _ = try? Filler(plan: FillPlan(volume: volume.url, goal: .leaving(0))).fill()
        let emptyError = expectStowageError(.noSpace) { try empty.set(Data(count: 6000), for: "first") }
        #expect(emptyError?.path?.contains("[first]") == true)
        #expect(try empty.data(for: "first") == nil)
        try FillFolder(in: volume.url).release()
    }

    /// Issue 30, item 1: a set that evicts for room must get that room. Twelve 3,000-byte entries
    /// into a cache limited to 40,000 bytes, on a 4 MiB ext4 volume (no blocks reserved for root,
    /// so that the tests, run as root, meet a full disk too) with exactly N bytes available, for
    /// every block of N from 24 KiB to 56 KiB, in blocks of 4 KiB (the issue's) and of 1 KiB
    /// (`mkfs.ext4`'s for small images). The cache is made on the full volume: its container's
    /// folders, tag and index take six blocks of N, and its staging folder (made by the first set,
    /// kept) one more. From 36 KiB, what is left holds one entry and its fan-out folder, and the
    /// room evicting it frees holds the next: every set must succeed (at 32 KiB the first fails,
    /// the staging folder leaving room for the entry but not its fan-out folder). Before the fix,
    /// at N = 40 KiB `k2` evicted, wrote its sweep record into the block it had freed, and threw
    /// `noSpace`.
    @Test("on a volume with exactly N bytes free (every block from 24 to 56 KiB), an eviction made for room leaves the room: from 36 KiB every set succeeds; a set that fails evicts nothing; no record",
          .hangLimit, arguments: [4096, 1024])
    func evictionLeavesItsRoom(blockSize: Int) throws {
        let folder = TestFolder()
        let volume = try ScratchVolume.mountExt4(megabytes: 4, blockSize: blockSize, reservedPercent: 0, in: folder)
        var failures: [String] = []
        // From 24 KiB, where the cache's own folders leave no room for an entry: sets fail there,
        // evicting nothing, and the index stays exact.
        for available in stride(from: Int64(24 << 10), through: 56 << 10, by: blockSize) {
            let root = volume.url.appending(path: "n\(available)", directoryHint: .isDirectory)
            let report = try Filler(plan: FillPlan(volume: volume.url, goal: .leaving(available))).fill()
            try #require(report.ending == .goalReached)
            let figures = try OpenFile.openFolder(atPath: volume.path, followingLinks: true).spaceFigures()
            try #require(figures.available == available && figures.blockSize == blockSize)
            // Made on the full volume: its folders, `CACHEDIR.TAG` and index take five blocks of N.
            let cache = try DiskCache(name: "c", in: Container(root: root),
                                      limits: DiskCache.Limits(maximumAllocatedBytes: 40_000, memoryCapacityBytes: 0))
            for index in 0..<12 {
                let value = Data(repeating: UInt8(index), count: 3000)
                let before = try CacheFolder.entries(in: cache.folder)
                do {
                    try cache.set(value, for: "k\(index)")
                } catch let error as StowageError {
                    #expect(error.code == .noSpace && error.path?.hasSuffix("[k\(index)]") == true, "\(error)")
                    if available >= 36 << 10 { failures.append("N = \(available): k\(index) threw \(error.code)") }
                    let after = try CacheFolder.entries(in: cache.folder)
                    #expect(after.files == before.files, "N = \(available): a failed set evicted \(before.files - after.files) entries")
                    continue
                }
                #expect(try cache.data(for: "k\(index)") == value)
                #expect(cache.allocatedBytes <= 40_000)
            }
            let disk = try CacheFolder.entries(in: cache.folder)
            #expect(cache.count == disk.files && cache.allocatedBytes == disk.allocatedBytes,
                    "N = \(available): the index says \(cache.count) entries of \(cache.allocatedBytes) bytes, the folder holds \(disk)")
            #expect(try Sweeper.lastSweep(of: cache.folder) == nil, "N = \(available): an eviction left a sweep record")
            #expect(folder.leftoverTemporaryItems(prefixes: [TemporaryItem.prefix]).isEmpty)
            try FillFolder(in: volume.url).release()
            try FileManager.default.removeItem(at: root)  // the scratch volume's own folder
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    private func entryPath(_ url: URL, _ key: String) -> String {
        let (fanOut, name) = DiskCache.fileName(for: key)
        return url.appending(path: "\(fanOut)/\(name)").path(percentEncoded: false)
    }

    private func setAccessTime(_ path: String, _ date: Date) throws {
        let seconds = date.timeIntervalSince1970
        var times = [timespec(tv_sec: Int(seconds), tv_nsec: 0), timespec(tv_sec: Int(seconds), tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    }
}
