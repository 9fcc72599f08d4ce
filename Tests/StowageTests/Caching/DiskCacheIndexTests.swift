import Foundation
import Testing
import StowageTestSupport
@testable import Stowage
#if canImport(Glibc)
import Glibc
#endif

/// The shared index of a cache's folder, damaged from outside while caches use it: cut short,
/// overwritten, replaced by something else, removed with its folder in the middle of a change.
/// Never fatal, never a negative or wrong figure once asked, rebuilt by the next change.
@Suite("DiskCache: an index damaged from outside is rebuilt, never fatal")
struct DiskCacheIndexTests {
    func cutShort(_ index: URL, to length: Int) throws {
        let path = index.fileSystemPath
        #expect(truncate(path, off_t(length)) == 0, "truncate \(path): errno \(errno)")
    }

    @Test("an index cut to 0, 7 or 39 bytes under a cache with a memory tier: hits, figures and the next change are right, no SIGBUS",
          arguments: [0, 7, 39])
    func cutShortInProcess(length: Int) throws {
        let folder = TestFolder()
        let url = folder.file("cache")
        let cache = try DiskCache(folder: url, limits: DiskCache.Limits(maximumCount: 100))
        for key in 0..<5 { try cache.set(Data("value \(key)".utf8), for: "k\(key)") }
        #expect(try cache.data(for: "k0") == Data("value 0".utf8))  // now in memory
        try cutShort(url.appending(path: CacheIndex.name), to: length)
        // A memory hit loads the generation from the mapping first: SIGBUS before, when the
        // file no longer reaches the mapped page.
        for _ in 0..<3 { #expect(try cache.data(for: "k0") == Data("value 0".utf8)) }
        #expect(try cache.data(for: "k4") == Data("value 4".utf8))
        try expectIndexAgrees(cache, url, "cut to \(length) bytes, before any change")
        try cache.set(Data("value 5".utf8), for: "k5")
        try expectIndexAgrees(cache, url, "cut to \(length) bytes, after the next set")
        try expectIndexAgrees(try DiskCache(folder: url), url, "cut to \(length) bytes, reopened")
        #expect(try cache.data(for: "k5") == Data("value 5".utf8))
        try cutShort(url.appending(path: CacheIndex.name), to: length)
        try cache.remove("k1")  // a change straight after the cut: its own loads survive it too
        try expectIndexAgrees(cache, url, "cut to \(length) bytes, after a removal")
        #expect(try cache.data(for: "k1") == nil)
    }

    @Test("three processes reading a cache in memory while its index is cut to 0 bytes all live on and read right")
    func cutShortUnderProcesses() throws {
        let folder = TestFolder()
        let helper = try builtProduct("stowage-test-helper")
        let url = folder.file("cache")
        _ = try DiskCache(folder: url)
        let stop = folder.file("stop")
        let readers = try (0..<3).map { _ in try ChildProcess(helper, ["cache-read-until", url.fileSystemPath, stop.fileSystemPath]) }
        for reader in readers { _ = try reader.read(until: "ready\n", within: .seconds(120)) }
        try cutShort(url.appending(path: CacheIndex.name), to: 0)
        try Data().write(to: stop)  // each reader reads 100 times more after seeing it: after the cut
        for (number, reader) in readers.enumerated() {
            let result = try reader.finish(within: .seconds(120))
            #expect(result.status == 0 && result.signal == nil,
                    "reader \(number) ended with status \(result.status), signal \(result.signal.map(String.init) ?? "none"): \(result.error)")
        }
        let cache = try DiskCache(folder: url)
        try expectIndexAgrees(cache, url, "after the readers")
        #expect(try cache.data(for: "hot") == Data("hot".utf8))
    }

    @Test("random bytes over the index, with and without its magic number: figures never negative, equal to the folder's, and the next set is right")
    func randomBytes() throws {
        var random = SeededRandom(for: "randomBytes")
        let folder = TestFolder()
        let url = folder.file("cache")
        let cache = try DiskCache(folder: url, limits: DiskCache.Limits(maximumAllocatedBytes: 200_000))
        let index = url.appending(path: CacheIndex.name)
        for round in 0..<40 {
            try cache.set(Data(count: Int.random(in: 1...20_000, using: &random)), for: "k\(round % 12)")
            var bytes = (0..<64).map { _ in UInt8.random(in: .min ... .max, using: &random) }
            if round.isMultiple(of: 2) {  // an index's magic and a settled state, then garbage totals
                withUnsafeBytes(of: CacheIndex.magic.littleEndian) { bytes.replaceSubrange(0..<8, with: $0) }
                bytes.replaceSubrange(8..<16, with: [UInt8](repeating: 0, count: 8))
            }
            let handle = try FileHandle(forWritingTo: index)
            try handle.write(contentsOf: Data(bytes))
            try handle.close()
            #expect(cache.count >= 0 && cache.allocatedBytes >= 0,
                    "round \(round): count \(cache.count), allocated bytes \(cache.allocatedBytes)")
            try expectIndexAgrees(cache, url, "round \(round), random bytes over the index")
            #expect(try cache.data(for: "k\(round % 12)") != nil)
        }
        try expectIndexAgrees(cache, url, "at the end")
        #expect(try CacheFolder.entries(in: url).allocatedBytes <= 200_000)
    }

    @Test("an index with its magic, a settled state and plausible totals, but the wrong check word, is not trusted: the figures are the folder's")
    func plausibleWithoutCheck() throws {
        // Random bytes almost never pass the other checks (totals not negative, whole 512-byte
        // units); these do, so only the check word can tell.
        let folder = TestFolder()
        let url = folder.file("cache")
        let cache = try DiskCache(folder: url, limits: DiskCache.Limits(maximumAllocatedBytes: 200_000, memoryCapacityBytes: 0))
        try cache.set(Data(count: 100), for: "k")
        let words: [UInt64] = [CacheIndex.magic, 0, 40 * 4096, 40, 12_345, 0x0123_4567_89AB_CDEF, 0, 0]
        var bytes = Data()
        for word in words { withUnsafeBytes(of: word.littleEndian) { bytes.append(contentsOf: $0) } }
        let handle = try FileHandle(forWritingTo: url.appending(path: CacheIndex.name))
        try handle.write(contentsOf: bytes)
        try handle.close()
        #expect(cache.count == 1, "count \(cache.count), allocated bytes \(cache.allocatedBytes)")
        try expectIndexAgrees(cache, url, "a plausible index without its check word")
    }

    /// What can be put at the index's name, and what must be true of it afterwards.
    enum InTheWay: String, CaseIterable, Sendable {
        case fifo, linkToAFile, danglingLink, emptyFolder, hardLink, folderWithEntries
    }

    @Test("something else at the index's name is cleared when it holds no data (never followed, never blocking), or named in the error",
          arguments: InTheWay.allCases)
    func somethingInTheWay(kind: InTheWay) throws {
        let folder = TestFolder()
        let url = folder.file("cache")
        let cache = try DiskCache(folder: url, limits: DiskCache.Limits(maximumCount: 10, memoryCapacityBytes: 0))
        try cache.set(Data("kept".utf8), for: "kept")
        let index = url.appending(path: CacheIndex.name)
        let outside = folder.file("outside")
        try Data("someone's".utf8).write(to: outside)
        try FileManager.default.removeItem(at: index)
        switch kind {
        case .fifo: #expect(mkfifo(index.fileSystemPath, 0o644) == 0)
        case .linkToAFile: try FileManager.default.createSymbolicLink(atPath: index.fileSystemPath, withDestinationPath: outside.fileSystemPath)
        case .danglingLink: try FileManager.default.createSymbolicLink(atPath: index.fileSystemPath, withDestinationPath: folder.file("nothing").fileSystemPath)
        case .emptyFolder: try FileManager.default.createDirectory(at: index, withIntermediateDirectories: false)
        case .hardLink: #expect(link(outside.fileSystemPath, index.fileSystemPath) == 0)
        case .folderWithEntries:
            try FileManager.default.createDirectory(at: index, withIntermediateDirectories: false)
            try Data("inside".utf8).write(to: index.appending(path: "file"))
        }
        func expectRefused(_ body: () throws -> Void) {
            let error = expectStowageError(.wrongKind, body)
            #expect(error?.path == index.fileSystemPath, "the error names the index, not a key: \(String(describing: error))")
            #expect(error?.description.contains("folder with entries") == true, "\(String(describing: error))")
        }
        if kind == .folderWithEntries {
            expectRefused { try cache.set(Data("new".utf8), for: "new") }
            expectRefused { _ = try DiskCache(folder: url) }
            #expect(try Data(contentsOf: index.appending(path: "file")) == Data("inside".utf8), "nothing of it removed")
        } else {
            try cache.set(Data("new".utf8), for: "new")  // the open instance's next change clears the name
            #expect(try cache.data(for: "new") == Data("new".utf8))
            try expectIndexAgrees(cache, url, "\(kind), the open instance")
            var status = stat()
            #expect(lstat(index.fileSystemPath, &status) == 0 && status.st_mode & S_IFMT == S_IFREG && status.st_nlink == 1)
            // And for a new instance, with the same thing put there again.
            try FileManager.default.removeItem(at: index)
            if kind == .fifo { #expect(mkfifo(index.fileSystemPath, 0o644) == 0) }
            if kind == .emptyFolder { try FileManager.default.createDirectory(at: index, withIntermediateDirectories: false) }
            if kind == .linkToAFile { try FileManager.default.createSymbolicLink(atPath: index.fileSystemPath, withDestinationPath: outside.fileSystemPath) }
            let reopened = try DiskCache(folder: url)
            try expectIndexAgrees(reopened, url, "\(kind), a new instance")
            #expect(try reopened.data(for: "kept") == Data("kept".utf8))
        }
        #expect(try Data(contentsOf: outside) == Data("someone's".utf8), "a link's target and a hard link's other name keep their bytes")
    }

    @Test("a folder removed in the middle of a change: the call succeeds, a set making the folder again within it", arguments: ["set", "remove", "sweep"])
    func folderRemovedMidChange(operation: String) throws {
        let folder = TestFolder()
        let url = folder.file("cache")
        let cache = try DiskCache(folder: url, limits: DiskCache.Limits(maximumCount: 3, memoryCapacityBytes: 0))
        try cache.set(Data("old".utf8), for: "old")
        let probe = TestProbe()
        probe.on(.cacheChanging) { hit in
            if hit == 1 { try FileManager.default.removeItem(at: url) }  // as Caches cleared just then
        }
        try TestProbe.$installed.withValue(probe) {
            switch operation {
            case "set": try cache.set(Data("new".utf8), for: "new")
            case "remove": try cache.remove("old")
            default: try cache.sweep()
            }
        }
        // A set made the folder again within the call (it failed with ENOENT before); a removal
        // or a sweep of a removed folder has nothing left to do, and the next call makes it again.
        if operation == "set" {
            #expect(FileManager.default.fileExists(atPath: url.fileSystemPath), "the set made its folder again")
            #expect(try cache.data(for: "new") == Data("new".utf8))
        } else {
            try cache.set(Data("next".utf8), for: "next")
            #expect(try cache.data(for: "next") == Data("next".utf8))
        }
        #expect(try cache.data(for: "old") == nil, "removed with the folder")
        try expectIndexAgrees(cache, url, "after \(operation)")
    }
}
