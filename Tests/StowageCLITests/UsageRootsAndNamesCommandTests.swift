import Foundation
import StowageTestSupport
import Testing

/// `stowage usage` counts what overlapping roots share once, as `du` does across its arguments,
/// and names what it lists by their bytes: text escapes a byte that is not UTF-8 (`\xff`), JSON
/// adds `pathBase64`.
@Suite("stowage usage with overlapping roots and names that are not UTF-8")
struct UsageRootsAndNamesCommandTests {
    /// `du -s -c` of `paths` with `flags`, each line as (size, path), the total last.
    static func du(_ flags: [String], _ paths: [String], in folder: String) async throws -> [(size: Int64, path: String)] {
        let result = try await runProcess(try requireToolURL("du"), ["-s", "-c"] + flags + paths, directory: URL(filePath: folder))
        return try result.output.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t", maxSplits: 1)
            return (try #require(Int64(fields.first ?? ""), "du said: \(result.output)\(result.error)"), String(fields.last ?? ""))
        }
    }

    /// `u2/` (with `a/` inside) and `b/`, files of a few kilobytes in each.
    func makeTree(_ runner: CommandRunner) throws {
        for (path, size) in [("u2/f", 5000), ("u2/a/g", 3000), ("u2/a/c/h", 100), ("b/x", 7)] {
            let url = URL(filePath: runner.folderPath + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(count: size).write(to: url)
        }
    }

    @Test("each root's figures and the total are du -s -c's, and a root counted already gets no line",
          arguments: [["u2", "u2/a"], ["u2/a", "u2"], ["u2", "b", "u2"]])
    func overlappingRoots(_ paths: [String]) async throws {
        let runner = try CommandRunner()
        try makeTree(runner)
        let json = try await runner.run(["usage", "--summarize", "--json"] + paths)
        #expect(json.status == 0, "\(json.error)")
        let object = try json.json()
        let roots = try #require(object["roots"] as? [[String: Any]])
        let counted = roots.filter { $0["alreadyCountedIn"] is NSNull }
        for (flag, key) in [("-b", "logicalBytes"), ("-B1", "allocatedBytes")] {
            var lines = try await Self.du([flag], paths, in: runner.folderPath)
            let total = lines.removeLast()
            #expect(counted.map { $0[key] as? Int64 } == lines.map(\.size), "\(key) of each root du prints")
            #expect(counted.map { ($0["path"] as? String).map { String($0.dropFirst(runner.folderPath.count + 1)) } }
                        == lines.map(\.path))
            #expect(object[key] as? Int64 == total.size, "\(key) in all")
        }
        let inodes = try await Self.du(["--inodes"], paths, in: runner.folderPath).last?.size
        let entries = ["fileCount", "folderCount", "symbolicLinkCount", "otherCount"].compactMap { object[$0] as? Int64 }.reduce(0, +)
        #expect(entries == inodes, "every folder and file once")
        // Text: one line per root du prints, then the total.
        let text = try await runner.run(["usage", "--summarize"] + paths)
        #expect(text.status == 0, "\(text.error)")
        let duLines = try await Self.du(["-b"], paths, in: runner.folderPath).count
        #expect(text.output.split(separator: "\n").count == 1 + duLines, "the header, then du's lines:\n\(text.output)")
    }

    @Test("usage u2 u2/a says u2/a was counted in u2, and its figures are u2's alone")
    func countedInLine() async throws {
        let runner = try CommandRunner()
        try makeTree(runner)
        let both = try await runner.run("usage", "u2", "u2/a", "--json").json()
        let alone = try await runner.run("usage", "u2", "--json").json()
        #expect(both["folderCount"] as? Int == 3, "u2, a and c: a and c once")
        #expect(both["allocatedBytes"] as? Int64 == alone["allocatedBytes"] as? Int64)
        let roots = try #require(both["roots"] as? [[String: Any]])
        #expect(roots.last?["alreadyCountedIn"] as? String == runner.folderPath + "/u2")
        let text = try await runner.run("usage", "u2", "u2/a")
        #expect(text.output.contains("\(runner.folderPath)/u2/a: counted in \(runner.folderPath)/u2\n"), "\(text.output)")
    }

    @Test("names that are not UTF-8 are listed by their bytes: escaped in text, pathBase64 in JSON")
    func namesAsBytes() async throws {
        let runner = try CommandRunner()
        let folder = runner.folderPath + "/names"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let first = Array("a".utf8) + [0xFF], second = Array("a".utf8) + [0xFE]
        try RawFiles.makeFile(RawFiles.join(folder, first), size: 1000)
        try RawFiles.makeFile(RawFiles.join(folder, second), size: 2000)
        let text = try await runner.run("usage", "names")
        #expect(text.status == 0, "\(text.error)")
        #expect(text.output.contains(#"├─ a\xfe"#) && text.output.contains(#"└─ a\xff"#), "\(text.output)")
        #expect(text.output.contains(folder + #"/a\xfe"#) && text.output.contains(folder + #"/a\xff"#), "the largest files")
        #expect(!text.output.contains("\u{FFFD}"), "\(text.output)")
        let json = try await runner.run("usage", "names", "--json").json()
        for key in ["breakdown", "largestFiles"] {
            let items = try #require(json[key] as? [[String: Any]])
            let encoded = Set(items.compactMap { $0["pathBase64"] as? String })
            #expect(encoded == [Data(RawFiles.join(folder, first)).base64EncodedString(),
                                Data(RawFiles.join(folder, second)).base64EncodedString()], "\(key): \(items)")
        }
    }
}
