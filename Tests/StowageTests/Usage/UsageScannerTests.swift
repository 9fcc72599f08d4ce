import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

@Suite("UsageScanner", .hangLimit)  // an await that never ends fails
struct UsageScannerTests {
    /// `du -s` of `path` with `flags`, in bytes.
    static func du(_ flags: [String], _ path: String) throws -> Int64 {
        let result = try runProcess(try requireToolURL("du"), ["-s"] + flags + [path])
        return try #require(Int64(result.output.split(separator: "\t").first ?? ""), "du said: \(result.error)")
    }

    /// A tree with everything du has opinions about: nesting, a hard link within and across
    /// folders, a sparse file, links to files, to folders, dangling and looping, and names with
    /// spaces, newlines, Unicode and a leading dot.
    static func makeTree(in folder: TestFolder) throws -> String {
        let root = folder.path + "/tree"
        let files = FileManager.default
        try folder.write(String(repeating: "a", count: 10_000), to: "tree/a/one.txt")
        try folder.write(String(repeating: "b", count: 5000), to: "tree/a/b/two.txt")
        try folder.write(String(repeating: "c", count: 70_000), to: "tree/a/b/c/three.bin")
        try folder.write("", to: "tree/empty")
        try folder.write(String(repeating: "d", count: 1234), to: "tree/with space and\nnewline")
        try folder.write(String(repeating: "e", count: 999), to: "tree/ünïcödé/.hidden")
        try files.linkItem(atPath: root + "/a/one.txt", toPath: root + "/hard-link-1")
        try files.linkItem(atPath: root + "/a/one.txt", toPath: root + "/a/b/hard-link-2")
        _ = FileManager.default.createFile(atPath: root + "/sparse.img", contents: nil)
        #expect(truncate(root + "/sparse.img", 50_000_000) == 0)
        try files.createSymbolicLink(atPath: root + "/link-to-file", withDestinationPath: "a/one.txt")
        try files.createSymbolicLink(atPath: root + "/link-to-folder", withDestinationPath: "a")
        try files.createSymbolicLink(atPath: root + "/dangling", withDestinationPath: "/no/such/target")
        try files.createSymbolicLink(atPath: root + "/a/b/loop", withDestinationPath: "..")
        return root
    }

    @Test("logical and allocated totals match du -s -b and du -s -B1 exactly")
    func matchesDu() throws {
        let folder = TestFolder()
        let root = try Self.makeTree(in: folder)
        let report = UsageScanner().scan([URL(filePath: root)])
        #expect(report.allocatedBytes == (try Self.du(["-B1"], root)))
        #expect(report.logicalBytes == (try Self.du(["-b"], root)))
        #expect(report.totals.fileCount == 7, "hard links count once")
        #expect(report.skippedHardLinkCount == 2)
        #expect(report.totals.folderCount == 5)
        #expect(report.totals.symbolicLinkCount == 4)
        #expect(report.issues.isEmpty)
        #expect(report.logicalBytes > 50_000_000 && report.allocatedBytes < 1_000_000, "the sparse file is logical only")
    }

    @Test("a wide folder shared between workers counts each entry once: totals as du, hard links once, every sub-folder read")
    func wideFolderShared() throws {
        let folder = TestFolder()
        let root = folder.path + "/wide"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        // 3,000 files (a worker hands entries over every 256), 60 of them hard-linked twice
        // more from the same folder, 40 folders each with a file, names of every length.
        for index in 0..<3000 {
            let name = String(repeating: "f", count: index % 200 + 1) + "\(index)"
            try RawFiles.makeFile(Array((root + "/" + name).utf8), size: index * 37 % 9000)
            if index % 50 == 0 {
                try FileManager.default.linkItem(atPath: root + "/" + name, toPath: root + "/link-a-\(index)")
                try FileManager.default.linkItem(atPath: root + "/" + name, toPath: root + "/link-b-\(index)")
            }
        }
        for index in 0..<40 {
            try FileManager.default.createDirectory(atPath: root + "/folder-\(index)", withIntermediateDirectories: false)
            try RawFiles.makeFile(Array((root + "/folder-\(index)/inner").utf8), size: 5000)
        }
        for threads in [1, 2, 4] {
            var options = UsageOptions()
            options.threads = threads
            let probe = TestProbe()
            let report = TestProbe.$installed.withValue(probe) { UsageScanner(options: options).scan([URL(filePath: root)]) }
            #expect((probe.count(.usageBatchShared) > 0) == (threads > 1), "\(threads) threads: the folder shared")
            #expect(report.allocatedBytes == (try Self.du(["-B1"], root)), "\(threads) threads")
            #expect(report.logicalBytes == (try Self.du(["-b"], root)), "\(threads) threads")
            #expect(report.totals.fileCount == 3040, "\(threads) threads: hard links count once")
            #expect(report.skippedHardLinkCount == 120, "\(threads) threads")
            #expect(report.totals.folderCount == 41, "\(threads) threads")
            #expect(report.breakdown.count == 3000 + 120 + 40 - 120, "\(threads) threads: one item per entry counted")
            #expect(report.issues.isEmpty, "\(threads) threads: \(report.issues)")
        }
    }

    @Test("following links matches du -L, and a link loop ends")
    func followingLinks() throws {
        let folder = TestFolder()
        let root = try Self.makeTree(in: folder)
        var options = UsageOptions()
        options.followsSymbolicLinks = true
        let report = UsageScanner(options: options).scan([URL(filePath: root)])
        #expect(report.allocatedBytes == (try Self.du(["-L", "-B1"], root)))
        #expect(report.logicalBytes == (try Self.du(["-L", "-b"], root)))
    }

    @Test("following links, a link that leads nowhere is not counted and is an issue naming it, as du -L reports it; not following, it is a link like any other", arguments: [1, 2])
    func danglingLinkFollowed(threads: Int) throws {
        let folder = TestFolder()
        let root = folder.path + "/tree"
        try folder.write("12345", to: "tree/file")
        let name: [UInt8] = [0x64, 0xFF]  // `d\xff`: reported as bytes
        let made = RawFiles.withPath(Array("/no/such/target".utf8)) { target in
            RawFiles.withPath(Array((root + "/").utf8) + name) { symlink(target, $0) }
        }
        try #require(made == 0, "symlink")
        var options = UsageOptions()
        options.threads = threads
        let kept = UsageScanner(options: options).scan([URL(filePath: root)])
        #expect(kept.totals.symbolicLinkCount == 1 && kept.totals.fileCount == 1)
        #expect(kept.issues.isEmpty, "\(kept.issues)")
        options.followsSymbolicLinks = true
        let (followed, tree) = UsageNameTreeTests.scanBothWays([root], options: options)
        #expect(followed.totals.symbolicLinkCount == 0 && followed.totals.fileCount == 1)
        #expect(tree.nodes.count == 2, "the root and the file")
        #expect(followed.issues.map(\.pathBytes) == [Array((root + "/").utf8) + name], "\(followed.issues.map(\.path))")
        #expect(followed.issues.first?.errno == .noSuchEntry)
        #expect(followed.logicalBytes == (try Self.du(["-L", "-b"], root)))
    }

    @Test("following links, a link to itself (ELOOP) is an issue of its own and the folder's other entries are counted, in the report and the tree of names, on 1 and 2 threads (an entry's fstatat error ended its folder)")
    func linkLoopEntry() throws {
        let folder = TestFolder()
        let root = Array((folder.path + "/loops").utf8)
        try RawFiles.makeFolder(root)
        // A loop made first and one made last: whatever the order the folder lists them in,
        // entries follow one of them. 600 files: wider than a shared batch.
        let loops = [Array("loop-first".utf8), [0xFF] + Array("loop-last".utf8)]
        func makeLoop(_ name: [UInt8]) throws {
            let made = RawFiles.withPath(name) { target in RawFiles.withPath(UsageNameTreeTests.joined(root, name[...])) { symlink(target, $0) } }
            try #require(made == 0, "symlink")
        }
        try makeLoop(loops[0])
        for index in 0..<600 { try RawFiles.makeFile(UsageNameTreeTests.joined(root, ([0xC3, 0x28] + Array("f\(index)".utf8))[...]), size: 10) }
        try makeLoop(loops[1])
        for threads in [1, 2] {
            var options = UsageOptions()
            options.followsSymbolicLinks = true
            options.threads = threads
            let (report, tree) = UsageNameTreeTests.scanBothWays([folder.path + "/loops"], options: options)
            #expect(report.totals.fileCount == 600 && tree.nodes.count == 601, "\(threads) threads: \(report.totals.fileCount) files, \(tree.nodes.count) nodes")
            #expect(report.issues.map(\.pathBytes).sorted { $0.lexicographicallyPrecedes($1) } == loops.map { UsageNameTreeTests.joined(root, $0[...]) }.sorted { $0.lexicographicallyPrecedes($1) },
                    "\(threads) threads: \(report.issues.map(\.path))")
            #expect(tree.report.issues == report.issues)
        }
    }

    @Test("leaving out hidden entries and patterns matches du --exclude")
    func exclusions() throws {
        let folder = TestFolder()
        let root = try Self.makeTree(in: folder)
        var options = UsageOptions()
        options.excludedPatterns = ["*.bin", "b"]
        let report = UsageScanner(options: options).scan([URL(filePath: root)])
        #expect(report.allocatedBytes == (try Self.du(["-B1", "--exclude=*.bin", "--exclude=b"], root)))
        var hidden = UsageOptions()
        hidden.includesHiddenEntries = false
        let withoutHidden = UsageScanner(options: hidden).scan([URL(filePath: root)])
        #expect(withoutHidden.logicalBytes == (try Self.du(["-b", "--exclude=.*"], root)))
    }

    @Test("staying on one file system matches du -x")
    func oneFileSystem() throws {
        let folder = TestFolder()
        let root = try Self.makeTree(in: folder)
        try FileManager.default.createDirectory(atPath: root + "/mnt", withIntermediateDirectories: true)
        let volume = try ScratchVolume.mount(size: "4m", in: folder)
        // Mount a second tmpfs inside the tree by binding the scratch volume onto tree/mnt.
        let bind = try runProcess(try requireToolURL("mount"), ["--bind", volume.path, root + "/mnt"])
        #expect(bind.status == 0, "\(bind.error)")
        defer { _ = try? runProcess(URL(filePath: "/bin/umount"), ["-l", root + "/mnt"]) }
        try Data(repeating: 1, count: 300_000).write(to: URL(filePath: root + "/mnt/big"))
        var options = UsageOptions()
        options.staysOnOneFileSystem = true
        let staying = UsageScanner(options: options).scan([URL(filePath: root)])
        #expect(staying.allocatedBytes == (try Self.du(["-x", "-B1"], root)))
        let crossing = UsageScanner().scan([URL(filePath: root)])
        #expect(crossing.allocatedBytes == (try Self.du(["-B1"], root)))
        #expect(crossing.allocatedBytes > staying.allocatedBytes + 290_000)
    }

    @Test("lists the largest files and a breakdown per child, largest first")
    func largestAndBreakdown() throws {
        let folder = TestFolder()
        let root = try Self.makeTree(in: folder)
        // Which name of a hard-linked file counts depends on the order of the walk: keep one name.
        try FileManager.default.removeItem(atPath: root + "/hard-link-1")
        try FileManager.default.removeItem(atPath: root + "/a/b/hard-link-2")
        var options = UsageOptions()
        options.largestFileCount = 2
        options.breakdownDepth = 2
        let report = UsageScanner(options: options).scan([URL(filePath: root)])
        #expect(report.largestFiles.map(\.path) == [root + "/a/b/c/three.bin", root + "/a/one.txt"])
        let a = try #require(report.breakdown.first { $0.path == root + "/a" })
        #expect(a.isFolder && a.depth == 1)
        #expect(a.allocatedBytes == (try Self.du(["-B1"], root + "/a")), "a folder's item holds everything inside it")
        #expect(report.breakdown.contains { $0.path == root + "/a/b" && $0.depth == 2 })
        #expect(!report.breakdown.contains { $0.depth > 2 })
        let sizes = report.breakdown.map(\.allocatedBytes)
        #expect(sizes == sizes.sorted(by: >))
        var logical = options
        logical.ranksByLogicalSize = true
        #expect(UsageScanner(options: logical).scan([URL(filePath: root)]).largestFiles.first?.path == root + "/sparse.img")
    }

    @Test("several roots sum with hard links across them counted once; a missing root is an issue")
    func severalRoots() throws {
        let folder = TestFolder()
        let root = try Self.makeTree(in: folder)
        let report = UsageScanner().scan([URL(filePath: root + "/a"), URL(filePath: root + "/hard-link-1"),
                                          URL(filePath: folder.path + "/missing")])
        #expect(report.roots.count == 3)
        #expect(report.roots[1].allocatedBytes == 0, "the second name of a file already counted")
        #expect(report.allocatedBytes == (try Self.du(["-B1"], root + "/a")))
        #expect(report.issues.map(\.path) == [folder.path + "/missing"])
        #expect(report.issues.first?.errno == .noSuchEntry)
    }

    @Test("the async scan reports progress, gives the same result, and returns a cancelled report when cancelled")
    func asyncScan() async throws {
        let folder = TestFolder()
        for part in 0..<30 { try FileManager.default.createDirectory(atPath: folder.path + "/many/\(part)", withIntermediateDirectories: true) }
        for index in 0..<3000 { try RawFiles.writeFile(atPath: folder.path + "/many/\(index % 30)/\(index)", Data("x".utf8)) }
        let counter = ProgressCounter()
        let report = try await UsageScanner().scan([folder.file("many")], progressInterval: .milliseconds(1)) { progress in
            counter.record(progress.items)
        }
        #expect(report.totals.fileCount == 3000)
        #expect(counter.count > 0, "progress is reported at least once, with the final figures")
        let synchronous = try await UsageScanner().scan([folder.file("many")])
        #expect(report.totals == synchronous.totals)
        #expect(!report.wasCancelled)
        // Cancelled before it starts: nothing is read, and the report says so (no error).
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await UsageScanner().scan([folder.file("many")])
        }
        let cancelled = try await task.value
        #expect(cancelled.wasCancelled)
        #expect(cancelled.totals.fileCount == 0)
        #expect(counter.maximum <= 3030)
    }

    @Test("a container reports the usage of each location")
    func locationUsage() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data(count: 10_000), to: "a", in: .caches)
        let usage = try store.container.usage()
        #expect(usage.map(\.location) == Location.standard)
        let caches = try #require(usage.first { $0.location == .caches })
        #expect(caches.totals.allocatedBytes == (try Self.du(["-B1"], folder.path + "/container/Library/Caches")))
        #expect(usage.first { $0.location == .documents }?.totals.allocatedBytes == 0)
    }
}

/// Progress values seen, from any thread.
final class ProgressCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int] = []
    func record(_ value: Int) { lock.withLock { values.append(value) } }
    var maximum: Int { lock.withLock { values.max() ?? 0 } }
    var count: Int { lock.withLock { values.count } }
}
