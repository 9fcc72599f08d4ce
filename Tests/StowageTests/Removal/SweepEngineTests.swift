import Foundation
import Testing
@testable import Stowage

/// The removal walk's selection at its edges, and its re-check of every victim before removal,
/// made deterministic by the fault point between choosing and removing.
@Suite("SweepEngine: selection edges and the re-check before removal")
struct SweepEngineTests {
    let base = Date(timeIntervalSince1970: 1_700_000_000)

    /// Files `f0` ... `fN-1` in the container's Caches, one block of data each, accessed at
    /// base + i hours and modified at base - i hours.
    func makeCaches(_ folder: TestFolder, count: Int) throws -> (Store, URL) {
        let store = folder.store()
        for index in 0..<count { try store.save(Data(repeating: UInt8(index), count: 4096), to: "f\(index)", in: .caches) }
        let caches = folder.file("container/Library/Caches")
        let parent = try OpenFile.openFolder(atPath: caches.fileSystemPath, followingLinks: false)
        for index in 0..<count {
            try Sys.setTimes(parent.descriptor, "f\(index)", access: base.timeIntervalSince1970 + Double(index) * 3600,
                             modification: base.timeIntervalSince1970 - Double(index) * 3600)
        }
        return (store, caches)
    }

    /// The allocated bytes of the files `f*` in `folder`, by `lstat` (not Stowage's code).
    func allocated(_ folder: URL) throws -> Int64 {
        try FileManager.default.contentsOfDirectory(atPath: folder.fileSystemPath).filter { $0.hasPrefix("f") }.reduce(0) {
            var status = stat()
            lstat(folder.fileSystemPath + "/" + $1, &status)
            return $0 + Int64(status.st_blocks) * 512
        }
    }

    func names(_ report: SweepReport) -> [String] { report.removed.map(\.path).sorted() }

    @Test("an age limit never removes a pinned file, however old")
    func ageLimitKeepsPins() throws {
        let folder = TestFolder()
        let (store, caches) = try makeCaches(folder, count: 5)
        try store.mark("f0", in: .caches, .pinned)
        try store.mark("f1", in: .caches, .pinned)
        // Accessed at base + 0...4 h; now is base + 10 h; older than 7 h: f0, f1 (pinned) and f2.
        let report = try Sweeper(policy: SweepPolicy(maximumFileAge: .seconds(7 * 3600))).sweep(caches, now: base.addingTimeInterval(10 * 3600))
        #expect(names(report) == ["f2"])
        #expect(report.removed.allSatisfy { $0.reason == .age })
        #expect(report.pinnedItemCount == 2)
        #expect(try store.exists("f0", in: .caches) && store.exists("f1", in: .caches))
    }

    @Test("a total exactly at the size or count limit is within it: nothing goes, even with a low watermark below 1")
    func exactlyAtTheLimit() throws {
        let folder = TestFolder()
        let (_, caches) = try makeCaches(folder, count: 4)
        let total = try allocated(caches)
        let atSize = try Sweeper(policy: SweepPolicy(maximumAllocatedBytes: total, lowWatermark: 0.5)).sweep(caches, dryRun: true)
        #expect(atSize.removed.isEmpty, "\(names(atSize))")
        let atCount = try Sweeper(policy: SweepPolicy(maximumCount: 4, lowWatermark: 0.5)).sweep(caches, dryRun: true)
        #expect(atCount.removed.isEmpty, "\(names(atCount))")
        // One byte or one file over: down to the watermark (half of a byte less than 4 files: 1 file).
        let overSize = try Sweeper(policy: SweepPolicy(maximumAllocatedBytes: total - 1, lowWatermark: 0.5)).sweep(caches, dryRun: true)
        #expect(names(overSize) == ["f0", "f1", "f2"])
        let overCount = try Sweeper(policy: SweepPolicy(maximumCount: 3, lowWatermark: 0.5)).sweep(caches, dryRun: true)
        #expect(names(overCount) == ["f0", "f1", "f2"], "3 files x 0.5 rounds down to 1 kept")
    }

    @Test("each order chooses its victims among all the files, whatever order the folder lists them in", arguments: [
        (SweepOrder.leastRecentlyUsed, ["f0", "f1", "f2"]), (.oldestModified, ["f197", "f198", "f199"]),
        (.largestFirst, ["f197", "f198", "f199"]),
    ])
    func victimsAmongAll(order: SweepOrder, expected: [String]) throws {
        // 200 files, 3 must go: once the victims found first cover the need, each later file
        // must still displace one that deserves removal less (the folder's listing order is
        // the file system's, unrelated to the names).
        let folder = TestFolder()
        let (store, caches) = try makeCaches(folder, count: 200)
        for (index, blocks) in [(197, 2), (198, 3), (199, 4)] {
            try store.save(Data(repeating: 1, count: 4096 * blocks), to: "f\(index)", in: .caches)
        }
        let parent = try OpenFile.openFolder(atPath: caches.fileSystemPath, followingLinks: false)
        for index in 197..<200 {
            try Sys.setTimes(parent.descriptor, "f\(index)", access: base.timeIntervalSince1970 + Double(index) * 3600,
                             modification: base.timeIntervalSince1970 - Double(index) * 3600)
        }
        let report = try Sweeper(policy: SweepPolicy(maximumCount: 197, order: order, lowWatermark: 1)).sweep(caches, dryRun: true)
        #expect(names(report) == expected)
    }

    @Test("a victim replaced or changed after it was chosen is kept and reported, not removed")
    func changedAfterChoosing() throws {
        let folder = TestFolder()
        let (_, caches) = try makeCaches(folder, count: 4)
        let probe = TestProbe()
        // Between choosing f0 and f1 (the least recently used) and removing them: f0 replaced by
        // a new file (another inode), f1 rewritten in place (same inode, a new modification time).
        probe.on(.sweepChosen) { _ in
            try Data("new f0".utf8).write(to: caches.appending(path: "f0"), options: .atomic)
            let handle = try FileHandle(forWritingTo: caches.appending(path: "f1"))
            try handle.write(contentsOf: Data("changed".utf8))
            try handle.close()
            let parent = try OpenFile.openFolder(atPath: caches.fileSystemPath, followingLinks: false)
            try Sys.setTimes(parent.descriptor, "f1", access: 0, modification: base.timeIntervalSince1970 + 99)
        }
        let report = try TestProbe.$installed.withValue(probe) {
            try Sweeper(policy: SweepPolicy(maximumCount: 2, lowWatermark: 1)).sweep(caches)
        }
        #expect(probe.hits(of: .sweepChosen) == 1)
        #expect(report.removed.isEmpty, "\(names(report))")
        #expect(try Data(contentsOf: caches.appending(path: "f0")) == Data("new f0".utf8))
        #expect(try Data(contentsOf: caches.appending(path: "f1")).prefix(7) == Data("changed".utf8))
        let kept = report.issues.filter { $0.message.contains("changed since it was chosen; kept") }.map(\.path).sorted()
        #expect(kept == [caches.fileSystemPath + "/f0", caches.fileSystemPath + "/f1"], "\(report.issues)")
        #expect(report.keptFileCount == 4)
    }

    @Test("a victim removed by someone else after it was chosen is neither an error nor reported removed")
    func removedAfterChoosing() throws {
        let folder = TestFolder()
        let (_, caches) = try makeCaches(folder, count: 3)
        let probe = TestProbe()
        probe.on(.sweepChosen) { _ in try FileManager.default.removeItem(at: caches.appending(path: "f0")) }
        let report = try TestProbe.$installed.withValue(probe) {
            try Sweeper(policy: SweepPolicy(maximumCount: 1, lowWatermark: 1)).sweep(caches)
        }
        #expect(names(report) == ["f1"])
        #expect(report.issues.isEmpty, "\(report.issues)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: caches.fileSystemPath).filter { $0.hasPrefix("f") } == ["f2"])
    }

    @Test("pins are read for the chosen only: pinned files among them stay, counted once, and the next in order go in their place, over as many walks as it takes")
    func pinnedAmongChosen() throws {
        let folder = TestFolder()
        let (_, caches) = try makeCaches(folder, count: 10)
        // The five least recently used are pinned: the first walk chooses f0-f2 (all pinned), the
        // next f3-f5 (f3 and f4 pinned), the last f5-f7.
        for index in 0..<5 { try SweeperItemTests().pinFile(caches.appending(path: "f\(index)")) }
        let report = try Sweeper(policy: SweepPolicy(maximumCount: 9, lowWatermark: 0.8)).sweep(caches)
        #expect(names(report) == ["f5", "f6", "f7"], "10 files, 7 kept: 3 go, the least recently used not pinned")
        #expect(report.pinnedItemCount == 5, "each pinned file chosen counts once")
        let left = try allocated(caches)
        #expect(report.keptFileCount == 7 && report.keptAllocatedBytes == left, "pinned files are kept files")
        #expect(report.issues.isEmpty, "\(report.issues)")
        // By size, in a nested folder, with one pinned file that is never among the chosen.
        let other = TestFolder()
        let nested = try makeCaches(other, count: 4).1
        try FileManager.default.createDirectory(at: nested.appending(path: "sub"), withIntermediateDirectories: false)
        try FileManager.default.moveItem(at: nested.appending(path: "f0"), to: nested.appending(path: "sub/f0"))
        try SweeperItemTests().pinFile(nested.appending(path: "sub/f0"))
        try SweeperItemTests().pinFile(nested.appending(path: "f3"))
        let total = try allocated(nested) + allocated(nested.appending(path: "sub"))
        let bySize = try Sweeper(policy: SweepPolicy(maximumAllocatedBytes: total - 1, lowWatermark: 1)).sweep(nested)
        #expect(names(bySize) == ["f1"], "sub/f0 is older but pinned")
        #expect(bySize.pinnedItemCount == 1, "f3 was never chosen, so never counted")
        #expect(bySize.keptFileCount == 3)
    }

    @Test("a chosen file whose absolute path is too long to read its pin by has it read through its folder: pinned, it stays")
    func pinnedBeyondPathLength() throws {
        let folder = TestFolder()
        let (_, caches) = try makeCaches(folder, count: 2)
        // 17 folders of 240 bytes: the absolute paths of the files in the last pass 4,000 bytes.
        var deep = try OpenFile.openFolder(atPath: caches.fileSystemPath, followingLinks: false)
        let name = String(repeating: "d", count: 240)
        for _ in 0..<17 {
            try deep.createFolder(name, mode: FilePermissions(rawValue: 0o755))
            deep = try deep.openFolder(name)
        }
        for (index, file) in ["old", "older"].enumerated() {
            try OpenFile(adopting: Sys.openat(deep.descriptor, file, Sys.readWriteCreate, mode: FilePermissions(rawValue: 0o644)))
                .writeAll(Data(count: 4096))
            let time = base.timeIntervalSince1970 - Double(index + 1) * 3600
            try Sys.setTimes(deep.descriptor, file, access: time, modification: time)
        }
        let older = try deep.openForReading("older")
        try ExtendedAttributes.set(Marker.pinned.attribute, to: Marker.setValue, on: older.descriptor)
        // Four files, three kept: the least recently used, "older", is pinned, so "old" goes.
        let report = try Sweeper(policy: SweepPolicy(maximumCount: 3, lowWatermark: 1)).sweep(caches)
        #expect(report.removed.map { $0.path.split(separator: "/").last.map(String.init) } == ["old"])
        #expect(report.pinnedItemCount == 1)
        #expect(try deep.statusIfPresent(of: RawPath("older")) != nil && deep.statusIfPresent(of: RawPath("old")) == nil)
    }

    @Test("a chosen file gone with its folder before its pin is read is no issue, and nothing is chosen in its place")
    func chosenGoneBeforeItsPin() throws {
        let folder = TestFolder()
        let (_, caches) = try makeCaches(folder, count: 3)
        try FileManager.default.createDirectory(at: caches.appending(path: "sub"), withIntermediateDirectories: false)
        try FileManager.default.moveItem(at: caches.appending(path: "f0"), to: caches.appending(path: "sub/f0"))
        let probe = TestProbe()
        probe.on(.sweepWalked) { _ in try FileManager.default.removeItem(at: caches.appending(path: "sub")) }
        let report = try TestProbe.$installed.withValue(probe) {
            try Sweeper(policy: SweepPolicy(maximumCount: 2, lowWatermark: 1)).sweep(caches)
        }
        #expect(probe.hits(of: .sweepWalked) == 1)
        #expect(names(report).isEmpty && report.issues.isEmpty, "\(names(report)) \(report.issues)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: caches.fileSystemPath).filter { $0.hasPrefix("f") }.sorted() == ["f1", "f2"])
    }

    @Test("many pinned files among the least recently used cost one walk more, not one walk per pinned file: the same file goes, each pinned file counted once")
    func manyPinnedAmongChosen() throws {
        let folder = TestFolder()
        let (_, caches) = try makeCaches(folder, count: 24)
        // One file over the count: each walk that reads no pin chooses one file, and the 20 least
        // recently used are pinned, so choosing walk after walk would take 21 walks of the tree.
        for index in 0..<20 { try SweeperItemTests().pinFile(caches.appending(path: "f\(index)")) }
        let probe = TestProbe()
        let report = try TestProbe.$installed.withValue(probe) {
            try Sweeper(policy: SweepPolicy(maximumCount: 23, lowWatermark: 1)).sweep(caches)
        }
        #expect(probe.hits(of: .sweepWalked) <= 2, "\(probe.hits(of: .sweepWalked)) choosing walks")
        #expect(names(report) == ["f20"])
        #expect(report.pinnedItemCount == 20)
        #expect(report.keptFileCount == 23 && report.issues.isEmpty, "\(report.issues)")
        // Two over, f0, f2 and f3 pinned: walks without pins would choose f0 f1, f1 f2, f1 f3, f1 f4.
        let other = TestFolder()
        let spread = try makeCaches(other, count: 8).1
        for index in [0, 2, 3] { try SweeperItemTests().pinFile(spread.appending(path: "f\(index)")) }
        let second = TestProbe()
        let byCount = try TestProbe.$installed.withValue(second) {
            try Sweeper(policy: SweepPolicy(maximumCount: 6, lowWatermark: 1)).sweep(spread, dryRun: true)
        }
        #expect(second.hits(of: .sweepWalked) <= 2)
        #expect(names(byCount) == ["f1", "f4"])
        #expect(byCount.pinnedItemCount == 3, "f0, f2 and f3 rank before f4")
    }

    @Test("a cancellation while the walk is made again for pinned files among the chosen is heeded there: the dry run, as the real run, ends cancelled with nothing chosen")
    func cancelledWhileWalkingAgain() throws {
        for dryRun in [true, false] {
            let folder = TestFolder()
            let (_, caches) = try makeCaches(folder, count: 8)
            // Two files over the count: the first choosing walk takes f0 and f1, f0 is pinned.
            try SweeperItemTests().pinFile(caches.appending(path: "f0"))
            let flag = CancellationFlag()
            let probe = TestProbe()
            probe.on(.sweepWalked) { hit in if hit == 1 { flag.cancel() } }
            let root = try OpenFile.openFolder(atPath: caches.fileSystemPath, followingLinks: false)
            let report = try TestProbe.$installed.withValue(probe) {
                try Removal.run(root: root, path: caches.fileSystemPath, .limits(SweepPolicy(maximumCount: 6, lowWatermark: 1)),
                                dryRun: dryRun, cancellation: flag)
            }
            #expect(probe.hits(of: .sweepWalked) == 1, "dry run \(dryRun): cancelled during the second choosing walk")
            #expect(report.wasCancelled && report.removed.isEmpty, "dry run \(dryRun): \(names(report))")
            #expect(try FileManager.default.contentsOfDirectory(atPath: caches.fileSystemPath).filter { $0.hasPrefix("f") }.count == 8)
        }
    }
}
