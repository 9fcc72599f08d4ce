import Foundation
import Testing

/// `stowage usage --export`, `--import` and `--compare`: saved scans and what grew.
@Suite("stowage usage: saved scans and what grew")
struct UsageSavedScanCommandTests {
    static func write(_ size: Int, to path: String) throws {
        let url = URL(filePath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(repeating: 7, count: size).write(to: url)
    }

    /// A tree of a few folders and files (no hard links: an export holds the name counted only).
    static func makeTree(_ runner: CommandRunner) throws -> String {
        let root = runner.folderPath + "/tree"
        for (path, size) in [("a/x", 100_000), ("a/y", 9000), ("b/deep/z", 50_000), ("c", 30_000)] {
            try write(size, to: root + "/" + path)
        }
        return root
    }

    /// `arguments` run by the shell (for a pipe), with `stowage` meaning the built command.
    static func shell(_ runner: CommandRunner, _ script: String) async throws -> ProcessResult {
        try await runProcess(URL(filePath: "/bin/sh"), ["-c", script.replacingOccurrences(of: "stowage ", with: "'\(try CommandRunner.binary().path)' ")],
                       directory: runner.folder)
    }

    @Test("a saved scan shows as the scan did: the same text and JSON, at any depth")
    func importShowsAsUsage() async throws {
        let runner = try CommandRunner()
        let root = try Self.makeTree(runner)
        let export = runner.folderPath + "/scan.json"
        for extra in [["--depth", "3", "--limit", "all"], ["--json"], ["--summarize"], ["--flat", "--apparent"]] {
            let scanned = try await runner.run(["usage", root, "--export", export] + extra)
            #expect(scanned.status == 0, "\(scanned.error)")
            let imported = try await runner.run(["usage", "--import", export] + extra)
            #expect(imported.status == 0 && imported.error.isEmpty, "\(imported.error)")
            #expect(imported.output == scanned.output, "\(extra)")
        }
    }

    @Test("--export - writes only the saved scan, and --import - reads it from standard input")
    func standardStreams() async throws {
        let runner = try CommandRunner()
        let root = try Self.makeTree(runner)
        let piped = try await Self.shell(runner, "stowage usage '\(root)' --export - | stowage usage --import - --json")
        #expect(piped.status == 0, "\(piped.error)")
        let direct = try await runner.run("usage", root, "--json")
        #expect(piped.output == direct.output)
        let saved = try await runner.run("usage", root, "--export", "-")
        #expect(saved.output.hasPrefix("[1,2,{\"progname\":\"stowage\"") && saved.output.hasSuffix("]]\n"), "only the file: \(saved.output)")
    }

    @Test("--compare: a saved scan against a folder now, against a second saved scan, and against its own folder; text and JSON by the schema")
    func compare() async throws {
        let runner = try CommandRunner()
        let root = try Self.makeTree(runner)
        let old = runner.folderPath + "/old.json", new = runner.folderPath + "/new.json"
        await #expect(try runner.run("usage", root, "--export", old).status == 0)
        try Self.write(200_000, to: root + "/a/x")
        try Self.write(4000, to: root + "/new-file")
        try FileManager.default.removeItem(atPath: root + "/b")
        await #expect(try runner.run("usage", root, "--export", new).status == 0)

        let schemas = try JSONSchemas()
        var documents: [String] = []
        for arguments in [[old, root], [old, new], [old]] {
            let result = try await runner.run(["usage", "--compare"] + arguments + ["--json"])
            #expect(result.status == 0, "\(arguments): \(result.error)")
            let value = try JSONSerialization.jsonObject(with: Data(result.output.utf8))
            let problems = schemas.validate(value, against: "usage-compare.json")
            #expect(problems.isEmpty, "\(problems.map(\.description).joined(separator: "\n"))")
            documents.append(result.output)
        }
        #expect(Set(documents).count == 1, "a folder scanned now and its saved scan compare the same")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(documents[0].utf8)) as? [String: Any])
        let top = try #require((object["roots"] as? [[String: Any]])?.first)
        func changes(_ node: [String: Any]) -> [String] {
            (node["children"] as? [[String: Any]] ?? []).flatMap { child in
                ["\(child["kind"] ?? "") \((child["path"] as? String ?? "").dropFirst(root.count + 1))"] + changes(child)
            }
        }
        #expect(Set(changes(top)) == ["grown a", "grown a/x", "added new-file", "removed b", "removed b/deep", "removed b/deep/z"])
        let text = try await runner.run("usage", "--compare", old, root)
        #expect(text.status == 0)
        let lines = text.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix(root + ": +") == true, "\(text.output)")
        let rows = lines.filter { $0.hasSuffix("grown    a/") || $0.hasSuffix("grown      x") || $0.hasSuffix("removed  b/") }
        #expect(rows.count == 3, "\(text.output)")
        let limited = try await runner.run("usage", "--compare", old, root, "--limit", "1")
        #expect(limited.output.contains("more changes not shown") || limited.output.contains("smaller changes not shown"), "\(limited.output)")
    }

    @Test("refusals: several paths to save, paths with --import, --compare with --export, a file that is missing or not a saved scan")
    func refusals() async throws {
        let runner = try CommandRunner()
        let root = try Self.makeTree(runner)
        let file = runner.folderPath + "/scan.json"
        for arguments in [["usage", root, root + "/a", "--export", file], ["usage", "--import", file, root],
                          ["usage", "--compare", file, "--export", file], ["usage", root, "--export", "-", "--json"]] {
            let result = try await runner.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.error)")
        }
        #expect(!FileManager.default.fileExists(atPath: file), "nothing was written")
        let missing = try await runner.run("usage", "--import", file)
        #expect(missing.status == 1 && missing.error.contains("load scan '\(file)' failed: no such file"), "\(missing.error)")
        try Data("{\"not\":\"a scan\"}".utf8).write(to: URL(filePath: file))
        let wrong = try await runner.run("usage", "--import", file, "--json")
        #expect(wrong.status == 1 && wrong.error.contains("not an ncdu JSON export: expected '[' at byte 0"), "\(wrong.error)")
        #expect(try JSONSerialization.jsonObject(with: Data(wrong.output.utf8)) is [String: Any])
    }
}
