import Foundation
import StowageTestSupport
import Testing
@testable import Stowage
@testable import stowage

/// `usage --json` is written by `UsageJSON.text()`, not `JSONEncoder`: these check that it writes
/// exactly the bytes `JSONOutput.encode` writes for the same document, on empty, hostile and
/// seeded random reports, and on a scan of a folder with hostile names.
@Suite("usage --json: UsageJSON.text() writes JSONOutput.encode's bytes")
struct UsageJSONTests {
    /// Both texts equal; on a difference, says where the first one is.
    static func expectSame(_ document: UsageJSON, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let written = document.text(), encoded = try JSONOutput.encode(document)
        guard written != encoded else { return }
        let at = zip(written.utf8, encoded.utf8).prefix { $0 == $1 }.count
        func around(_ text: String) -> String { String(decoding: Array(text.utf8.dropFirst(max(0, at - 80)).prefix(160)), as: UTF8.self).debugDescription }
        Issue.record("\(what): the texts differ at byte \(at): written \(around(written)), JSONEncoder \(around(encoded))", sourceLocation: sourceLocation)
    }

    static func document(_ report: UsageReport) -> UsageJSON {
        UsageJSON(report, breakdown: report.breakdownTree().flatMap(\.children))
    }

    @Test("empty: a report of no root, and the schema test's report (a hard link, a name that is not UTF-8, issues)")
    func small() throws {
        let none = UsageReport(roots: [], totals: UsageTotals(), skippedHardLinkCount: 0, largestFiles: [], breakdown: [], issues: [])
        try Self.expectSame(Self.document(none), "no root")
        try Self.expectSame(Self.document(JSONSchemaCoverageTests.usageReport()), "the schema test's report")
    }

    @Test("50 seeded random reports: hostile names, figures at Int64's ends, dates before 1970 and after 9999, hard links with and without a count")
    func randomReports() throws {
        var random = SeededRandom(for: "UsageJSONTests/randomReports")
        let pieces: [[UInt8]] = [Array("a".utf8), Array("é".utf8), Array("\"".utf8), Array("\\".utf8), [0x0A], [0x09], [0x00], [0x1F], [0x7F],
                                 Array("\u{2028}".utf8), Array("😀".utf8), [0xFF], [0xC3], Array("/".utf8), Array(" ".utf8)]
        func number(_ random: inout SeededRandom) -> Int64 {
            Bool.random(using: &random) ? [Int64.min, -1, 0, 1, .max].randomElement(using: &random)! : Int64.random(in: .min ... .max, using: &random)
        }
        func name(_ random: inout SeededRandom) -> [UInt8] {
            (0..<Int.random(in: 1...4, using: &random)).flatMap { _ in pieces.randomElement(using: &random)! }
        }
        func item(_ path: [UInt8], depth: Int, isFolder: Bool, _ random: inout SeededRandom) -> UsageItem {
            let seconds: Double? = [nil, 0, -1.5, 1_764_350_000, 253_402_300_800, Double(number(&random) >> 30)].randomElement(using: &random)!
            let link = Int.random(in: 0..<4, using: &random) == 0
                ? UsageHardLink(device: UInt64.random(in: 0 ... .max, using: &random), inode: .max,
                                linkCount: Bool.random(using: &random) ? nil : UInt64.random(in: 2 ... .max, using: &random)) : nil
            return UsageItem(pathBytes: path, depth: depth, isFolder: isFolder, logicalBytes: number(&random), allocatedBytes: number(&random),
                             fileCount: Int(number(&random)), modificationDate: seconds.map { Date(timeIntervalSince1970: $0) }, hardLink: link)
        }
        func node(_ path: [UInt8], depth: Int, _ random: inout SeededRandom) -> UsageNode {
            let isFolder = Bool.random(using: &random)
            let count = isFolder && depth < 5 ? Int.random(in: 0...4, using: &random) : 0
            return UsageNode(item: item(path, depth: depth, isFolder: isFolder, &random),
                             children: (0..<count).map { _ in node(path + [0x2F] + name(&random), depth: depth + 1, &random) })
        }
        func totals(_ random: inout SeededRandom) -> UsageTotals {
            var totals = UsageTotals(path: Bool.random(using: &random) ? nil : ReportedPath.text([0x2F] + name(&random)))
            totals.logicalBytes = number(&random)
            totals.allocatedBytes = number(&random)
            totals.fileCount = Int(number(&random))
            totals.folderCount = Int(number(&random))
            totals.symbolicLinkCount = Int(number(&random))
            totals.otherCount = Int(number(&random))
            totals.alreadyCountedIn = Bool.random(using: &random) ? nil : ReportedPath.text([0x2F] + name(&random))
            return totals
        }
        for index in 0..<50 {
            let none = UsageReport(roots: [], totals: UsageTotals(), skippedHardLinkCount: 0, largestFiles: [], breakdown: [], issues: [])
            var document = UsageJSON(none, breakdown: [])
            document.allocatedBytes = number(&random)
            document.logicalBytes = number(&random)
            document.fileCount = Int(number(&random))
            document.folderCount = Int(number(&random))
            document.symbolicLinkCount = Int(number(&random))
            document.otherCount = Int(number(&random))
            document.skippedHardLinkCount = Int(number(&random))
            document.roots = (0..<Int.random(in: 0...3, using: &random)).map { _ in totals(&random) }
            document.breakdown = (0..<Int.random(in: 0...5, using: &random)).map { _ in node([0x2F] + name(&random), depth: 1, &random) }
            document.largestFiles = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                item([0x2F] + name(&random), depth: 0, isFolder: false, &random)
            }
            document.issues = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                UsageIssue(pathBytes: [0x2F] + name(&random), errno: [nil, .permissionDenied, .noSuchEntry].randomElement(using: &random)!,
                           message: ReportedPath.text(name(&random)))
            }
            try Self.expectSame(document, "report \(index) of seed \(random.seed)")
        }
    }

    @Test("a scan of a folder with hostile names (a quote, a backslash, a newline, U+2028, bytes that are not UTF-8) and a hard link")
    func scanned() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "usage-json-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try RawFiles.makeFolder(Array(folder.utf8))
        for name: [UInt8] in [Array("q\"b\\s".utf8), Array("new\nline".utf8), Array("line\u{2028}sep".utf8), [0x6E, 0xFF, 0x78]] {
            try RawFiles.makeFolder(RawFiles.join(folder, name))
            try RawFiles.makeFile(RawFiles.join(folder, name + Array("/f\u{1}".utf8)), size: 5000)
        }
        try FileManager.default.linkItem(atPath: folder + "/new\nline/f\u{1}", toPath: folder + "/linked")
        var options = UsageOptions()
        options.breakdownDepth = .max
        let report = UsageScanner(options: options).scan([URL(filePath: folder, directoryHint: .isDirectory)])
        #expect(report.breakdown.count >= 8, "every folder and file listed")
        try Self.expectSame(Self.document(report), "the scan")
    }
}
