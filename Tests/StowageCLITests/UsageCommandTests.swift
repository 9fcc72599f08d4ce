import Foundation
import StowageTestSupport
import Testing

@Suite("stowage usage")
struct UsageCommandTests {
    static func du(_ arguments: [String], as user: [String] = []) async throws -> Int64 {
        let du = try requireTool("du")
        let result = await user.isEmpty ? try runProcess(URL(filePath: du), ["-s"] + arguments)
                                  : try runProcess(try requireToolURL("setpriv"), user + [du, "-s"] + arguments)
        return try #require(Int64(result.output.split(separator: "\t").first ?? ""))
    }

    func makeTree(_ runner: CommandRunner) throws -> String {
        let root = runner.folderPath + "/tree"
        for (path, size) in [("a/one", 10_000), ("a/b/two", 300_000), ("with space/and\nnewline", 5_000), (".hidden", 70_000)] {
            let url = URL(filePath: root + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(count: size).write(to: url)
        }
        try FileManager.default.linkItem(atPath: root + "/a/one", toPath: root + "/one-again")
        try FileManager.default.createSymbolicLink(atPath: root + "/loop", withDestinationPath: ".")
        return root
    }

    @Test("--summarize --json gives exact totals equal to du")
    func summarizeJSON() async throws {
        let runner = try CommandRunner()
        let root = try makeTree(runner)
        let result = try await runner.run("usage", "--summarize", "--json", root)
        #expect(result.status == 0, "\(result.error)")
        let json = try result.json()
        await #expect(json["allocatedBytes"] as? Int64 == (try Self.du(["-B1", root])))
        await #expect(json["logicalBytes"] as? Int64 == (try Self.du(["-b", root])))
        #expect(json["skippedHardLinkCount"] as? Int == 1)
        let text = try await runner.run("usage", "--summarize", root)
        #expect(text.output.contains(root))
        #expect(text.output.hasPrefix("ALLOCATED"))
    }

    @Test("shows the breakdown and the largest files, names with newlines kept exactly in JSON")
    func breakdown() async throws {
        let runner = try CommandRunner()
        let root = try makeTree(runner)
        let result = try await runner.run("usage", root, "--top", "2", "--iec")
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("Largest files:"))
        #expect(result.output.contains(root + "/a/b/two"))
        #expect(result.output.contains("KiB"))
        #expect(!result.output.contains(" kB"))
        let json = try await runner.run("usage", root, "--json", "--depth", "2").json()
        let items = UsageTreeCommandTests.flattened(try #require(json["breakdown"] as? [[String: Any]]))
        #expect(items.contains { $0["path"] as? String == root + "/with space/and\nnewline" })
        #expect(items.contains { $0["path"] as? String == root + "/a/b" && $0["depth"] as? Int == 2 })
        let excluded = try await runner.run("usage", "--summarize", "--json", "--exclude", "b", "--no-hidden", root).json()
        await #expect(excluded["allocatedBytes"] as? Int64 == (try Self.du(["-B1", "--exclude=b", "--exclude=.*", root])))
    }

    @Test("an unreadable folder is reported on standard error and skipped, and the status is 1, as du does")
    func unreadable() async throws {
        let runner = try CommandRunner()
        let root = try makeTree(runner)
        // An unprivileged user who may read everything in the test's folder but one sub-folder
        // (the system's temporary folder above it is world-traversable already).
        _ = try await runProcess(URL(filePath: "/bin/chmod"), ["-R", "a+rX", runner.folderPath])
        _ = try await runProcess(URL(filePath: "/bin/chmod"), ["000", root + "/a/b"])
        defer { _ = try? runProcess(URL(filePath: "/bin/chmod"), ["755", root + "/a/b"]) }
        let (setpriv, nobody) = try await CommandRunner.asNobody()
        let binary = try CommandRunner.binary().path(percentEncoded: false)
        let result = try await runProcess(setpriv, nobody + [binary, "usage", "--summarize", "--json", root])
        #expect(result.status == 1, "as du: the figures of what could be read, then status 1")
        #expect(result.error.contains(root + "/a/b: permission denied; its contents were skipped"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        await #expect(json["allocatedBytes"] as? Int64 == (try Self.du(["-B1", root], as: nobody + [])))
        let issues = try #require(json["issues"] as? [[String: Any]])
        #expect(issues.count == 1)
    }

    @Test("a path that is not there: only the error, naming it and why, on standard error (and as JSON with --json), status 1")
    func missingPath() async throws {
        let runner = try CommandRunner()
        let missing = runner.folderPath + "/missing"
        let text = try await runner.run("usage", missing)
        #expect(text.status == 1)
        #expect(text.output == "", "no tree, no row of zeros")
        #expect(text.error == "stowage: measure usage '\(missing)' failed: no such file or directory\n", "\(text.error)")
        let json = try await runner.run("usage", missing, "--json")
        #expect(json.status == 1)
        #expect(json.error == text.error)
        let error = try #require(try json.json()["error"] as? [String: Any], "\(json.output)")
        #expect(error["code"] as? String == "notFound")
        #expect(error["operation"] as? String == "measure usage")
        #expect(error["path"] as? String == missing)
        #expect(error["errno"] as? Int == Int(ENOENT))
        #expect(error["message"] as? String == "measure usage '\(missing)' failed: no such file or directory")
        // A path through a file: the same, with its own cause and code.
        try Data("x".utf8).write(to: URL(filePath: runner.folderPath + "/file"))
        let through = try await runner.run("usage", runner.folderPath + "/file/x", "--json")
        #expect(through.status == 1)
        #expect((try through.json()["error"] as? [String: Any])?["code"] as? String == "wrongKind", "\(through.output)")
        #expect(through.error == "stowage: measure usage '\(runner.folderPath)/file/x' failed: not a directory\n", "\(through.error)")
    }

    @Test("a missing path among others: the others measured, no row for it, its problem on standard error, status 1, as du")
    func missingAmongOthers() async throws {
        let runner = try CommandRunner()
        let root = try makeTree(runner)
        let missing = runner.folderPath + "/missing"
        for arguments in [[root, missing], [root, missing, "--summarize"]] {
            let result = try await runner.run(["usage"] + arguments)
            #expect(result.status == 1)
            #expect(result.output.contains(root), "\(result.output)")
            #expect(!result.output.contains(missing), "\(arguments): a row for the missing path:\n\(result.output)")
            #expect(result.error == "stowage: \(missing): no such file or directory\n", "\(result.error)")
        }
    }

    @Test("bad arguments are usage errors")
    func badArguments() async throws {
        let runner = try CommandRunner()
        #expect(try await runner.run("usage", "").status == 64)  // no path is the working folder; an empty one is an error
        #expect(try await runner.run("usage", ".", "--top", "-1").status == 64)
    }
}
