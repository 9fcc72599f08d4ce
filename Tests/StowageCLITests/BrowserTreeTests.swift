import Foundation
import Stowage
import StowageTestSupport
import Testing
@testable import stowage

/// The browser's tree as a value: the browser keeps its `tree` while a rescan or a deletion
/// changes a copy (`updated`), and a tree made from a scan shares the scan's chunks of nodes;
/// no copy may see another's change. Real scans of scratch trees, near the nodes' chunk size.
@Suite("BrowserTree: copies of the browser's tree")
struct BrowserTreeTests {
    /// Every entry reachable from the top of `tree`, sorted: its path under the top, its figures,
    /// whether it is a folder and how many children it shows.
    static func entries(_ tree: BrowserTree) -> [String] {
        var entries: [String] = []
        var pending = [(tree.top, "")]
        while let (index, path) = pending.popLast() {
            let node = tree[index], children = tree.children(of: index)
            entries.append("\(path) \(node.logicalBytes) \(node.allocatedBytes) \(node.fileCount) \(node.isFolder) \(children.count)")
            for child in children { pending.append((child, path + "/" + String(decoding: tree.name(of: child), as: UTF8.self))) }
        }
        return entries.sorted()
    }

    static func scan(_ paths: [String]) -> UsageNameTree {
        var options = UsageOptions()
        options.largestFileCount = 0
        return UsageScanner(options: options).scanNameTree(paths.map { URL(filePath: $0) })
    }

    /// `root` holding a (`aFiles` files) and b (`bFiles` files): 3 + aFiles + bFiles nodes.
    static func makeTree(_ root: String, aFiles: Int, bFiles: Int) throws {
        for folder in ["a", "b"] { try RawFiles.makeFolder(Array((root + "/" + folder).utf8)) }
        for index in 0..<aFiles { try RawFiles.makeFile(Array((root + "/a/f\(index)").utf8), size: index % 5 * 100) }
        for index in 0..<bFiles { try RawFiles.makeFile(Array((root + "/b/g\(index)").utf8), size: 3000 + index) }
    }

    @Test("a rescan put into a copy (its nodes appended into the last chunk's room the other copy shares, and on into a new chunk) and a deletion in it: the other copy keeps every entry and figure; the changed one is what a new scan finds")
    func copiesChangeAlone() throws {
        let runner = try CommandRunner()
        let root = runner.folderPath + "/tree"
        try RawFiles.makeFolder(Array(root.utf8))
        // 4,083 nodes: the second chunk of 4,096 is reached only by the rescan's 50.
        try Self.makeTree(root, aFiles: 4060, bFiles: 20)
        let tree = BrowserTree(scanned: Self.scan([root]))
        let before = Self.entries(tree)
        #expect(before.count == 4083)
        let b = try #require(tree.child(named: Array("b".utf8)[...], of: tree.top))
        for index in 20..<50 { try RawFiles.makeFile(Array((root + "/b/g\(index)").utf8), size: 3000 + index) }
        var updated = tree
        updated.replace(b, with: Self.scan([root + "/b"]))
        #expect(Self.entries(tree) == before, "the tree kept while the rescan's copy changes")
        #expect(Self.entries(updated) == Self.entries(BrowserTree(scanned: Self.scan([root]))), "the copy: the folder as scanned now")
        // A deletion in a copy of the copy: a file of a (in the first chunk) taken out of its folder.
        let kept = Self.entries(updated)
        var deleting = updated
        let a = try #require(deleting.child(named: Array("a".utf8)[...], of: deleting.top))
        let file = try #require(deleting.child(named: Array("f4".utf8)[...], of: a))
        deleting.detach(file)
        #expect(Self.entries(updated) == kept && Self.entries(tree) == before)
        #expect(deleting[a].fileCount == 4059 && deleting.children(of: a).count == 4059 && deleting[deleting.top].fileCount == 4109)
    }

    @Test("several roots under a top node: the tree made from a scan changes the roots' nodes and appends the top, and the scan it was made from keeps its nodes as they were")
    func topLeavesTheScan() throws {
        let runner = try CommandRunner()
        let roots = [runner.folderPath + "/one", runner.folderPath + "/two"]
        for root in roots { try RawFiles.makeFolder(Array(root.utf8)) }
        try Self.makeTree(roots[0], aFiles: 10, bFiles: 2)
        try Self.makeTree(roots[1], aFiles: 3, bFiles: 1)
        let scanned = Self.scan(roots)
        let nodes = Array(scanned.nodes)
        let tree = BrowserTree(scanned: scanned, topName: "both")
        #expect(Array(scanned.nodes) == nodes && scanned.nodes[0].parent == nil && scanned.nodes[1].parent == nil, "the scan's nodes as they were")
        #expect(tree.children(of: tree.top) == [0, 1] && tree[0].parent == tree.top && tree[tree.top].fileCount == 16)
    }
}
