import Foundation
import Testing
@testable import Stowage

@Suite("Sweeper")
struct SweeperTests {
    static let block: Int64 = 4096
    let base = Date(timeIntervalSince1970: 1_700_000_000)

    /// A cache folder of files `f0` ... `fN-1`, each `sizes[i]` blocks, accessed at base + i hours
    /// and modified at base - i hours (so access order and modification order are opposite).
    func makeCache(_ folder: TestFolder, sizes: [Int], subfolders: Bool = false) throws -> URL {
        let root = folder.url.appending(path: "cache", directoryHint: .isDirectory)
        for (index, blocks) in sizes.enumerated() {
            let relative = subfolders ? "cache/d\(index % 3)/f\(index)" : "cache/f\(index)"
            try folder.write(String(repeating: "x", count: blocks * Int(Self.block)), to: relative)
            let path = folder.file(relative)
            let parent = try OpenFile.openFolder(atPath: path.deletingLastPathComponent().fileSystemPath, followingLinks: false)
            try Sys.setTimes(parent.descriptor, path.lastPathComponent,
                             access: base.timeIntervalSince1970 + Double(index) * 3600,
                             modification: base.timeIntervalSince1970 - Double(index) * 3600)
        }
        return root
    }

    func names(_ report: SweepReport) -> [String] { report.removed.map(\.path).sorted() }

    @Test("a size limit removes the least recently used files first, down to the low watermark")
    func sizeLimitLRU() throws {
        let folder = TestFolder()
        let cache = try makeCache(folder, sizes: Array(repeating: 1, count: 10))
        let policy = SweepPolicy(maximumAllocatedBytes: 8 * Self.block, lowWatermark: 0.5)
        let report = try Sweeper(policy: policy).sweep(cache, now: base.addingTimeInterval(86_400))
        #expect(names(report) == ["f0", "f1", "f2", "f3", "f4", "f5"], "10 blocks down to 4: the six least recently used")
        #expect(report.freedAllocatedBytes == 6 * Self.block)
        #expect(report.keptFileCount == 4)
        #expect(report.keptAllocatedBytes == 4 * Self.block)
        #expect(report.removed.allSatisfy { $0.reason == .size })
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache.fileSystemPath).sorted()
            == [".stowage-last-sweep", "f6", "f7", "f8", "f9"])
        let again = try Sweeper(policy: policy).sweep(cache, now: base.addingTimeInterval(86_400))
        #expect(again.removed.isEmpty, "hysteresis: under the limit, the next sweep has nothing to do")
        #expect(try Sweeper.lastSweep(of: cache)?.removedFileCount == 0)
    }

    /// With an age limit too, files past it are chosen as they are met, which can leave the
    /// victims chosen by size more than enough: a later file is then kept unless it deserves
    /// removal more than the least deserving victim (the selection's shortcut), which must not
    /// keep a file that is older than a victim.
    @Test("among 200 files in a random order, exactly the least recently used go, however the folder lists them",
          arguments: [SweepOrder.leastRecentlyUsed, .oldestModified], [false, true])
    func manyFilesInRandomOrder(order: SweepOrder, ageLimited: Bool) throws {
        var random = SeededRandom(for: "manyFilesInRandomOrder")
        let folder = TestFolder()
        let root = folder.url.appending(path: "cache", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let rank = Array(0..<200).shuffled(using: &random)  // rank[i]: how recently f<i> was used (0 = longest ago)
        let parent = try OpenFile.openFolder(atPath: root.fileSystemPath, followingLinks: false)
        for (index, age) in rank.enumerated() {
            try folder.write(String(repeating: "x", count: Int(Self.block)), to: "cache/f\(index)")
            let time = base.timeIntervalSince1970 + Double(age) * 60
            try Sys.setTimes(parent.descriptor, "f\(index)", access: time, modification: time)
        }
        // 200 blocks over a limit of 100, down to 50: the 150 least recently used (or modified)
        // go; with the age limit, the 60 oldest (age past 82,830 s) by age, 90 more by size.
        let now = base.addingTimeInterval(86_400)
        let policy = SweepPolicy(maximumAllocatedBytes: 100 * Self.block, maximumFileAge: ageLimited ? .seconds(82_830) : nil,
                                 order: order, lowWatermark: 0.5)
        let report = try Sweeper(policy: policy).sweep(root, now: now)
        let expected = rank.enumerated().filter { $0.element < 150 }.map { "f\($0.offset)" }.sorted()
        #expect(names(report) == expected)
        #expect(report.removed.filter { $0.reason == .age }.count == (ageLimited ? 60 : 0))
    }

    @Test("orders: oldest modified first, and largest first")
    func orders() throws {
        let folder = TestFolder()
        let cache = try makeCache(folder, sizes: [1, 5, 2, 1, 3, 1])
        let oldest = try Sweeper(policy: SweepPolicy(maximumAllocatedBytes: 10 * Self.block, order: .oldestModified, lowWatermark: 1))
            .sweep(cache, dryRun: true)
        #expect(names(oldest) == ["f4", "f5"], "modified earliest: the highest indices")
        let largest = try Sweeper(policy: SweepPolicy(maximumAllocatedBytes: 9 * Self.block, order: .largestFirst, lowWatermark: 1))
            .sweep(cache, dryRun: true)
        #expect(names(largest) == ["f1"])
        let largest2 = try Sweeper(policy: SweepPolicy(maximumAllocatedBytes: 6 * Self.block, order: .largestFirst, lowWatermark: 1))
            .sweep(cache, dryRun: true)
        #expect(names(largest2) == ["f1", "f4"])
    }

    @Test("a count limit and an age limit")
    func countAndAge() throws {
        let folder = TestFolder()
        let cache = try makeCache(folder, sizes: Array(repeating: 1, count: 6))
        let counted = try Sweeper(policy: SweepPolicy(maximumCount: 4, lowWatermark: 1)).sweep(cache, dryRun: true)
        #expect(names(counted) == ["f0", "f1"])
        #expect(counted.removed.allSatisfy { $0.reason == .count })
        // Accessed at base + 0...5 hours; now is base + 10 h; older than 7 h: f0, f1, f2.
        let aged = try Sweeper(policy: SweepPolicy(maximumFileAge: .seconds(7 * 3600))).sweep(cache, now: base.addingTimeInterval(10 * 3600))
        #expect(names(aged) == ["f0", "f1", "f2"])
        #expect(aged.removed.allSatisfy { $0.reason == .age })
    }

    @Test("a dry run reports exactly what the real run then removes, emptied folders included")
    func dryRunEqualsRealRun() throws {
        let folder = TestFolder()
        let cache = try makeCache(folder, sizes: [2, 1, 3, 1, 1, 2, 1, 1, 4], subfolders: true)
        let policy = SweepPolicy(maximumAllocatedBytes: 6 * Self.block, lowWatermark: 0.5)
        let dry = try Sweeper(policy: policy).sweep(cache, dryRun: true)
        #expect(folder.exists("cache/d0/f0"), "a dry run removes nothing")
        #expect(try Sweeper.lastSweep(of: cache) == nil)
        let real = try Sweeper(policy: policy).sweep(cache)
        #expect(real.removed == dry.removed)
        #expect(real.removedFolders == dry.removedFolders)
        #expect(real.freedAllocatedBytes == dry.freedAllocatedBytes)
        #expect(!real.removedFolders.isEmpty)
        for removedFolder in real.removedFolders { #expect(!folder.exists("cache/" + removedFolder)) }
        #expect(folder.exists("cache"), "the swept folder itself stays")
    }

    @Test("pinned files, links to the outside and Stowage's own files are never removed")
    func neverRemoved() throws {
        let folder = TestFolder()
        let store = folder.store()
        for index in 0..<6 { try store.save(Data(count: 4096), to: "f\(index)", in: .caches) }
        try store.mark("f0", in: .caches, .pinned)
        try folder.write("outside", to: "outside/keep")
        let caches = folder.path + "/container/Library/Caches"
        try FileManager.default.createSymbolicLink(atPath: caches + "/link", withDestinationPath: folder.path + "/outside")
        try FileManager.default.createSymbolicLink(atPath: caches + "/file-link", withDestinationPath: folder.path + "/outside/keep")
        // Stowage's prefix followed by a combining mark: one character "-\u{301}" to Swift's
        // `hasPrefix`, but reserved by its bytes, as the Store's path check sees it.
        let reserved = RelativePath.reservedPrefix + "\u{301}state"
        #expect(FileManager.default.createFile(atPath: caches + "/" + reserved, contents: Data(count: 4096)))
        let report = try Sweeper(policy: SweepPolicy(maximumAllocatedBytes: 0)).sweep(folder.file("container/Library/Caches"))
        #expect(report.removed.count == 5)
        #expect(report.pinnedItemCount == 1)
        #expect(try store.exists("f0", in: .caches))
        #expect(try folder.read("outside/keep") == "outside")
        #expect(folder.exists("container/Library/Caches/link") && folder.exists("container/Library/Caches/file-link"))
        #expect(FileManager.default.fileExists(atPath: caches + "/" + reserved), "reserved by its bytes")
        #expect(try folder.read("container/Library/Caches/CACHEDIR.TAG").hasPrefix("Signature: 8a477f597d28d172789f06886806bc55"))
    }

    @Test("reclaims leftover temporary files of interrupted writes, once they are old enough")
    func leftovers() throws {
        let folder = TestFolder()
        let cache = try makeCache(folder, sizes: [1])
        try folder.write("torn", to: "cache/sub/.stowage-tmp-1234abcd")
        try folder.write("in progress", to: "cache/.stowage-tmp-99")
        let parent = try OpenFile.openFolder(atPath: cache.fileSystemPath + "/sub", followingLinks: false)
        try Sys.setTimes(parent.descriptor, ".stowage-tmp-1234abcd", access: 0, modification: Date().timeIntervalSince1970 - 7200)
        let report = try Sweeper(policy: SweepPolicy()).sweep(cache)
        #expect(report.removed.map(\.path) == ["sub/.stowage-tmp-1234abcd"])
        #expect(report.removed.first?.reason == .leftover)
        #expect(report.removedFolders == ["sub"])
        #expect(folder.exists("cache/.stowage-tmp-99"), "a young temporary file may belong to a write in progress")
        #expect(folder.exists("cache/f0"))
    }

    @Test("a bad low watermark is invalidArgument")
    func badWatermark() throws {
        let folder = TestFolder()
        let cache = try makeCache(folder, sizes: [1])
        expectStowageError(.invalidArgument) { try Sweeper(policy: SweepPolicy(lowWatermark: 0)).sweep(cache) }
        expectStowageError(.notFound) { try Sweeper(policy: SweepPolicy()).sweep(folder.file("missing")) }
    }

    @Test("reads record access, so least recently used means least recently read")
    func accessRecording() throws {
        let folder = TestFolder()
        let store = folder.store()
        for index in 0..<4 { try store.save(Data(count: 4096), to: "f\(index)", in: .caches) }
        let caches = try OpenFile.openFolder(atPath: folder.path + "/container/Library/Caches", followingLinks: false)
        for index in 0..<4 {
            try Sys.setTimes(caches.descriptor, "f\(index)", access: base.timeIntervalSince1970 + Double(index), modification: base.timeIntervalSince1970)
        }
        _ = try store.retrieve(Data.self, from: "f0", in: .caches)  // f0 becomes the most recently used
        let report = try Sweeper(policy: SweepPolicy(maximumCount: 2, lowWatermark: 1)).sweep(folder.file("container/Library/Caches"), dryRun: true)
        #expect(names(report) == ["f1", "f2"])
    }

    @Test("two processes sweeping one folder at once leave it consistent")
    func twoProcesses() throws {
        let folder = TestFolder()
        let cache = try makeCache(folder, sizes: Array(repeating: 1, count: 300))
        let helper = try builtProduct("stowage-test-helper")
        let processes = try (0..<2).map { _ in
            try ChildProcess(helper, ["sweep", cache.fileSystemPath, String(100 * Self.block), "3"])
        }
        for process in processes {
            let result = try process.finish()
            #expect(result.status == 0, "\(result.error)")
            #expect(result.output.isEmpty, "no issues reported")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: cache.fileSystemPath).filter { $0.hasPrefix("f") }
        #expect(left.count == 100)
        #expect(Set(left) == Set((200..<300).map { "f\($0)" }), "exactly the 100 most recently used remain")
    }
}
