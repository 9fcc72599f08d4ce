import Foundation
import Testing

/// `stowage usage`'s breakdown as people who use `dust` and `ncdu` expect it: a tree in tree
/// order or a flat list by size, never both mixed; a row limit; a minimum size; bars per row.
@Suite("stowage usage: tree, flat list, limits")
struct UsageTreeCommandTests {
    /// Every node of a JSON breakdown, depth first.
    static func flattened(_ nodes: [[String: Any]]) -> [[String: Any]] {
        nodes.flatMap { [$0] + flattened(($0["children"] as? [[String: Any]]) ?? []) }
    }

    /// Files of the given sizes (bytes) under `root`.
    static func makeTree(_ root: String, _ files: [(String, Int)]) throws {
        for (path, size) in files {
            let url = URL(filePath: root + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(count: size).write(to: url)
        }
    }

    /// A tree where sizes and names disagree, so that a flat sort and a tree order differ:
    /// the largest grandchild (`b/big`) lives in the second largest folder.
    static func makeMixedTree(_ runner: CommandRunner) throws -> String {
        let root = runner.folderPath + "/tree"
        try makeTree(root, [("a/x", 100_000), ("a/y", 90_000), ("a/z", 80_000), ("a/w", 70_000),
                            ("b/big", 200_000), ("c", 30_000)])
        return root
    }

    /// The breakdown's rows: the text after the percentage of each line below the header.
    static func rows(_ output: String) -> [String] {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let header = lines.firstIndex(where: { $0.hasPrefix("SIZE") && $0.contains("SHARE") }) else { return [] }
        return lines[(header + 1)...].prefix { !$0.isEmpty && !$0.hasPrefix("(") }.map { line in
            guard let percent = line.range(of: "%  ") else { return line }
            return String(line[percent.upperBound...])
        }
    }

    @Test("the tree lists each folder's children right under it, largest first within it")
    func treeOrder() async throws {
        let runner = try CommandRunner()
        let root = try Self.makeMixedTree(runner)
        let result = try await runner.run("usage", root, "--depth", "2", "--limit", "all", "--top", "0")
        #expect(result.status == 0, "\(result.error)")
        #expect(Self.rows(result.output) == [
            root, "├─ a/", "│  ├─ x", "│  ├─ y", "│  ├─ z", "│  └─ w", "├─ b/", "│  └─ big", "└─ c",
        ], "\(result.output)")
    }

    @Test("--flat lists every row by size, largest first, by its path below the root")
    func flatOrder() async throws {
        let runner = try CommandRunner()
        let root = try Self.makeMixedTree(runner)
        let result = try await runner.run("usage", root, "--depth", "2", "--flat", "--limit", "all", "--top", "0")
        #expect(result.status == 0, "\(result.error)")
        #expect(Self.rows(result.output) == ["a/", "b/", "b/big", "a/x", "a/y", "a/z", "a/w", "c"], "\(result.output)")
    }

    @Test("--limit keeps the largest rows, with the folders holding them, and says how many were left out")
    func limit() async throws {
        let runner = try CommandRunner()
        let root = try Self.makeMixedTree(runner)
        let tree = try await runner.run("usage", root, "--depth", "2", "--limit", "3", "--top", "0")
        #expect(Self.rows(tree.output) == [root, "├─ a/", "└─ b/", "   └─ big"], "\(tree.output)")
        #expect(tree.output.contains("(5 smaller not shown; --limit all shows every one)"), "\(tree.output)")
        let flat = try await runner.run("usage", root, "--depth", "2", "--limit", "3", "--flat", "--top", "0")
        #expect(Self.rows(flat.output) == ["a/", "b/", "b/big"], "\(flat.output)")
        await #expect(try runner.run("usage", root, "--limit", "0").status == 64)
        await #expect(try runner.run("usage", root, "--limit", "some").status == 64)
    }

    @Test("--min-size leaves out smaller rows, in text and JSON")
    func minimumBytes() async throws {
        let runner = try CommandRunner()
        let root = try Self.makeMixedTree(runner)
        let text = try await runner.run("usage", root, "--depth", "2", "--min-size", "95kB", "--top", "0")
        #expect(Self.rows(text.output) == [root, "├─ a/", "│  └─ x", "└─ b/", "   └─ big"], "\(text.output)")
        #expect(text.output.contains("(4 more not shown: smaller than --min-size, or past --limit)"), "\(text.output)")
        let json = try await runner.run("usage", root, "--depth", "2", "--min-size", "95kB", "--json").json()
        let paths = Self.flattened(try #require(json["breakdown"] as? [[String: Any]])).compactMap { $0["path"] as? String }
        #expect(paths == [root + "/a", root + "/a/x", root + "/b", root + "/b/big"])
        await #expect(try runner.run("usage", root, "--min-size", "-5MB").status == 64)
    }

    @Test("off a terminal the text shows 50 rows by default; JSON keeps every row, nested, unless --limit is given")
    func defaultLimits() async throws {
        let runner = try CommandRunner()
        let root = runner.folderPath + "/many"
        try Self.makeTree(root, (0..<60).map { ("file-\($0)", 4096 * ($0 + 1)) })
        let text = try await runner.run("usage", root, "--top", "0")
        #expect(Self.rows(text.output).count == 51, "the root and 50 rows")
        #expect(text.output.contains("(10 smaller not shown; --limit all shows every one)"))
        let json = try await runner.run("usage", root, "--json").json()
        let nodes = try #require(json["breakdown"] as? [[String: Any]])
        #expect(nodes.count == 60 && nodes.allSatisfy { ($0["children"] as? [Any])?.isEmpty == true })
        #expect(nodes.first?["path"] as? String == root + "/file-59", "largest first")
        let limited = try await runner.run("usage", root, "--json", "--limit", "7").json()
        #expect((limited["breakdown"] as? [[String: Any]])?.count == 7)
    }

    @Test("each row has a bar and a percentage of its root")
    func bars() async throws {
        let runner = try CommandRunner()
        let root = runner.folderPath + "/halves"
        try Self.makeTree(root, [("one", 1 << 20), ("two", 1 << 20)])
        let output = try await runner.run("usage", root, "--apparent", "--top", "0").output
        let lines = output.split(separator: "\n").filter { $0.contains("[") }
        #expect(lines.count == 3, "\(output)")
        #expect(lines[0].contains("[████████████████████]  100%"), "the root: \(output)")
        #expect(lines[1].contains("[██████████░░░░░░░░░░]   50%") && lines[2].contains("   50%"), "\(output)")
    }

    @Test("on a terminal the table fits its width and the rows fit its height")
    func fitsTheTerminal() async throws {
        let runner = try CommandRunner()
        let root = runner.folderPath + "/" + String(repeating: "long-folder-name-", count: 5)
        try Self.makeTree(root, (0..<40).map { ("a-file-with-a-name-much-longer-than-the-room-left-\($0)", 4096 * ($0 + 1)) })
        let terminal = try PseudoTerminal(columns: 60, rows: 20)
        // No progress line in the way, however slow the machine (it shares the terminal here).
        let environment = runner.environment.merging(["STOWAGE_PROGRESS_DELAY": "600"]) { $1 }
        let run = try await terminal.run(try CommandRunner.binary(), ["usage", root, "--top", "3"], environment: environment,
                                   directory: runner.folder, outputOnTerminal: true)
        #expect(run.status == 0, "\(run.terminal)")
        let lines = run.terminal.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count <= 20, "the output fits the screen with the prompt: \(lines.count) lines\n\(run.terminal)")
        for line in lines {
            #expect(line.unicodeScalars.count <= 60, "\(line.unicodeScalars.count) columns: \(line)")
        }
        #expect(run.terminal.contains("…"), "long names are shortened")
        #expect(run.terminal.contains("smaller not shown"))
    }
}
