import Foundation
import Testing
import StowageTestSupport
@testable import Stowage

/// The memory tier: hits without system calls, exact across instances and processes, limited
/// by its capacity, emptied under memory pressure.
@Suite("DiskCache: the memory tier")
struct DiskCacheMemoryTierTests {
    @Test("a repeated hit is served from memory: 1,000 hits make no read system call")
    func hitsMakeNoSystemCall() throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/io") else {
            print("skipped: no /proc/self/io to count read system calls with")
            return
        }
        let folder = TestFolder()
        let helper = try builtProduct("stowage-test-helper")
        let result = try runProcess(helper, ["cache-hits", folder.file("cache").fileSystemPath, "1000"])
        #expect(result.status == 0, "\(result.error)")
        let reads = Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        // Reading /proc/self/io itself is one or two reads; a hit from disk would be at least one each.
        #expect(reads >= 0 && reads <= 3, "1,000 hits made \(reads) read system calls")
        print("memory tier: 1,000 hits made \(reads) read system calls (reading /proc/self/io included)")
    }

    @Test("a hit is served from memory: an entry removed behind the cache's back is still served, until any instance changes the folder")
    func servedFromMemory() throws {
        let folder = TestFolder()
        let url = folder.file("cache")
        let cache = try DiskCache(folder: url)
        try cache.set(Data("value".utf8), for: "k")
        let (fanOut, name) = DiskCache.fileName(for: "k")
        try FileManager.default.removeItem(at: url.appending(path: "\(fanOut)/\(name)"))
        #expect(try cache.data(for: "k") == Data("value".utf8), "from memory")
        try DiskCache(folder: url).set(Data(), for: "another")  // any change by any instance
        #expect(try cache.data(for: "k") == nil, "the generation moved on: read from disk, a miss")
    }

    @Test("another instance's set of the same key is seen at once; so is its remove and removeAll")
    func otherInstances() throws {
        let folder = TestFolder()
        let url = folder.file("cache")
        let reader = try DiskCache(folder: url)
        let writer = try DiskCache(folder: url)
        try writer.set(Data("one".utf8), for: "k")
        #expect(try reader.data(for: "k") == Data("one".utf8))
        #expect(try reader.data(for: "k") == Data("one".utf8), "now in the reader's memory")
        try writer.set(Data("two".utf8), for: "k")
        #expect(try reader.data(for: "k") == Data("two".utf8))
        try writer.remove("k")
        #expect(try reader.data(for: "k") == nil)
        try writer.set(Data("three".utf8), for: "k")
        #expect(try reader.data(for: "k") == Data("three".utf8))
        try writer.removeAll()
        #expect(try reader.data(for: "k") == nil)
    }

    @Test("another process's set of the same key is seen by the next read")
    func otherProcesses() throws {
        let folder = TestFolder()
        let helper = try builtProduct("stowage-test-helper")
        let url = folder.file("cache")
        let cache = try DiskCache(folder: url)
        try cache.set(Data("mine".utf8), for: "p-0")
        #expect(try cache.data(for: "p-0") == Data("mine".utf8))
        // The helper's entries hold SIZE bytes of (index % 251): key p-0 becomes four zero bytes.
        let result = try runProcess(helper, ["cache-set", url.fileSystemPath, "0", "0", "1", "p", "4"])
        #expect(result.status == 0, "\(result.error)")
        #expect(try cache.data(for: "p-0") == Data(count: 4))
        let read = try runProcess(helper, ["cache-get", url.fileSystemPath, "p-0"])
        #expect(read.output == String(decoding: Data(count: 4), as: UTF8.self) + "\n")
    }

    @Test("the tier keeps to its capacity, least recently used out first; entries over a quarter of it are never kept")
    func capacity() throws {
        let folder = TestFolder()
        let url = folder.file("cache")
        let cache = try DiskCache(folder: url, limits: DiskCache.Limits(memoryCapacityBytes: 4000))
        try cache.set(Data(count: 1000), for: "a")
        try cache.set(Data(count: 1000), for: "b")
        try cache.set(Data(count: 1000), for: "c")
        try cache.set(Data(count: 1000), for: "d")
        #expect(cache.memoryCostBytes == 4000, "exactly at its capacity")
        _ = try cache.data(for: "a")  // a is now the most recently used
        try cache.set(Data(count: 1000), for: "e")
        #expect(cache.memoryCostBytes == 4000)
        // b was the least recently used: gone from memory, still on disk.
        let (fanOut, name) = DiskCache.fileName(for: "b")
        let (fanOutA, nameA) = DiskCache.fileName(for: "a")
        try FileManager.default.removeItem(at: url.appending(path: "\(fanOut)/\(name)"))
        try FileManager.default.removeItem(at: url.appending(path: "\(fanOutA)/\(nameA)"))
        #expect(try cache.data(for: "b") == nil, "b was out of memory: read from disk")
        #expect(try cache.data(for: "a") == Data(count: 1000), "a stayed in memory")
        try cache.set(Data(count: 1001), for: "a")  // over a quarter of 4,000
        #expect(cache.memoryCostBytes == 4000 - 1000, "the big entry is not kept, and a's old value neither")
        #expect(try cache.data(for: "a") == Data(count: 1001), "from disk")
        try cache.set(Data(count: 1000), for: "exactly a quarter")
        #expect(cache.memoryCostBytes == 4000)
    }

    /// Issue 30, item 4: the tier served what its own instance's eviction had just removed.
    @Test("an eviction drops what it evicted from the memory tier: four 1 MiB sets into a 3 MiB cache; an entry its own set evicts is no hit either")
    func evictionEmptiesTheTier() throws {
        let folder = TestFolder()
        let url = folder.file("cache")
        let cache = try DiskCache(folder: url, limits: DiskCache.Limits(maximumAllocatedBytes: 3 << 20))
        for index in 1...4 { try cache.set(Data(repeating: UInt8(index), count: 1 << 20), for: "key\(index)") }
        let other = try DiskCache(folder: url, limits: DiskCache.Limits(memoryCapacityBytes: 0))
        #expect(try other.data(for: "key1") == nil, "the set of key4 evicted key1 from disk")
        for index in 1...4 {
            #expect(try cache.data(for: "key\(index)") == other.data(for: "key\(index)"), "key\(index): memory and disk agree")
        }
        // Larger than the size limit: evicted by its own set.
        let small = try DiskCache(folder: folder.file("small"),
                                  limits: DiskCache.Limits(maximumAllocatedBytes: 1 << 20, memoryCapacityBytes: 16 << 20))
        try small.set(Data(count: 1_100_000), for: "big")
        #expect(small.count == 0)
        #expect(try small.data(for: "big") == nil, "not served from memory after its own eviction")
    }

    @Test("expiry holds in memory too; memory pressure empties every tier; capacity 0 turns the tier off")
    func expiryPressureAndOff() throws {
        let folder = TestFolder()
        let cache = try DiskCache(folder: folder.file("cache"))
        // No clock raced: the cache's clock is set (an hour ahead, then past the expiry).
        try DiskCache.$wallClock.withValue({ 1_000 }) { () throws in
            try cache.set(Data("later".utf8), for: "k", expiresAfter: .seconds(3600))
            #expect(try cache.data(for: "k") == Data("later".utf8))
        }
        #expect(cache.memoryCostBytes == 5, "the memory tier holds the entry it must not serve")
        try DiskCache.$wallClock.withValue({ 4_600 }) { () throws in #expect(try cache.data(for: "k") == nil) }
        try cache.remove("k")
        try cache.set(Data("v".utf8), for: "v")
        #expect(cache.memoryCostBytes == 1)
        // The system's warning empties every registered tier; here only this one, so that the
        // memory tiers of tests running at the same time keep theirs.
        MemoryPressure.relieve { $0 === cache.memory }
        #expect(cache.memoryCostBytes == 0)
        #expect(try cache.data(for: "v") == Data("v".utf8), "from disk")
        let off = try DiskCache(folder: folder.file("off"), limits: DiskCache.Limits(memoryCapacityBytes: 0))
        try off.set(Data("v".utf8), for: "v")
        #expect(off.memoryCostBytes == 0)
        expectStowageError(.invalidArgument) { _ = try DiskCache(folder: folder.file("bad"), limits: DiskCache.Limits(memoryCapacityBytes: -1)) }
    }

    @Test("a cache folder made again behind the caches' backs never lets a memory tier see an old generation as current")
    func generationAfterFolderMadeAgain() throws {
        let folder = TestFolder()
        let url = folder.file("cache")
        let x = try DiskCache(folder: url)
        try x.set(Data("v1".utf8), for: "k")
        #expect(try x.data(for: "k") == Data("v1".utf8))
        try FileManager.default.removeItem(at: url)
        let y = try DiskCache(folder: url)
        try y.set(Data("v2".utf8), for: "k")
        try x.set(Data("other".utf8), for: "other")  // x's change takes the new index
        #expect(try x.data(for: "k") == Data("v2".utf8), "x must not serve v1 from memory")
    }

    @Test("keys that are canonically equal but differ in bytes are two entries, in memory as on disk")
    func canonicallyEqualKeys() throws {
        let folder = TestFolder()
        let cache = try DiskCache(folder: folder.file("cache"))
        try cache.set(Data("precomposed".utf8), for: "\u{E9}")
        try cache.set(Data("decomposed".utf8), for: "e\u{301}")
        #expect(try cache.data(for: "\u{E9}") == Data("precomposed".utf8))
        #expect(try cache.data(for: "e\u{301}") == Data("decomposed".utf8))
    }
}
