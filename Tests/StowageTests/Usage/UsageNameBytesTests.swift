import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

/// Names stay bytes in a scan (Architecture article: bytes at every boundary): a name that is not UTF-8 is reported exactly
/// (``UsageItem/pathBytes``, `pathBase64` in JSON) and a folder so named is read like any other,
/// also when it is opened by its path. `a\377` and `a\376` both read `a\u{FFFD}` as text.
@Suite("UsageScanner keeps names as bytes", .hangLimit)
struct UsageNameBytesTests {
    static let fileA: [UInt8] = Array("a".utf8) + [0xFF]
    static let fileB: [UInt8] = Array("a".utf8) + [0xFE]
    static let folderA: [UInt8] = Array("d".utf8) + [0xFF]
    static let folderB: [UInt8] = Array("d".utf8) + [0xFE]

    /// `names/` holding the files `a\377` (1,000 bytes) and `a\376` (2,000), and the folders
    /// `d\377` (with `inner`, 30,000 bytes) and `d\376` (with `other`, 20,000 bytes).
    static func makeTree(in folder: TestFolder) throws -> String {
        let root = folder.path + "/names"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try RawFiles.makeFile(RawFiles.join(root, fileA), size: 1000)
        try RawFiles.makeFile(RawFiles.join(root, fileB), size: 2000)
        try RawFiles.makeFolder(RawFiles.join(root, folderA))
        try RawFiles.makeFile(RawFiles.join(root, folderA + Array("/inner".utf8)), size: 30_000)
        try RawFiles.makeFolder(RawFiles.join(root, folderB))
        try RawFiles.makeFile(RawFiles.join(root, folderB + Array("/other".utf8)), size: 20_000)
        return root
    }

    @Test("the breakdown, its tree and the largest files name each item by its exact bytes")
    func exactNames() throws {
        let folder = TestFolder()
        let root = try Self.makeTree(in: folder)
        var options = UsageOptions()
        options.breakdownDepth = 2
        let report = UsageScanner(options: options).scan([URL(filePath: root)])
        let below = { (name: [UInt8]) in RawFiles.join(root, name) }
        #expect(Set(report.breakdown.map(\.pathBytes)) == [below(Self.fileA), below(Self.fileB), below(Self.folderA), below(Self.folderB),
                                                            below(Self.folderA + Array("/inner".utf8)),
                                                            below(Self.folderB + Array("/other".utf8))])
        #expect(report.breakdown.first { $0.pathBytes == below(Self.fileA) }?.logicalBytes == 1000)
        #expect(report.breakdown.first { $0.pathBytes == below(Self.fileB) }?.logicalBytes == 2000)
        #expect(report.breakdown.first { $0.pathBytes == below(Self.fileA) }?.path == root + "/a\u{FFFD}", "the text is the lossy form")
        #expect(report.largestFiles.map(\.pathBytes) == [below(Self.folderA + Array("/inner".utf8)), below(Self.folderB + Array("/other".utf8)),
                                                          below(Self.fileB), below(Self.fileA)])
        // The tree puts each file under its own folder, though both folders read d\u{FFFD}.
        let tree = report.breakdownTree()[0]
        let folderA = try #require(tree.children.first { $0.item.pathBytes == below(Self.folderA) })
        let folderB = try #require(tree.children.first { $0.item.pathBytes == below(Self.folderB) })
        #expect(folderA.children.map(\.item.pathBytes) == [below(Self.folderA + Array("/inner".utf8))])
        #expect(folderB.children.map(\.item.pathBytes) == [below(Self.folderB + Array("/other".utf8))])
        #expect(report.issues.isEmpty, "\(report.issues)")
    }

    @Test("JSON carries pathBase64 only for a path that is not UTF-8, and decodes to the same bytes")
    func json() throws {
        let folder = TestFolder()
        let root = try Self.makeTree(in: folder)
        let report = UsageScanner().scan([URL(filePath: root)])
        let item = try #require(report.breakdown.first { $0.pathBytes == RawFiles.join(root, Self.fileA) })
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(item)) as? [String: Any])
        #expect(object["pathBase64"] as? String == Data(RawFiles.join(root, Self.fileA)).base64EncodedString())
        #expect(object["path"] as? String == root + "/a\u{FFFD}")
        #expect(try JSONDecoder().decode(UsageItem.self, from: JSONEncoder().encode(item)) == item)
        let decoded = try JSONDecoder().decode(UsageReport.self, from: JSONEncoder().encode(report))
        #expect(decoded == report)
        let plain = UsageItem(path: root, depth: 0, isFolder: true, logicalBytes: 0, allocatedBytes: 0, fileCount: 0)
        let plainObject = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(plain)) as? [String: Any])
        #expect(plainObject["pathBase64"] == nil, "a UTF-8 path has no pathBase64")
        let issue = UsageIssue(pathBytes: RawFiles.join(root, Self.folderA), errno: .permissionDenied, message: "permission denied")
        #expect(try JSONDecoder().decode(UsageIssue.self, from: JSONEncoder().encode(issue)).pathBytes == RawFiles.join(root, Self.folderA))
    }

    @Test("folders opened by their path, past the scan's descriptor budget, are found by their bytes (totals as du)")
    func foldersOpenedByPath() throws {
        let folder = TestFolder()
        let root = folder.path + "/many"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for index in 0..<400 {  // more than the 256 descriptors pending work may hold
            let name = Array("f\(index)".utf8) + [0xFF]
            try RawFiles.makeFolder(RawFiles.join(root, name))
            try RawFiles.makeFile(RawFiles.join(root, name + Array("/x".utf8)), size: 10)
        }
        var options = UsageOptions.totalsOnly
        options.threads = 1
        let report = UsageScanner(options: options).scan([URL(filePath: root)])
        #expect(report.issues.isEmpty, "\(report.issues.prefix(3))")
        #expect(report.totals.fileCount == 400)
        #expect(report.totals.folderCount == 401)
        #expect(report.logicalBytes == (try UsageScannerTests.du(["-b"], root)))
        #expect(report.allocatedBytes == (try UsageScannerTests.du(["-B1"], root)))
    }

    @Test("an excluded pattern with a slash matches the path below the root as bytes")
    func excludedPathPattern() throws {
        let folder = TestFolder()
        let root = try Self.makeTree(in: folder)
        var options = UsageOptions()
        options.excludedPatterns = ["d\u{FFFD}/inner"]  // the lossy spelling names nothing
        let kept = UsageScanner(options: options).scan([URL(filePath: root)])
        #expect(kept.totals.fileCount == 4)
        options.excludedPatterns = ["d?/inner"]  // one byte, whatever it is
        let excluded = UsageScanner(options: options).scan([URL(filePath: root)])
        #expect(excluded.totals.fileCount == 3)
        #expect(excluded.logicalBytes == kept.logicalBytes - 30_000)
    }
}
