import Foundation
import Testing

/// Names in text output are escaped: a file name cannot move the cursor, clear the screen or
/// break a line of a table. JSON output keeps names as they are (JSON escapes them itself).
@Suite("stowage escapes control characters in the names it prints")
struct EscapedNameCommandTests {
    /// Names a stranger could give files, and how text output shows them.
    static let names: [(raw: String, shown: String)] = [
        ("a\u{1B}[2Jb", #"a\x1b[2Jb"#),
        ("line\nbreak", #"line\nbreak"#),
        ("tab\there", #"tab\there"#),
        ("carriage\rreturn", #"carriage\rreturn"#),
        ("back\\slash", #"back\\slash"#),
        ("bell\u{07}", #"bell\x07"#),
        ("del\u{7F}ete", #"del\x7fete"#),
        ("next\u{85}line", #"next\u{85}line"#),
        ("csi\u{9B}2J", #"csi\u{9b}2J"#),
        ("café ☕", "café ☕"),
    ]

    func makeFiles(in folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in Self.names.map(\.raw) { try Data(count: 100).write(to: URL(filePath: folder + "/" + name)) }
    }

    func expectEscaped(_ text: String, names: [(raw: String, shown: String)] = Self.names,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        for (raw, shown) in names {
            #expect(text.contains(shown), "\(shown) is shown escaped in:\n\(text)", sourceLocation: sourceLocation)
            if raw != shown { #expect(!text.contains(raw), "\(shown) is not printed raw", sourceLocation: sourceLocation) }
        }
        let controls = text.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) }
        #expect(controls.isEmpty, "no control character but line ends: \(controls.map { $0.value })", sourceLocation: sourceLocation)
    }

    @Test("usage lists such names escaped in the breakdown and the largest files")
    func usage() async throws {
        let runner = try CommandRunner()
        try makeFiles(in: runner.folderPath + "/names")
        let result = try await runner.run("usage", "names", "--depth", "1")
        #expect(result.status == 0, "\(result.error)")
        expectEscaped(result.output)
        #expect(result.output.components(separatedBy: "\n").filter { $0.contains(#"line\nbreak"#) }.count == 2,
                "one row in the breakdown, one in the largest files")
        let json = try await runner.run("usage", "names", "--depth", "1", "--json").json()
        let paths = try #require(json["breakdown"] as? [[String: Any]]).compactMap { $0["path"] as? String }
        #expect(paths.contains(runner.folderPath + "/names/a\u{1B}[2Jb"), "JSON keeps the name as it is")
    }

    @Test("a dry-run sweep lists such names escaped")
    func sweep() async throws {
        let runner = try CommandRunner()
        try makeFiles(in: runner.folderPath + "/names")
        let result = try await runner.run("sweep", "names", "--max-count", "0", "--dry-run")
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.hasPrefix("Would remove \(Self.names.count) files"))
        expectEscaped(result.output)
        #expect(try FileManager.default.contentsOfDirectory(atPath: runner.folderPath + "/names").count == Self.names.count)
    }

    @Test("the folder named on the command line and error messages are escaped too")
    func foldersAndErrors() async throws {
        let runner = try CommandRunner()
        let folder = "dir\u{1B}]0;title\u{07}"
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/" + folder, withIntermediateDirectories: true)
        let sweep = try await runner.run("sweep", folder, "--max-count", "0", "--dry-run")
        #expect(sweep.status == 0, "\(sweep.error)")
        expectEscaped(sweep.output, names: [(folder, #"dir\x1b]0;title\x07"#)])
        let missing = try await runner.run("sweep", "gone\u{1B}[2J", "--max-count", "0")
        #expect(missing.status == 1)
        expectEscaped(missing.error, names: [("gone\u{1B}[2J", #"gone\x1b[2J"#)])
        let usage = try await runner.run("usage", folder, "--summarize")
        expectEscaped(usage.output, names: [(folder, #"dir\x1b]0;title\x07"#)])
    }

    @Test("audit findings and a fill folder's foreign entries are escaped")
    func auditAndFill() async throws {
        let runner = try CommandRunner()
        try makeFiles(in: runner.folderPath + "/app/Documents")
        let audit = try await runner.run("audit", "--root", "app", "--min-size", "1")
        #expect(audit.status == 0, "\(audit.error)")
        expectEscaped(audit.output)
        try makeFiles(in: runner.folderPath + "/filled/.stowage-fill")
        let status = try await runner.run("fill", "filled", "--status")
        #expect(status.status == 0, "\(status.error)")
        expectEscaped(status.output + status.error)
    }
}
