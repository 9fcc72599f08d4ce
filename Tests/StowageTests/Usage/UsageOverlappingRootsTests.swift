import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

/// Roots that overlap (one inside another, or given twice) count every folder and file once, as
/// `du` does across its arguments: the root met first owns what it holds, a root counted whole
/// already gets no figures (and du no line), and the total is du's total.
@Suite("UsageScanner with overlapping roots", .hangLimit)
struct UsageOverlappingRootsTests {
    /// `du -s -c` of `paths` with `flags`: the line of each argument (du prints none for one it
    /// counted already) and the total.
    static func du(_ flags: [String], _ paths: [String]) throws -> (lines: [(path: String, size: Int64)], total: Int64) {
        let result = try runProcess(try requireToolURL("du"), ["-s", "-c"] + flags + paths)
        var lines: [(path: String, size: Int64)] = []
        for line in result.output.split(separator: "\n") {
            let fields = line.split(separator: "\t", maxSplits: 1)
            let size = try #require(Int64(fields.first ?? ""), "du said: \(result.output)\(result.error)")
            lines.append((String(fields.last ?? ""), size))
        }
        let last = lines.popLast()
        let total = try #require(last, "du said: \(result.output)\(result.error)")
        try #require(total.path == "total")
        return (lines, total.size)
    }

    /// `u2/` holding `f` (5,000 bytes, hard-linked as `u2/a/f-link`), `a/g`, `a/b/h` and a link;
    /// `b/` holding `x`.
    static func makeTree(in folder: TestFolder) throws -> String {
        let root = folder.path
        try folder.write(String(repeating: "f", count: 5000), to: "u2/f")
        try folder.write(String(repeating: "g", count: 3000), to: "u2/a/g")
        try folder.write(String(repeating: "h", count: 100), to: "u2/a/b/h")
        try folder.write(String(repeating: "x", count: 7), to: "b/x")
        try FileManager.default.linkItem(atPath: root + "/u2/f", toPath: root + "/u2/a/f-link")
        try FileManager.default.createSymbolicLink(atPath: root + "/u2/a/link", withDestinationPath: "g")
        return root
    }

    @Test("each root's figures and the total match du -s -c (-b, -B1, --inodes), a root counted already has none",
          arguments: [["u2", "u2/a"], ["u2/a", "u2"], ["u2", "b", "u2"], ["u2", "u2/f"], ["u2/f", "u2"], ["u2/a/b/h", "u2/a", "u2"],
                      ["u2/a/f-link", "u2"], ["u2", "u2"], ["b", "u2/a", "u2", "b/x"]])
    func matchesDu(_ relative: [String]) throws {
        let folder = TestFolder()
        let root = try Self.makeTree(in: folder)
        let paths = relative.map { root + "/" + $0 }
        let report = UsageScanner().scan(paths.map { URL(filePath: $0) })
        let counted = report.roots.filter { $0.alreadyCountedIn == nil }
        let logical = try Self.du(["-b"], paths)
        #expect(counted.map(\.path) == logical.lines.map(\.path), "the roots du prints a line for")
        #expect(counted.map(\.logicalBytes) == logical.lines.map(\.size))
        #expect(report.logicalBytes == logical.total)
        let allocated = try Self.du(["-B1"], paths)
        #expect(counted.map(\.allocatedBytes) == allocated.lines.map(\.size))
        #expect(report.allocatedBytes == allocated.total)
        let inodes = try Self.du(["--inodes"], paths)
        let total = report.totals
        #expect(Int64(total.fileCount + total.folderCount + total.symbolicLinkCount + total.otherCount) == inodes.total, "each folder and file once")
        for root in report.roots where root.alreadyCountedIn != nil {
            #expect(root.logicalBytes == 0 && root.allocatedBytes == 0 && root.fileCount == 0 && root.folderCount == 0, "\(root)")
        }
        #expect(report.issues.isEmpty, "\(report.issues)")
    }

    @Test("a folder inside an earlier root is counted once and says which root counted it")
    func folderInsideEarlierRoot() throws {
        let folder = TestFolder()
        let root = try Self.makeTree(in: folder)
        let report = UsageScanner().scan([URL(filePath: root + "/u2"), URL(filePath: root + "/u2/a")])
        let alone = UsageScanner().scan([URL(filePath: root + "/u2")])
        #expect(report.totals.folderCount == 3, "u2, a and b, not a and b twice")
        #expect(report.totals == alone.totals, "u2/a adds nothing to u2")
        #expect(report.roots[1].path == root + "/u2/a")
        #expect(report.roots[1].alreadyCountedIn == root + "/u2")
        #expect(report.roots[0].alreadyCountedIn == nil)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report.roots[1])) as? [String: Any]
        #expect(json?["alreadyCountedIn"] as? String == root + "/u2")
    }

    @Test("the same root given twice is counted once, its breakdown and largest files once too")
    func sameRootTwice() throws {
        let folder = TestFolder()
        let root = try Self.makeTree(in: folder)
        let once = UsageScanner().scan([URL(filePath: root + "/u2")])
        let twice = UsageScanner().scan([URL(filePath: root + "/u2"), URL(filePath: root + "/u2")])
        #expect(twice.totals == once.totals)
        #expect(twice.breakdown.map(\.path).sorted() == once.breakdown.map(\.path).sorted())
        #expect(twice.largestFiles == once.largestFiles)
        #expect(twice.skippedHardLinkCount == once.skippedHardLinkCount, "a root given again is not an extra hard link")
    }

    @Test("one root alone keeps counting every hard link once and nothing else changes")
    func oneRoot() throws {
        let folder = TestFolder()
        let root = try Self.makeTree(in: folder)
        let report = UsageScanner().scan([URL(filePath: root + "/u2")])
        #expect(report.skippedHardLinkCount == 1)
        #expect(report.roots[0].alreadyCountedIn == nil)
        #expect(report.logicalBytes == (try Self.du(["-b"], [root + "/u2"])).total)
    }
}
