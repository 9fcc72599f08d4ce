import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

@Suite("UsageNameTree: the tree of names a scan builds as it walks")
struct UsageNameTreeTests {
    /// An entry of a tree by its path: what the tree of names and the report's index tree must
    /// agree on (the same paths under the same roots, with the same figures).
    struct Entry: Hashable, Comparable, CustomStringConvertible {
        var root: Int
        var path: [UInt8]
        var depth: Int
        var isFolder: Bool
        var logicalBytes: Int64
        var allocatedBytes: Int64
        var fileCount: Int
        var seconds: Int64?

        static func < (a: Entry, b: Entry) -> Bool {
            a.root != b.root ? a.root < b.root : a.path.lexicographicallyPrecedes(b.path)
        }

        var description: String {
            "\(root):\(String(decoding: path, as: UTF8.self)) d\(depth) \(isFolder ? "folder" : "item") \(logicalBytes)/\(allocatedBytes) \(fileCount) files"
        }
    }

    static func joined(_ path: [UInt8], _ name: ArraySlice<UInt8>) -> [UInt8] {
        path.last == UInt8(ascii: "/") ? path + name : path + [UInt8(ascii: "/")] + name
    }

    /// Every entry of `tree`, its path made from its ancestors' names; checks on the way that
    /// each child names its parent and comes after it.
    static func entries(_ tree: UsageNameTree) -> [Entry] {
        var entries: [Entry] = []
        for root in 0..<tree.rootCount {
            #expect(tree.nodes[root].parent == nil)
            var pending = [(root, Array(tree.name(of: root)), 0)]
            while let (index, path, depth) = pending.popLast() {
                let node = tree.nodes[index]
                entries.append(Entry(root: root, path: path, depth: depth, isFolder: node.isFolder, logicalBytes: node.logicalBytes,
                                     allocatedBytes: node.allocatedBytes, fileCount: node.fileCount,
                                     seconds: node.seconds == .min ? nil : node.seconds))
                for child in tree.children(of: index) {
                    #expect(tree.nodes[child].parent == index && child > index, "node \(child) under \(index)")
                    pending.append((child, joined(path, tree.name(of: child)), depth + 1))
                }
            }
        }
        return entries.sorted()
    }

    /// Every entry `breakdownIndexTree` reaches, by its item's own path.
    static func entries(_ report: UsageReport) -> [Entry] {
        let tree = report.breakdownIndexTree(sortingChildren: false)
        var entries: [Entry] = []
        func entry(_ item: UsageItem, root: Int) -> Entry {
            Entry(root: root, path: item.pathBytes, depth: item.depth, isFolder: item.isFolder, logicalBytes: item.logicalBytes,
                  allocatedBytes: item.allocatedBytes, fileCount: item.fileCount,
                  seconds: item.modificationDate.map { Int64($0.timeIntervalSince1970) })
        }
        for (root, item) in tree.roots.enumerated() {
            entries.append(entry(item, root: root))
            var pending = tree.rootChildren[root]
            while let index = pending.popLast() {
                entries.append(entry(report.breakdown[index], root: root))
                pending += tree.children[index]
            }
        }
        return entries.sorted()
    }

    /// Scans `roots` both ways: a report with every item, and the tree of names.
    static func scanBothWays(_ roots: [String], options: UsageOptions) -> (UsageReport, UsageNameTree) {
        var everything = options
        everything.breakdownDepth = .max
        let urls = roots.map { URL(filePath: $0) }
        return (UsageScanner(options: everything).scan(urls), UsageScanner(options: options).scanNameTree(urls))
    }

    /// Scans `roots` both ways, and expects the same tree and the same report (but the breakdown).
    static func expectSameTree(_ roots: [String], options: UsageOptions, sourceLocation: SourceLocation = #_sourceLocation) -> UsageNameTree {
        let (report, tree) = scanBothWays(roots, options: options)
        return expectSame(report, tree, sourceLocation: sourceLocation)
    }

    static func expectSame(_ report: UsageReport, _ tree: UsageNameTree, sourceLocation: SourceLocation = #_sourceLocation) -> UsageNameTree {
        let (expected, found) = (entries(report), entries(tree))
        #expect(found.count == expected.count, sourceLocation: sourceLocation)
        for (a, b) in zip(found, expected) where a != b {
            Issue.record("name tree \(a), index tree \(b)", sourceLocation: sourceLocation)
            break
        }
        var withoutBreakdown = report
        withoutBreakdown.breakdown = []
        #expect(tree.report == withoutBreakdown, sourceLocation: sourceLocation)
        #expect(tree.nodes.count == tree.rootCount + report.breakdown.count, "every entry once", sourceLocation: sourceLocation)
        return tree
    }

    /// A random name: letters, sometimes a space, a dot or bytes that are not UTF-8.
    static func randomName(_ random: inout SeededRandom) -> [UInt8] {
        let pieces: [[UInt8]] = [Array("a".utf8), Array("Bc".utf8), Array("d e".utf8), Array(".x".utf8), [0xFF], [0xC3, 0x28],
                                 Array("é".utf8), Array("long-name-".utf8)]
        var name: [UInt8] = []
        for _ in 0..<Int.random(in: 1...3, using: &random) { name += pieces.randomElement(using: &random)! }
        return name
    }

    /// Fills the folder `path` with a random tree (up to `depth` levels): files of random sizes
    /// (empty ones too), empty and full folders, symbolic links and, when `hardLinks`, hard links to
    /// files made before (`files`).
    static func makeRandomTree(at path: [UInt8], depth: Int, hardLinks: Bool, files: inout [[UInt8]], random: inout SeededRandom) throws {
        for index in 0..<Int.random(in: 0...6, using: &random) {
            let entry = joined(path, (randomName(&random) + Array("-\(index)".utf8))[...])
            switch Int.random(in: 0..<20, using: &random) {
            case 0..<10:
                try RawFiles.makeFile(entry, size: [0, 1, 4096, 5000, 70_000].randomElement(using: &random)!)
                files.append(entry)
            case 10..<16 where depth > 0:
                try RawFiles.makeFolder(entry)
                try makeRandomTree(at: entry, depth: depth - 1, hardLinks: hardLinks, files: &files, random: &random)
            case 16..<18:
                try RawFiles.makeLink(entry, to: Array("../somewhere".utf8))
            default:
                guard hardLinks, let target = files.randomElement(using: &random) else {
                    try RawFiles.makeFolder(entry)  // an empty folder
                    continue
                }
                let made = RawFiles.withPath(target) { from in RawFiles.withPath(entry) { link(from, $0) } }
                try #require(made == 0, "link")
            }
        }
    }

    @Test("random trees, hard links and names that are not UTF-8 among them: the tree of names is the index tree (one thread, roots that overlap)")
    func randomTrees() throws {
        var random = SeededRandom(for: "randomTrees")
        for round in 0..<8 {
            let folder = TestFolder()
            let root = folder.path + "/tree"
            try RawFiles.makeFolder(Array(root.utf8))
            var files: [[UInt8]] = []
            try Self.makeRandomTree(at: Array(root.utf8), depth: 4, hardLinks: true, files: &files, random: &random)
            try RawFiles.makeFolder(Array((root + "/sub").utf8))
            try Self.makeRandomTree(at: Array((root + "/sub").utf8), depth: 2, hardLinks: true, files: &files, random: &random)
            var options = UsageOptions()
            options.threads = 1  // which name of a hard-linked file counts depends on the order of the walk
            options.largestFileCount = round % 2 == 0 ? 0 : 3
            let roots = [[root], [root, root + "/sub"], [root + "/sub", root], [root, root], [root + "/", folder.path + "/missing"]][round % 5]
            _ = Self.expectSameTree(roots, options: options)
        }
    }

    @Test("random trees without hard links, read by several threads: the same tree")
    func randomTreesOnThreads() throws {
        var random = SeededRandom(for: "randomTreesOnThreads")
        let folder = TestFolder()
        var files: [[UInt8]] = []
        try Self.makeRandomTree(at: Array(folder.path.utf8), depth: 6, hardLinks: false, files: &files, random: &random)
        for index in 0..<40 {  // enough folders for the helpers to start
            let sub = Array((folder.path + "/many-\(index)").utf8)
            try RawFiles.makeFolder(sub)
            try Self.makeRandomTree(at: sub, depth: 2, hardLinks: false, files: &files, random: &random)
        }
        var options = UsageOptions()
        options.threads = 3
        options.largestFileCount = 0  // which of equal files is among the largest depends on the threads
        let tree = Self.expectSameTree([folder.path], options: options)
        #expect(tree.nodes.count > 40)
    }

    /// Fills the folder `path` with `width` entries: files of several sizes, a third of them named
    /// with bytes that are not UTF-8, every 50 entries a sub-folder holding two files and a group of
    /// three hard links to one file (`hl-K-a`, `hl-K-b`, `hl-K-c`, ``linkGroup(_:)``).
    static func makeWideFolder(at path: [UInt8], width: Int) throws {
        var made = 0, index = 0
        while made < width {
            let entry = Array("-\(index)".utf8)
            switch index % 50 {
            case 0:
                let sub = joined(path, (Array("sub".utf8) + entry)[...])
                try RawFiles.makeFolder(sub)
                try RawFiles.makeFile(joined(sub, Array("one".utf8)[...]), size: 100 + index)
                try RawFiles.makeFile(joined(sub, ([0xFF] + Array("two".utf8))[...]), size: 5000)
                made += 1
            case 1:
                let group = Array("hl\(index)-".utf8)
                let first = joined(path, (group + Array("a".utf8))[...])
                try RawFiles.makeFile(first, size: 7000 + index)
                for last in ["b", "c"] {
                    let made = RawFiles.withPath(first) { from in RawFiles.withPath(joined(path, (group + Array(last.utf8))[...])) { link(from, $0) } }
                    try #require(made == 0, "link")
                }
                made += 3
            default:
                let name = (index % 3 == 0 ? [0xC3, 0x28, 0xFF] : Array("é".utf8)) + Array("f".utf8) + entry
                try RawFiles.makeFile(joined(path, name[...]), size: index * 37 % 9000)
                made += 1
            }
            index += 1
        }
    }

    /// `path` with a hard link's last byte (`hl-K-a`, `-b`, `-c`) left out: which name of the group
    /// a scan on several threads counts depends on the order its workers meet them.
    static func linkGroup(_ path: [UInt8]) -> [UInt8] {
        let name = path.split(separator: UInt8(ascii: "/")).last ?? []
        return name.starts(with: Array("hl".utf8)) ? Array(path.dropLast()) : path
    }

    /// Expects every node but a root in its parent's children, after it, and the children's
    /// ranges not to overlap (they hold every node but the roots once).
    static func expectParentsFirst(_ tree: UsageNameTree, sourceLocation: SourceLocation = #_sourceLocation) {
        for index in tree.rootCount..<tree.nodes.count {
            let parent = Int(tree.nodes[index].parentIndex)
            guard parent < 0 || parent >= index || !tree.children(of: parent).contains(index) else { continue }
            Issue.record("node \(index) under \(parent)", sourceLocation: sourceLocation)
            return
        }
        #expect(tree.nodes.reduce(0) { $0 + Int($1.childCount) } == tree.nodes.count - tree.rootCount, sourceLocation: sourceLocation)
    }

    @Test("folders wider than a batch (3 x 1,000 entries, sub-folders, hard links, names not UTF-8) shared between the workers: the index tree and du's sums with 1, 2 and 4 threads, each parent before its children")
    func wideFoldersShared() throws {
        let folder = TestFolder()
        let root = Array((folder.path + "/wide").utf8)
        try RawFiles.makeFolder(root)
        try Self.makeWideFolder(at: root, width: 1000)
        for name in ["wide-a", "wide-b"] {
            let wide = Self.joined(root, Array(name.utf8)[...])
            try RawFiles.makeFolder(wide)
            try Self.makeWideFolder(at: wide, width: 1000)
        }
        let path = folder.path + "/wide"
        let (allocated, logical) = (try UsageScannerTests.du(["-B1"], path), try UsageScannerTests.du(["-b"], path))
        for threads in [1, 2, 4] {
            var options = UsageOptions()
            options.threads = threads
            options.largestFileCount = 0  // which of equal files is among the largest depends on the threads
            var everything = options
            everything.breakdownDepth = .max
            let report = UsageScanner(options: everything).scan([URL(filePath: path)])
            let probe = TestProbe()
            let tree = TestProbe.$installed.withValue(probe) { UsageScanner(options: options).scanNameTree([URL(filePath: path)]) }
            // The root is read first and alone: at its 256th entry nothing is pending, so a worker
            // that may have helpers hands the next batch over.
            #expect((probe.count(.usageBatchShared) > 0) == (threads > 1), "\(threads) threads: \(probe.count(.usageBatchShared)) batches shared")
            let canonical = { (entries: [Entry]) in entries.map { entry in
                var entry = entry
                entry.path = Self.linkGroup(entry.path)
                return entry
            }.sorted() }
            let (found, expected) = (canonical(Self.entries(tree)), canonical(Self.entries(report)))
            #expect(found.count == expected.count && found.count == 1 + 2 + 3 * 1000 - 3 * 20 * 2 + 3 * 20 * 2,  // the root, wide-a and -b, the entries less two names of each group of hard links, the sub-folders' files
                    "\(threads) threads: \(found.count) entries")
            for (a, b) in zip(found, expected) where a != b {
                Issue.record("\(threads) threads: name tree \(a), index tree \(b)")
                break
            }
            if threads == 1 { _ = Self.expectSame(report, tree) }
            var withoutBreakdown = report
            withoutBreakdown.breakdown = []
            #expect(tree.report == withoutBreakdown, "\(threads) threads")
            Self.expectParentsFirst(tree)
            #expect(tree.nodes[0].allocatedBytes == allocated && tree.nodes[0].logicalBytes == logical, "\(threads) threads: du's sums")
            #expect(tree.report.skippedHardLinkCount == 3 * 20 * 2 && tree.report.issues.isEmpty, "\(threads) threads")
        }
    }

    @Test("a scan cancelled while a batch of a wide folder waits: every entry it counted is in the tree (the batch left unexamined completes its folder), each parent before its children, and no descriptor left open")
    func wideFolderCancelled() throws {
        let folder = TestFolder()
        let path = folder.path + "/wide"
        try RawFiles.makeFolder(Array(path.utf8))
        // Wide enough that the worker reading it is still at it when the helper, started at the
        // first batch, has taken that batch (about 23 batches of 256 entries).
        try Self.makeWideFolder(at: Array(path.utf8), width: 6000)
        var options = UsageOptions()
        options.threads = 2
        options.largestFileCount = 0
        let probe = TestProbe()
        let engine = TestProbe.$installed.withValue(probe) { ScanEngine(options: options, buildsNameTree: true) }
        // The helper reports progress when it has examined the first batch, and waits there until
        // the worker reading the folder has handed the second over (pending: the helper is here);
        // then the scan is cancelled, and that batch is never examined.
        // The descriptors open under the folder when it is cancelled (the waiting sub-folders'
        // among them, where /proc/self/fd lists them): none must be left after.
        final class Seen: @unchecked Sendable {  // set by the reporter, under its lock
            let lock = NSLock()
            var descriptors = 0
        }
        let during = Seen(), countsDescriptors = FileManager.default.fileExists(atPath: "/proc/self/fd")
        engine.reporter = ProgressReporter(interval: .zero) { [engine, probe] _ in
            let deadline = ContinuousClock.now + .seconds(30)
            while probe.count(.usageBatchShared) < 2 && ContinuousClock.now < deadline { usleep(200) }
            if !engine.isCancelled { during.lock.withLock { during.descriptors = Self.descriptors(under: folder.path) } }
            engine.cancel()
        }
        let report = engine.run(roots: [path])
        let tree = engine.takeNameTree(report: report)
        let totals = report.totals
        if countsDescriptors {
            let open = during.lock.withLock { during.descriptors }
            #expect(open > 1 && Self.descriptors(under: folder.path) == 0, "\(open) descriptors open when cancelled, none after")
        }
        #expect(report.wasCancelled && probe.count(.usageBatchShared) == 2)
        #expect(tree.nodes.count == totals.fileCount + totals.folderCount + totals.symbolicLinkCount + totals.otherCount,
                "every entry counted (\(totals.fileCount) files) is in the tree (\(tree.nodes.count) nodes)")
        #expect(tree.nodes.count < 6000 && tree.children(of: 0).count == tree.nodes.count - 1, "the sub-folders are never read")
        Self.expectParentsFirst(tree)
    }

    @Test("the tree of names exactly at its chunks' sizes (4,096 nodes, 64 KB of names, names not UTF-8) and one past them, on 1 and 4 threads: the index tree, each parent before its children")
    func chunkBoundaries() throws {
        let folder = TestFolder()
        let path = folder.path + "/c"
        let root = Array(path.utf8)
        try RawFiles.makeFolder(root)
        // 4,095 entries and the root: 4,096 nodes; their names and the root's path: 65,536 bytes.
        let count = 4095, bytes = 65536 - root.count
        for index in 0..<count {
            let prefix = Array("\(index)-".utf8), length = bytes / count + (index < bytes % count ? 1 : 0)
            try RawFiles.makeFile(Self.joined(root, (prefix + [UInt8](repeating: 0xFF, count: length - prefix.count))[...]), size: index % 7 * 1000)
        }
        for (nodes, names) in [(4096, 65536), (4097, 65537)] {
            if nodes == 4097 { try RawFiles.makeFile(Self.joined(root, [0xFE][...]), size: 1) }
            for threads in [1, 4] {
                var options = UsageOptions()
                options.threads = threads
                options.largestFileCount = 0
                let (report, tree) = Self.scanBothWays([path], options: options)
                #expect(tree.nodes.count == nodes && tree.names.count == names, "\(threads) threads: \(tree.nodes.count) nodes, \(tree.names.count) bytes of names")
                let (found, expected) = (Self.entries(tree).sorted(), Self.entries(report).sorted())
                #expect(found == expected, "\(threads) threads: \(found.count) entries, \(expected.count) in the index tree")
                #expect(tree.nodes[0].allocatedBytes == report.totals.allocatedBytes && tree.nodes[0].fileCount == nodes - 1)
                Self.expectParentsFirst(tree)
            }
        }
    }

    @Test("folders' sums across the nodes' chunks (4,096 nodes each): a folder in the first chunk whose children reach into the second, and folders in the second whose children are there too, on 1 and 4 threads: the index tree's figures")
    func sumsAcrossChunks() throws {
        let folder = TestFolder()
        let path = folder.path + "/s"
        let wide = Array((path + "/a").utf8)
        try RawFiles.makeFolder(Array(path.utf8))
        try RawFiles.makeFolder(wide)
        // The root (node 0), a (node 1), a's 4,300 entries (nodes 2-4301: through the first chunk
        // into the second); then each d's entries and each e's, all in the second chunk.
        for index in 0..<4300 {
            let name = Array("f\(index)".utf8)[...]
            if index % 50 == 0 {
                let sub = Self.joined(wide, name), inner = Self.joined(sub, Array("e".utf8)[...])
                try RawFiles.makeFolder(sub)
                try RawFiles.makeFolder(inner)
                try RawFiles.makeFile(Self.joined(sub, Array("x".utf8)[...]), size: index + 1)
                for file in 0..<2 { try RawFiles.makeFile(Self.joined(inner, Array("y\(file)".utf8)[...]), size: 5000 * (file + 1) + index) }
            } else {
                try RawFiles.makeFile(Self.joined(wide, name), size: index % 9 * 700)
            }
        }
        for threads in [1, 4] {
            var options = UsageOptions()
            options.threads = threads
            options.largestFileCount = 0
            let tree = Self.expectSameTree([path], options: options)
            let chunk = 1 << UsageNameTree.nodeChunkShift
            #expect(tree.nodes.count == 2 + 4300 + 86 * 4)
            #expect(tree.children(of: 1).contains(chunk - 1) && tree.children(of: 1).contains(chunk), "a's children on both sides")
            #expect((chunk..<tree.nodes.count).contains { tree.nodes[$0].isFolder && tree.children(of: $0).count == 2 },
                    "a folder of the second chunk holding entries")
            #expect(tree.nodes[1].fileCount == 4300 - 86 + 86 * 3)
        }
    }

    @Test("folders of 255 to 513 entries, around a shared batch's 256 (the batch found empty at 255, of one entry at 256, two at 257, ...), a root that is a file and an empty folder, on 1, 2 and 4 threads: the index tree, each parent before its children")
    func shareBoundaries() throws {
        let folder = TestFolder()
        for width in [255, 256, 257, 511, 512, 513] {
            let root = Array((folder.path + "/w\(width)").utf8)
            try RawFiles.makeFolder(root)
            for index in 0..<width {
                let name = (index % 3 == 0 ? [0xFF] : []) + Array("e\(index)".utf8)
                if index % 100 == 7 {
                    try RawFiles.makeFolder(Self.joined(root, name[...]))
                    try RawFiles.makeFile(Self.joined(Self.joined(root, name[...]), [0xFE][...]), size: index)
                } else {
                    try RawFiles.makeFile(Self.joined(root, name[...]), size: index * 13)
                }
            }
        }
        try RawFiles.makeFolder(Array((folder.path + "/empty").utf8))
        try RawFiles.makeFile(Array((folder.path + "/file").utf8), size: 3000)
        for threads in [1, 2, 4] {
            var options = UsageOptions()
            options.threads = threads
            options.largestFileCount = 0
            for roots in [[255], [256], [257], [511], [512], [513]].map({ $0.map { folder.path + "/w\($0)" } }) + [[folder.path + "/file"], [folder.path + "/empty"]] {
                var everything = options
                everything.breakdownDepth = .max
                let report = UsageScanner(options: everything).scan(roots.map { URL(filePath: $0) })
                let probe = TestProbe()
                let tree = TestProbe.$installed.withValue(probe) { UsageScanner(options: options).scanNameTree(roots.map { URL(filePath: $0) }) }
                let width = Int(roots[0].split(separator: "w").last ?? "") ?? 0
                #expect((probe.count(.usageBatchShared) > 0) == (threads > 1 && width >= 256), "\(threads) threads, \(roots): \(probe.count(.usageBatchShared)) shared")
                let (found, expected) = (Self.entries(tree).sorted(), Self.entries(report).sorted())
                #expect(found == expected && tree.nodes.count == tree.rootCount + report.breakdown.count, "\(threads) threads, \(roots): \(found.count) entries, \(expected.count) in the index tree")
                var withoutBreakdown = report
                withoutBreakdown.breakdown = []
                #expect(tree.report == withoutBreakdown)
                Self.expectParentsFirst(tree)
            }
        }
    }

    /// How many of this process's descriptors are open on something under `path` (`/proc/self/fd`,
    /// each read with `readlink`: other tests' descriptors are elsewhere).
    static func descriptors(under path: String) -> Int {
        var found = 0
        var target = [CChar](repeating: 0, count: 4096)
        for fd in 0..<8192 {
            let length = readlink("/proc/self/fd/\(fd)", &target, target.count)
            guard length > 0 else { continue }
            if String(decoding: target[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self).hasPrefix(path + "/") { found += 1 }
        }
        return found
    }

    @Test("a modification time a nanosecond short of a whole second keeps its second, in the report and the tree of names (a Double of seconds and nanoseconds rounded it up)")
    func modificationSecondsExact() throws {
        let folder = TestFolder()
        // 1,700,000,000 s plus 999,999,999 ns is 1,700,000,001.0 as a Double: the nanoseconds are
        // below its precision there (2.4e-7 s). Before 1970 too: -1 s plus 999,999,999 ns.
        let times: [(name: String, seconds: Int, nanoseconds: Int)] = [
            ("late", 1_700_000_000, 999_999_999), ("later", 1_700_000_000, 999_999_800), ("whole", 1_700_000_000, 0),
            ("before-1970", -1, 999_999_999),
        ]
        for time in times {
            let path = folder.path + "/" + time.name
            #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
            var stamps = [timespec(tv_sec: time.seconds, tv_nsec: time.nanoseconds), timespec(tv_sec: time.seconds, tv_nsec: time.nanoseconds)]
            try #require(utimensat(AT_FDCWD, path, &stamps, 0) == 0, "utimensat: errno \(errno)")
        }
        let (report, tree) = Self.scanBothWays([folder.path], options: UsageOptions())
        for time in times {
            let path = folder.path + "/" + time.name
            let item = try #require(report.breakdown.first { $0.path == path })
            #expect(item.modificationDate == Date(timeIntervalSince1970: Double(time.seconds)), "\(time.name) in the report")
            let node = try #require(tree.nodes.indices.first { tree.nodes[$0].parent != nil && Array(tree.name(of: $0)) == Array(time.name.utf8) })
            #expect(tree.nodes[node].seconds == Int64(time.seconds), "\(time.name) in the tree of names")
        }
    }

    @Test("a mount inside: crossed, or left out with everything in it when staying on one file system")
    func mountInside() throws {
        let folder = TestFolder()
        let root = folder.path + "/tree"
        try RawFiles.makeFolder(Array(root.utf8))
        try RawFiles.makeFile(Array((root + "/here").utf8), size: 5000)
        let volume = try ScratchVolume.mount(size: "4m", in: URL(filePath: root), named: "mounted")
        try RawFiles.makeFile(Array((volume.path + "/there").utf8), size: 300_000)
        let crossing = Self.expectSameTree([root], options: UsageOptions())
        var staying = UsageOptions()
        staying.staysOnOneFileSystem = true
        let stayed = Self.expectSameTree([root], options: staying)
        let names = { (tree: UsageNameTree) in tree.children(of: 0).map { String(decoding: tree.name(of: $0), as: UTF8.self) }.sorted() }
        #expect(names(crossing) == ["here", "mounted"] && names(stayed) == ["here"])
        #expect(crossing.nodes.count == 4 && stayed.nodes.count == 2)
    }

    @Test("an unreadable folder is an issue and a node without children, as in the index tree")
    func unreadableFolder() async throws {
        let folder = TestFolder()
        let root = folder.path + "/tree"
        try RawFiles.makeFolder(Array(root.utf8))
        try RawFiles.makeFolder(Array((root + "/open").utf8))
        try RawFiles.makeFile(Array((root + "/open/file").utf8), size: 100)
        try RawFiles.makeFolder(Array((root + "/closed").utf8))
        try RawFiles.makeFile(Array((root + "/closed/hidden").utf8), size: 100)
        #expect(chmod(folder.path, 0o755) == 0 && chmod(root + "/closed", 0) == 0)
        defer { _ = chmod(root + "/closed", 0o755) }
        var options = UsageOptions()
        options.threads = 1  // the walk on this thread alone, whose file system user is nobody's
        let scanned: (UsageReport, UsageNameTree)
        do {
            scanned = try await onOwnThread { [options] in try asFileSystemUser(65534) { Self.scanBothWays([root], options: options) } }
        } catch let refused as FileSystemUserRefused {
            print("SKIPPED: unreadableFolder: \(refused)")
            try Test.cancel(Comment(rawValue: "\(refused)"))
        }
        let tree = Self.expectSame(scanned.0, scanned.1)
        #expect(tree.report.issues.map(\.path) == [root + "/closed"])
        let closed = try #require(tree.children(of: 0).first { tree.name(of: $0) == Array("closed".utf8)[...] })
        #expect(tree.nodes[closed].isFolder && tree.children(of: closed).isEmpty)
    }
}
