import Foundation
import Testing
@testable import Stowage

@Suite("UsageNode: the breakdown as a tree")
struct UsageNodeTests {
    /// Files of the given sizes (bytes) under `root`, folders made as needed.
    static func makeTree(_ root: String, _ files: [(String, Int)]) throws {
        for (path, size) in files {
            let url = URL(filePath: root + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(count: size).write(to: url)
        }
    }

    func names(_ nodes: [UsageNode]) -> [String] { nodes.map { String($0.item.path.split(separator: "/").last ?? "") } }

    @Test("children sit under their folder, largest first, equal sizes by path, to the depth asked")
    func treeOrder() throws {
        let folder = TestFolder()
        let root = folder.path + "/tree"
        try Self.makeTree(root, [("big/b/two", 300_000), ("big/one", 10_000), ("small/x", 8192), ("small/y", 8192),
                                 ("file", 50_000), ("equal-a", 4096), ("equal-b", 4096)])
        var options = UsageOptions()
        options.breakdownDepth = 2
        let report = UsageScanner(options: options).scan([URL(filePath: root)])
        let trees = report.breakdownTree()
        try #require(trees.count == 1)
        let tree = trees[0]
        #expect(tree.item.path == root && tree.item.depth == 0 && tree.item.isFolder)
        #expect(tree.item.allocatedBytes == report.allocatedBytes && tree.item.fileCount == 7)
        #expect(names(tree.children) == ["big", "file", "small", "equal-a", "equal-b"])
        let big = tree.children[0]
        #expect(names(big.children) == ["b", "one"])
        #expect(big.children[0].children.isEmpty, "depth 2: the file inside b is not in the breakdown")
        #expect(names(tree.children[2].children) == ["x", "y"])
        #expect(tree.allNodes.count == report.breakdown.count + 1, "every item once, and the root")
        for node in tree.children { #expect(node.item.allocatedBytes >= node.children.map(\.item.allocatedBytes).reduce(0, +)) }
    }

    @Test("with two roots, one inside the other, each item goes under the root that counted it (once, as du)")
    func nestedRoots() throws {
        let folder = TestFolder()
        let root = folder.path + "/tree"
        try Self.makeTree(root, [("inner/a", 4096), ("outer", 4096)])
        let report = UsageScanner().scan([URL(filePath: root), URL(filePath: root + "/inner")])
        let trees = report.breakdownTree()
        #expect(trees.map(\.item.path) == [root, root + "/inner"])
        #expect(Set(names(trees[0].children)) == ["inner", "outer"] && trees[0].children.allSatisfy { $0.children.isEmpty })
        #expect(trees[1].children.isEmpty, "inner was counted in the first root")
        let innerFirst = UsageScanner().scan([URL(filePath: root + "/inner"), URL(filePath: root)]).breakdownTree()
        #expect(names(innerFirst[0].children) == ["a"])
        #expect(names(innerFirst[1].children) == ["outer"], "inner was counted already")
    }

    @Test("ranked by logical size when asked")
    func logicalRanking() throws {
        let folder = TestFolder()
        let root = folder.path + "/tree"
        try Self.makeTree(root, [("dense", 8192)])
        // A sparse file: large logically, nothing allocated.
        _ = FileManager.default.createFile(atPath: root + "/sparse", contents: nil)
        let handle = try FileHandle(forWritingTo: URL(filePath: root + "/sparse"))
        try handle.truncate(atOffset: 1 << 20)
        try handle.close()
        let report = UsageScanner().scan([URL(filePath: root)])
        #expect(names(report.breakdownTree()[0].children) == ["dense", "sparse"])
        #expect(names(report.breakdownTree(rankedByLogicalSize: true)[0].children) == ["sparse", "dense"])
    }

    @Test("in JSON a node is its item's fields with children, and decodes back")
    func json() throws {
        let leaf = UsageItem(path: "/r/a/b", depth: 2, isFolder: false, logicalBytes: 5, allocatedBytes: 4096, fileCount: 1)
        let node = UsageNode(item: UsageItem(path: "/r/a", depth: 1, isFolder: true, logicalBytes: 5, allocatedBytes: 8192, fileCount: 1),
                             children: [UsageNode(item: leaf)])
        let data = try JSONEncoder().encode(node)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["path"] as? String == "/r/a" && object["allocatedBytes"] as? Int == 8192)
        let children = try #require(object["children"] as? [[String: Any]])
        #expect(children.count == 1 && children[0]["path"] as? String == "/r/a/b" && (children[0]["children"] as? [Any])?.isEmpty == true)
        #expect(try JSONDecoder().decode(UsageNode.self, from: data) == node)
    }

    @Test("breakdown items carry their own modification time, in JSON too; roots and the largest files none")
    func modificationTimes() throws {
        let folder = TestFolder()
        let root = folder.path + "/tree"
        try Self.makeTree(root, [("old", 10), ("sub/new", 10)])
        let old = Date(timeIntervalSince1970: 1_000_000_000)
        let new = Date(timeIntervalSince1970: 2_000_000_000)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: root + "/old")
        try FileManager.default.setAttributes([.modificationDate: new], ofItemAtPath: root + "/sub")
        var options = UsageOptions()
        options.breakdownDepth = .max
        let report = UsageScanner(options: options).scan([URL(filePath: root)])
        let times = Dictionary(uniqueKeysWithValues: report.breakdown.map { ($0.path, $0.modificationDate) })
        #expect(times[root + "/old"] == old)
        #expect(times[root + "/sub"] == new)
        #expect(times[root + "/sub/new"] != nil)
        #expect(report.largestFiles.allSatisfy { $0.modificationDate == nil })
        #expect(report.breakdownTree()[0].item.modificationDate == nil)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let item = try #require(report.breakdown.first { $0.path == root + "/old" })
        let text = String(decoding: try encoder.encode(item), as: UTF8.self)
        #expect(text.contains("\"modificationDate\":1000000000"))
        #expect(try decoder.decode(UsageItem.self, from: Data(text.utf8)) == item)
        let largest = try #require(report.largestFiles.first)
        #expect(!String(decoding: try encoder.encode(largest), as: UTF8.self).contains("modificationDate"))
    }
}
