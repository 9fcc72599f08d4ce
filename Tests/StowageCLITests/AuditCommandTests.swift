import Foundation
import StowageTestSupport
import Testing

@Suite("stowage audit")
struct AuditCommandTests {
    @Test("a large file whose name is not UTF-8 is a finding: escaped in text, pathBase64 in JSON, exit 0")
    func nameNotUTF8() async throws {
        let runner = try CommandRunner()
        let documents = runner.folderPath + "/app/Documents"
        try FileManager.default.createDirectory(atPath: documents, withIntermediateDirectories: true)
        let name = Array("big".utf8) + [0xFF]
        try RawFiles.makeFile(RawFiles.join(documents, name), size: 2_000_000)
        let text = try await runner.run("audit", "--root", "app", "--min-size", "1MB")
        #expect(text.status == 0, "\(text.error)")
        #expect(text.output.contains(#"big\xff"#), "\(text.output)")
        let json = try await runner.run("audit", "--root", "app", "--min-size", "1MB", "--json")
        #expect(json.status == 0, "\(json.error)")
        let findings = try #require(try json.json()["findings"] as? [[String: Any]])
        #expect(findings.count == 1)
        #expect(findings.first?["pathBase64"] as? String == Data(name).base64EncodedString())
        #expect(findings.first?["path"] as? String == "big\u{FFFD}")
    }

    @Test("a --root that is a file or a FIFO is an error naming it: a JSON error document with --json, no internal type",
          arguments: ["file", "fifo"])
    func rootNotAFolder(kind: String) async throws {
        let runner = try CommandRunner()
        let root = runner.folderPath + "/root"
        if kind == "file" {
            try Data("x".utf8).write(to: URL(filePath: root))
        } else {
            try #require(mkfifo(root, 0o600) == 0)
        }
        let json = try await runner.run("audit", "--root", root, "--json")
        #expect(json.status == 1, "\(json.output)\(json.error)")
        let error = try #require(try json.json()["error"] as? [String: Any], "\(json.output)")
        #expect(error["code"] as? String == "wrongKind")
        #expect(error["operation"] as? String == "audit")
        #expect(error["path"] as? String == root)
        #expect(error["message"] as? String == "audit '\(root)' failed: not a directory")
        #expect(!json.error.contains("SystemCallError") && !json.error.contains("Error:"), "\(json.error)")
        let text = try await runner.run("audit", "--root", root)
        #expect(text.status == 1)
        #expect(text.error == "stowage: audit '\(root)' failed: not a directory\n", "\(text.error)")
    }
}
