import Foundation
import Testing
@testable import Stowage

@Suite("Saved scans: ncdu's JSON export, written and read")
struct SavedScanTests {
    /// Every folder and file listed, the ten largest files.
    static var everything: UsageOptions {
        var options = UsageOptions()
        options.breakdownDepth = .max
        return options
    }

    /// A tree with what the format must carry: nested folders, an empty one, a name that is not
    /// UTF-8, names with a quote, a backslash and a control character, a hard link (both names in
    /// one folder), a symbolic link and a FIFO.
    static func makeTree(_ root: String) throws {
        for (path, size) in [("big", 40_000), ("sub/deep/file", 5000), ("sub/q\"b\\s\tt", 300), ("sub/linked", 9000)] {
            let url = URL(filePath: root + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(repeating: 0x61, count: size).write(to: url)
        }
        try FileManager.default.createDirectory(atPath: root + "/empty", withIntermediateDirectories: true)
        try RawFiles.makeFile(RawFiles.join(root + "/sub", [0x6E, 0xFF, 0x78]), size: 100)
        try FileManager.default.linkItem(atPath: root + "/sub/linked", toPath: root + "/sub/linked-too")
        try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: "big")
        try #require(mkfifo(root + "/pipe", 0o600) == 0)
    }

    /// The tree of ``makeTree(_:)`` in `folder`, its path, and its scan with every item listed.
    static func scannedTree(in folder: TestFolder) throws -> (root: String, scanned: UsageReport) {
        let root = folder.path + "/tree"
        try makeTree(root)
        return (root, UsageScanner(options: everything).scan([URL(filePath: root)]))
    }

    /// Runs `tool` with `arguments` and expects it to succeed.
    static func run(_ tool: URL, _ arguments: [String]) throws -> ProcessResult {
        let result = try runProcess(tool, arguments)
        #expect(result.status == 0, "\(result.error)")
        return result
    }

    /// The figures of a root that are compared: sizes and every count.
    static func figures(_ totals: UsageTotals) -> [Int64] {
        [totals.logicalBytes, totals.allocatedBytes, Int64(totals.fileCount), Int64(totals.folderCount),
         Int64(totals.symbolicLinkCount), Int64(totals.otherCount)]
    }

    /// `du -s` of `path` with `flag`: its one figure.
    static func du(_ flag: String, _ path: String) throws -> Int64 {
        let result = try runProcess(try requireToolURL("du"), ["-s", flag, path])
        return try #require(Int64(result.output.split(separator: "\t")[0]), "\(result.output)")
    }

    @Test("an export read back is the report: every folder and file, names as bytes, the hard link once, the same largest files")
    func roundTrip() throws {
        let folder = TestFolder()
        let (root, scanned) = try Self.scannedTree(in: folder)
        #expect(scanned.skippedHardLinkCount == 1)
        let data = try scanned.ncduExport()
        #expect(data.contains(Data([0x6E, 0xFF, 0x78])), "the name that is not UTF-8 is written as its bytes, as ncdu does")
        let read = try UsageReport(ncduExport: data, path: "tree.json", options: Self.everything)
        #expect(Self.figures(read.roots[0]) == Self.figures(scanned.roots[0]))
        #expect(read.roots[0].path == root && read.totals == scanned.totals)
        #expect(read.breakdownTree() == scanned.breakdownTree(), "every item with its figures, its bytes and its hard-link identity")
        #expect(read.largestFiles == scanned.largestFiles)
        #expect(read.breakdown.contains { $0.pathBytes == RawFiles.join(root + "/sub", [0x6E, 0xFF, 0x78]) })
        let linked = try #require(read.breakdown.first { $0.hardLink != nil })
        #expect(linked.hardLink?.linkCount == 2 && linked == scanned.breakdown.first { $0.hardLink != nil })
        #expect(read.skippedHardLinkCount == 0, "the file holds the name the scan counted, not the other")
    }

    @Test("a report listed to a depth saves its folders at that depth with what is inside them: the totals stay exact")
    func shallowReport() throws {
        let folder = TestFolder()
        let root = folder.path + "/tree"
        try Self.makeTree(root)
        var options = UsageOptions()
        options.breakdownDepth = 1
        let scanned = UsageScanner(options: options).scan([URL(filePath: root)])
        let read = try UsageReport(ncduExport: scanned.ncduExport(), options: Self.everything)
        #expect(read.logicalBytes == scanned.logicalBytes && read.allocatedBytes == scanned.allocatedBytes)
        let expected = scanned.breakdownTree()[0].children.map { child in
            var item = child.item
            if item.isFolder { item.fileCount = 0 }  // what is inside is not listed, so its files are not counted
            return UsageNode(item: item)
        }
        #expect(read.breakdownTree()[0].children == expected)
    }

    @Test("ncdu reads the export: what it writes back is the same tree, and its totals are du's")
    func ncduReadsTheExport() throws {
        let ncdu = try requireToolURL("ncdu")
        let folder = TestFolder()
        let (root, scanned) = try Self.scannedTree(in: folder)
        try scanned.ncduExport().write(to: folder.url.appending(path: "ours.json"))
        _ = try Self.run(ncdu, ["-e", "-f", folder.path + "/ours.json", "-o", folder.path + "/again.json"])
        let again = try UsageReport(ncduExport: Data(contentsOf: folder.url.appending(path: "again.json")), options: Self.everything)
        #expect(again.breakdownTree() == scanned.breakdownTree())
        let allocated = try Self.du("-B1", root), logical = try Self.du("-b", root)
        #expect(again.allocatedBytes == allocated && again.logicalBytes == logical)
    }

    @Test("ncdu's export imports with du's totals and the scan's figures for every item")
    func ncduExportImports() throws {
        let ncdu = try requireToolURL("ncdu")
        let folder = TestFolder()
        let (root, scanned) = try Self.scannedTree(in: folder)
        _ = try Self.run(ncdu, ["-e", "-o", folder.path + "/ncdu.json", root])
        let read = try UsageReport(ncduExport: Data(contentsOf: folder.url.appending(path: "ncdu.json")), options: Self.everything)
        let allocated = try Self.du("-B1", root), logical = try Self.du("-b", root), inodes = try Self.du("--inodes", root)
        #expect(read.allocatedBytes == allocated && read.logicalBytes == logical)
        let entries = read.totals.fileCount + read.totals.folderCount + read.totals.symbolicLinkCount + read.totals.otherCount
        #expect(Int64(entries) == inodes)
        #expect(Self.figures(read.roots[0]) == Self.figures(scanned.roots[0]), "links and other files told apart as the scan does")
        #expect(read.skippedHardLinkCount == 1, "ncdu writes both names; the second counts once")
        // Which of the two names counts is the order met: compare everything else.
        func items(_ report: UsageReport) -> Set<UsageItem> {
            Set(report.breakdown.filter { $0.hardLink == nil })
        }
        #expect(items(read) == items(scanned))
        #expect(read.breakdown.filter { $0.hardLink != nil }.map(\.allocatedBytes) == scanned.breakdown.filter { $0.hardLink != nil }.map(\.allocatedBytes))
    }

    @Test("gdu reads the export with du's totals")
    func gduReadsTheExport() throws {
        let gdu = try requireToolURL("gdu")
        let folder = TestFolder()
        let (root, scanned) = try Self.scannedTree(in: folder)
        try scanned.ncduExport().write(to: folder.url.appending(path: "ours.json"))
        func total(_ flags: [String]) throws -> Int64 {
            let result = try Self.run(gdu, ["-f", folder.path + "/ours.json", "-n", "-p", "-s", "--no-prefix"] + flags)
            return try #require(result.output.split(separator: " ", omittingEmptySubsequences: true).first.flatMap { Int64($0) }, "\(result.output)")
        }
        let allocated = try total([]), logical = try total(["-a"])
        let duAllocated = try Self.du("-B1", root), duLogical = try Self.du("-b", root)
        #expect(allocated == duAllocated && logical == duLogical)
    }

    @Test("a file of any depth reads without recursion: 5,000 nested folders")
    func deepFile() throws {
        let depth = 5000
        var text = "[1,2,{},"
        for level in 0...depth { text += level == 0 ? "[{\"name\":\"/r\",\"asize\":1}" : ",[{\"name\":\"d\",\"asize\":1}" }
        text += ",{\"name\":\"f\",\"asize\":7,\"dsize\":4096}" + String(repeating: "]", count: depth + 1) + "]"
        var options = UsageOptions()
        options.breakdownDepth = 3
        let report = try UsageReport(ncduExport: Data(text.utf8), options: options)
        #expect(report.totals.folderCount == depth + 1 && report.totals.fileCount == 1)
        #expect(report.logicalBytes == Int64(depth + 1) + 7 && report.allocatedBytes == 4096)
        #expect(report.breakdown.map(\.depth).sorted() == [1, 2, 3], "listed to the depth asked")
        #expect(report.breakdown.first { $0.depth == 1 }?.fileCount == 1 && report.largestFiles.count == 1)
    }

    @Test("modification times at UInt64's ends, and 0, are written back as read (the largest one, rounded up as a date, too)")
    func modificationTimeEnds() throws {
        for mtime: UInt64 in [0, 1, 1_764_350_000, 1 << 53, UInt64.max - 1, UInt64.max] {
            let text = "[1,2,{},[{\"name\":\"/r\",\"asize\":1},{\"name\":\"f\",\"asize\":3,\"dsize\":4096,\"mtime\":\(mtime)}]]"
            let report = try UsageReport(ncduExport: Data(text.utf8), options: SavedScanTests.everything)
            let written = String(decoding: try report.ncduExport(), as: UTF8.self)
            // Dates hold 53 bits: a larger time comes back as the nearest one they hold (2⁶⁴ - 1 as itself).
            let expected = mtime < 1 << 53 ? mtime : (mtime >= UInt64.max - 1024 ? UInt64.max : UInt64(Double(mtime)))
            #expect(written.contains("\"mtime\":\(expected)}"), "\(mtime): \(written)")
        }
    }

    @Test("strings: escapes decoded, bytes that are not UTF-8 kept, excluded items left out, unknown keys skipped")
    func strings() throws {
        let text: [UInt8] = Array(#"[1,2,{"progname":"x","extra":[1,{"a":null}],"t":-1.5e3},[{"name":"\/r","asize":10},"#.utf8)
            + Array(#"{"name":"\u00e9\ud83d\ude00\"\\\t","asize":1,"mode":33188,"uid":0},"#.utf8)
            + Array(#"{"name":"n"#.utf8) + [0xFF] + Array(#"x","asize":2},"#.utf8)
            + Array(#"{"name":"skip","excluded":"pattern"},{"name":"dev","notreg":true},{"name":"ln","asize":3,"notreg":true}]]"#.utf8)
        let report = try UsageReport(ncduExport: Data(text), options: SavedScanTests.everything)
        let names = Set(report.breakdown.map { Array($0.pathBytes.dropFirst(3)) })
        #expect(report.roots[0].path == "/r")
        #expect(names == [Array("é😀\"\\\t".utf8), [0x6E, 0xFF, 0x78], Array("dev".utf8), Array("ln".utf8)])
        #expect(report.totals.fileCount == 2 && report.totals.otherCount == 1 && report.totals.symbolicLinkCount == 1)
        #expect(report.logicalBytes == 16)
    }

    @Test("what is not an ncdu export is refused, naming the file and the byte where it went wrong")
    func refusals() throws {
        let cases: [(String, String)] = [
            ("", "expected '['"),
            ("[2,0,{},[{\"name\":\"/r\"}]]", "format version 2"),
            ("[1,2,{},[{\"name\":\"/r\"},{\"name\":\"a/b\"}]]", "not a single name"),
            ("[1,2,{},[{\"name\":\"/r\"},{\"name\":\"..\"}]]", "not a single name"),
            ("[1,2,{},[{\"name\":\"/r\"},{\"name\":\"\"}]]", "not a single name"),
            ("[1,2,{},[{\"name\":\"/r\"},{\"asize\":1}]]", "without a name"),
            ("[1,2,{},[{\"name\":\"/r\",\"asize\":-1}]]", "whole number"),
            ("[1,2,{},[{\"name\":\"/r\",\"asize\":1.5}]]", "whole number"),
            ("[1,2,{},[{\"name\":\"/r\",\"asize\":9223372036854775808}]]", "past 9223372036854775807"),
            ("[1,2,{},[{\"name\":\"/r\"}]] x", "more after"),
            ("[1,2,{},[{\"name\":\"/r\"}", "ends inside a folder"),
            ("[1,2,{},[{\"name\":\"a\\ud800\"}]]", "lone surrogate"),
            ("[1,2,{},[{\"name\":\"a\nb\"}]]", "control character"),
        ]
        for (text, reason) in cases {
            let error = try #require(throws: StowageError.self) { try UsageReport(ncduExport: Data(text.utf8), path: "/saved.json") }
            #expect(error.code == .decodingFailed && error.path == "/saved.json" && error.operation == .loadScan)
            #expect(error.reason?.contains(reason) == true && error.reason?.contains("at byte") == true, "\(text): \(error)")
        }
        // The boundaries: the largest size there is, and version 1 with any minor version.
        let largest = try UsageReport(ncduExport: Data("[1,9,{},[{\"name\":\"/r\",\"asize\":9223372036854775807}]]".utf8))
        #expect(largest.logicalBytes == Int64.max)
    }

    @Test("a report of several roots, or none, cannot be saved: the format holds one")
    func oneRoot() throws {
        let folder = TestFolder()
        try Self.makeTree(folder.path + "/tree")
        let two = UsageScanner().scan([URL(filePath: folder.path + "/tree/sub"), URL(filePath: folder.path + "/tree/empty")])
        let error = try #require(throws: StowageError.self) { try two.ncduExport() }
        #expect(error.code == .invalidArgument && error.operation == .saveScan)
    }
}
