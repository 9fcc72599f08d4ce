import Foundation
import Testing

/// The exit statuses of the README's table: 0 done, 1 failed (after the figures, as `du`),
/// 3 ran but the goal was not met, 64 a usage error.
@Suite("stowage exit statuses")
struct ExitStatusCommandTests {
    @Test("usage of a path that cannot be read prints what it can, then exits 1, as du does")
    func usageOfMissingPath() async throws {
        let runner = try CommandRunner()
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/here", withIntermediateDirectories: true)
        let result = try await runner.run("usage", "here", "missing")
        #expect(result.status == 1, "\(result.output)")
        #expect(result.error.contains("missing"), "\(result.error)")
        #expect(!result.output.isEmpty, "the figures come first")
        await #expect(try runner.run("usage", "here").status == 0)
    }

    @Test("relieve that cannot free enough prints its report and exits 3; one that can exits 0")
    func reliefShort() async throws {
        let runner = try CommandRunner()
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/app/tmp", withIntermediateDirectories: true)
        try Data(count: 4096).write(to: URL(filePath: runner.folderPath + "/app/tmp/f"))
        let environment = ["STOWAGE_SIMULATED_AVAILABLE": "0"]
        let short = try await runner.run("relieve", "--available", "1GB", "--root", "app", "--json", environment: environment)
        #expect(short.status == 3, "\(short.error)")
        #expect(try short.json()["isSatisfied"] as? Bool == false)
        try Data(count: 4096).write(to: URL(filePath: runner.folderPath + "/app/tmp/g"))
        let enough = try await runner.run("relieve", "--available", "4KiB", "--root", "app", environment: environment)
        #expect(enough.status == 0, "\(enough.error)")
    }

    @Test("a fill stopped by SIGTERM before its goal exits 3, and keeps what it filled for release")
    func fillCancelled() async throws {
        let runner = try CommandRunner()
        // The fill sends itself SIGTERM through a fault point (debug builds) after its 20th step
        // of 64 KB: under way, and 2 GiB of random data from done (seconds of writing), so the
        // signal is handled long before the goal whatever the machine's speed.
        let volume = try ScratchVolume.mount(size: "2g", in: runner.folder)
        let before = FillCommandTests.available(volume.path)
        let stopped = try await runner.run(["fill", volume.path, "--leave", "0", "--method", "random", "--chunk", "64KB", "--json"],
                                     environment: ["STOWAGE_TEST_FAULTS": "fill.step-written@20=term"])
        #expect(stopped.signal == nil && stopped.status == 3, "status \(stopped.status): \(stopped.error)")
        #expect(FillCommandTests.available(volume.path) <= before - 20 * (64_000 / 4096 * 4096), "kept what it filled")
        let release = try await runner.run("release", volume.path)
        #expect(release.status == 0, "\(release.error)")
    }

    @Test("fill --hold that missed its goal (the volume full first) gives the space back on SIGTERM and exits 3, as without --hold")
    func holdMissed() async throws {
        let runner = try CommandRunner()
        // Two inodes: the root and one fill file of at most 1 GiB, so the fill cannot reach 0.
        let volume = try ScratchVolume.mount(size: "1100m", options: ["nr_inodes=2"], in: runner.folder)
        let before = FillCommandTests.available(volume.path)
        let plain = try await runner.run("fill", volume.path, "--leave", "0")
        #expect(plain.signal == nil && plain.status == 3, "\(plain.error)")
        await #expect(try runner.run("release", volume.path).status == 0)
        let process = try runner.start(["fill", volume.path, "--leave", "0", "--hold", "--json-lines"])
        let text = try await process.read(until: "\"holding\"", within: .seconds(120))
        #expect(text.contains("\"ending\":\"volumeFull\""), "\(text)")
        process.signal(SIGTERM)
        let ended = try await process.finish(within: .seconds(60))
        #expect(ended.signal == nil && ended.status == 3, "status \(ended.status): \(ended.error)")
        #expect(ended.output.contains("\"released\""))
        #expect(FillCommandTests.available(volume.path) == before)
    }

    @Test("with --json a usage error is also a JSON error on standard output, status 64", arguments: [
        ["sweep", "", "--json"], ["sweep", "x", "--max-size", "12XB", "--json"], ["relieve", "--json"],
        ["clear", "everything", "--json"],
    ])
    func usageErrorAsJSON(arguments: [String]) async throws {
        let result = try await CommandRunner().run(arguments)
        #expect(result.status == 64)
        let error = try #require(try result.json()["error"] as? [String: Any])
        #expect(error["code"] as? String == "usage")
        #expect((error["message"] as? String)?.isEmpty == false)
    }

    @Test("dates in JSON are ISO 8601 in UTC, the one time format of every command")
    func isoDates() async throws {
        let runner = try CommandRunner()
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/cache", withIntermediateDirectories: true)
        try Data(count: 10).write(to: URL(filePath: runner.folderPath + "/cache/f"))
        let sweep = try await runner.run("sweep", "cache", "--max-count", "0", "--dry-run", "--json").json()
        let removed = try #require((sweep["removed"] as? [[String: Any]])?.first)
        let lastAccess = try #require(removed["lastAccessDate"] as? String, "\(removed)")
        #expect(ISO8601DateFormatter().date(from: lastAccess) != nil, "\(lastAccess)")
    }

    @Test("usage with no path measures the working folder, as du does")
    func usageDefaultsToHere() async throws {
        let runner = try CommandRunner()
        try Data(count: 8192).write(to: URL(filePath: runner.folderPath + "/file.bin"))
        let here = try await runner.run("usage", "--json")
        #expect(here.status == 0, "\(here.error)")
        let dot = try await runner.run("usage", ".", "--json")
        #expect(try here.json()["allocatedBytes"] as? Int64 == (try dot.json()["allocatedBytes"] as? Int64))
        #expect((try here.json()["allocatedBytes"] as? Int64 ?? 0) >= 8192)
    }

    @Test("sweep prints its totals and the largest removals, not every file; --list prints them all")
    func sweepSummary() async throws {
        let runner = try CommandRunner()
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/cache", withIntermediateDirectories: true)
        for index in 0..<30 {
            try Data(count: 4096 * (index + 1)).write(to: URL(filePath: runner.folderPath + "/cache/f\(index)"))
        }
        let summary = try await runner.run("sweep", "cache", "--max-count", "0", "--dry-run")
        #expect(summary.status == 0, "\(summary.error)")
        let rows = summary.output.split(separator: "\n").filter { $0.contains(" f") && $0.contains("count") }
        #expect(rows.count == 10, "\(summary.output)")
        #expect(rows.first?.hasSuffix("f29") == true, "the largest first: \(summary.output)")
        #expect(summary.output.contains("20 more (--list shows all)"))
        let all = try await runner.run("sweep", "cache", "--max-count", "0", "--dry-run", "--list")
        #expect(all.output.split(separator: "\n").filter { $0.contains(" f") && $0.contains("count") }.count == 30)
    }
}
