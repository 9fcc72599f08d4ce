import Foundation
import Testing
@testable import Stowage

@Suite("UsageDifference: what grew since a saved scan")
struct UsageDifferenceTests {
    static func write(_ path: String, _ size: Int) throws {
        let url = URL(filePath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: url)
    }

    /// Each change by its path below `root`: its kind and its three changes.
    struct Seen: Hashable, CustomStringConvertible {
        var path: String
        var kind: UsageChange.Kind
        var allocated: Int64
        var logical: Int64
        var files: Int
        var description: String { "\(kind) \(path) \(allocated) \(logical) \(files)" }
    }

    static func seen(_ difference: UsageDifference, root: String) -> Set<Seen> {
        Set(difference.roots[0].children.flatMap(\.allChanges).map {
            Seen(path: String($0.path.dropFirst(root.count + 1)), kind: $0.kind, allocated: $0.changeInAllocatedBytes,
                 logical: $0.changeInLogicalBytes, files: $0.changeInFileCount)
        })
    }

    /// The change of the item at `path` (below `root`) from `before` to `after`, from each
    /// report's own figures for it (zero where it is not listed).
    static func expected(_ path: String, _ kind: UsageChange.Kind, before: UsageReport, after: UsageReport, root: String) -> Seen {
        func figures(_ report: UsageReport) -> UsageFigures {
            report.breakdown.first { $0.path == root + "/" + path }.map(UsageFigures.init) ?? UsageFigures()
        }
        let old = figures(before), new = figures(after)
        return Seen(path: path, kind: kind, allocated: new.allocatedBytes - old.allocatedBytes, logical: new.logicalBytes - old.logicalBytes,
                    files: new.fileCount - old.fileCount)
    }

    @Test("a tree changed in known ways: every file and folder added, removed, grown, renamed or hard-linked is found, and nothing else")
    func knownChanges() throws {
        let folder = TestFolder()
        let root = folder.path + "/tree"
        for (path, size) in [("keep/grow", 10_000), ("keep/same", 3000), ("gone/x", 20_000), ("gone/y/z", 5000), ("old-name", 5000),
                             ("dup-a", 8000), ("dup-b", 8000), ("moved/inside-a", 6000), ("untouched/u", 70_000)] {
            try Self.write(root + "/" + path, size)
        }
        let before = try UsageReport(ncduExport: UsageScanner(options: SavedScanTests.everything).scan([URL(filePath: root)]).ncduExport(),
                                     options: SavedScanTests.everything)
        let handle = try FileHandle(forWritingTo: URL(filePath: root + "/keep/grow"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(count: 50_000))
        try handle.close()
        try FileManager.default.removeItem(atPath: root + "/gone")
        try FileManager.default.moveItem(atPath: root + "/old-name", toPath: root + "/new-name")
        try FileManager.default.moveItem(atPath: root + "/moved/inside-a", toPath: root + "/moved/inside-b")
        try Self.write(root + "/added/y", 7000)
        try FileManager.default.removeItem(atPath: root + "/dup-b")
        try FileManager.default.linkItem(atPath: root + "/dup-a", toPath: root + "/dup-b")
        let after = UsageScanner(options: SavedScanTests.everything).scan([URL(filePath: root)])

        let difference = after.difference(from: before)
        // The hard link counts under one of its names (the first the scan met): the other went.
        let counted = try #require(after.breakdown.first { $0.hardLink != nil }).path
        let uncounted = counted.hasSuffix("dup-a") ? "dup-b" : "dup-a"
        func expect(_ path: String, _ kind: UsageChange.Kind) -> Seen { Self.expected(path, kind, before: before, after: after, root: root) }
        let expected: Set<Seen> = [
            expect("keep", .grown), expect("keep/grow", .grown),
            expect("gone", .removed), expect("gone/x", .removed), expect("gone/y", .removed), expect("gone/y/z", .removed),
            expect("old-name", .removed), expect("new-name", .added),
            expect("moved", .rearranged), expect("moved/inside-a", .removed), expect("moved/inside-b", .added),
            expect("added", .added), expect("added/y", .added),
            expect(uncounted, .removed),
        ]
        #expect(Self.seen(difference, root: root) == expected)
        #expect(expected.allSatisfy { $0.kind == .rearranged || $0.allocated != 0 }, "each change is a real one")
        let top = difference.roots[0]
        #expect(top.kind == .grown && top.before.map(\.allocatedBytes) == before.allocatedBytes && top.after.map(\.allocatedBytes) == after.allocatedBytes)
        #expect(top.changeInAllocatedBytes == after.allocatedBytes - before.allocatedBytes)
        let order = top.children.map { abs($0.changeInAllocatedBytes) }
        #expect(order == order.sorted(by: >), "the largest change first")
        #expect(after.difference(from: after).roots.map(\.kind) == [.unchanged] && after.difference(from: after).roots[0].children.isEmpty)
    }

    @Test("names are matched as bytes: of two names that read the same as text, only the one that grew is listed")
    func namesAsBytes() throws {
        let folder = TestFolder()
        let root = folder.path + "/tree"
        try RawFiles.makeFolder(Array(root.utf8))
        let grows = RawFiles.join(root, [0x6E, 0xFF]), stays = RawFiles.join(root, [0x6E, 0xFE])
        try RawFiles.makeFile(grows, size: 100)
        try RawFiles.makeFile(stays, size: 100)
        let before = UsageScanner(options: SavedScanTests.everything).scan([URL(filePath: root)])
        try #require(RawFiles.withPath(grows) { unlink($0) } == 0)
        try RawFiles.makeFile(grows, size: 9000)
        let after = UsageScanner(options: SavedScanTests.everything).scan([URL(filePath: root)])
        let changes = after.difference(from: before).roots[0].children
        #expect(changes.map(\.pathBytes) == [grows] && changes.map(\.kind) == [.grown])
    }

    @Test("a file that became a folder is the file removed and the folder added; the other order shrinks a root")
    func kindChanged() throws {
        let folder = TestFolder()
        let root = folder.path + "/tree"
        try Self.write(root + "/k", 9000)
        let before = UsageScanner(options: SavedScanTests.everything).scan([URL(filePath: root)])
        try FileManager.default.removeItem(atPath: root + "/k")
        try Self.write(root + "/k/inner", 100)
        let after = UsageScanner(options: SavedScanTests.everything).scan([URL(filePath: root)])
        let forward = after.difference(from: before).roots[0]
        #expect(Set(forward.children.map { "\($0.kind) \($0.isFolder)" }) == ["removed false", "added true"])
        #expect(forward.children.first { $0.isFolder }?.children.map(\.kind) == [.added])
        let backward = before.difference(from: after).roots[0]
        #expect(backward.kind == (before.allocatedBytes < after.allocatedBytes ? .shrunk : .grown))
    }
}
