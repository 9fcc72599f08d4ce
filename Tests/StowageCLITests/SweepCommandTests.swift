import Foundation
import Testing

@Suite("stowage sweep, relieve, clear, audit, watch")
struct SweepCommandTests {
    func makeFiles(_ runner: CommandRunner, in relative: String, count: Int, size: Int) throws {
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/" + relative, withIntermediateDirectories: true)
        for index in 0..<count {
            try Data(count: size).write(to: URL(filePath: runner.folderPath + "/\(relative)/f\(index)"))
        }
    }

    @Test("sweep: a dry run lists what the real run removes; limits parse with units")
    func sweep() async throws {
        let runner = try CommandRunner()
        try makeFiles(runner, in: "cache", count: 10, size: 4096)
        let dry = try await runner.run("sweep", "cache", "--max-size", "20KiB", "--low-watermark", "1", "--dry-run", "--json")
        #expect(dry.status == 0, "\(dry.error)")
        let planned = try #require(try dry.json()["removed"] as? [[String: Any]])
        #expect(planned.count == 5)
        #expect(try FileManager.default.contentsOfDirectory(atPath: runner.folderPath + "/cache").count == 10)
        let real = try await runner.run("sweep", "cache", "--max-size", "20KiB", "--low-watermark", "1", "--json")
        let removed = try #require(try real.json()["removed"] as? [[String: Any]])
        #expect(removed.map { $0["path"] as? String } == planned.map { $0["path"] as? String })
        #expect(try real.json()["freedAllocatedBytes"] as? Int64 == 5 * 4096)
        let text = try await runner.run("sweep", "cache", "--max-count", "2", "--order", "largest", "--max-age", "7d")
        #expect(text.status == 0)
        #expect(text.output.hasPrefix("Removed 4 files"), "a limit of 2 at the 0.8 watermark keeps 1")
        let badSize = try await runner.run("sweep", "cache", "--max-size", "12XB")
        #expect(badSize.status == 64)
        #expect(badSize.error.contains("'XB' is not a unit"), "the parser's explanation reaches the user")
        await #expect(try runner.run("sweep", "cache", "--order", "random").status == 64)
        await #expect(try runner.run("sweep", "cache", "--max-age", "soon").status == 64)
        let missing = try await runner.run("sweep", "no-such-folder", "--max-size", "1MB")
        #expect(missing.status == 1)
        #expect(missing.error.hasPrefix("stowage: sweep '\(runner.folderPath)/no-such-folder' failed: no such file or directory"))
    }

    @Test("relieve frees tmp, then caches, with simulated capacity; clear empties one location")
    func relieveAndClear() async throws {
        let runner = try CommandRunner()
        try makeFiles(runner, in: "app/tmp", count: 2, size: 4096)
        try makeFiles(runner, in: "app/Library/Caches", count: 4, size: 4096)
        try makeFiles(runner, in: "app/Documents", count: 1, size: 4096)
        let environment = ["STOWAGE_SIMULATED_AVAILABLE": "0"]
        let report = try await runner.run("relieve", "--available", "16KiB", "--root", "app", "--json", environment: environment).json()
        #expect(report["neededBytes"] as? Int64 == 16_384)
        #expect(report["isSatisfied"] as? Bool == true)
        let steps = try #require(report["steps"] as? [[String: Any]])
        #expect(steps.map { $0["location"] as? String } == ["temporary", "caches"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: runner.folderPath + "/app/Library/Caches").filter { $0.hasPrefix("f") }.count == 2)
        let cleared = try await runner.run("clear", "caches", "--root", "app")
        #expect(cleared.status == 0, "\(cleared.error)")
        #expect(cleared.output.contains("Cleared Caches"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: runner.folderPath + "/app/Library/Caches").filter { $0.hasPrefix("f") }.isEmpty)
        #expect(FileManager.default.fileExists(atPath: runner.folderPath + "/app/Documents/f0"))
        await #expect(try runner.run("clear", "everything", "--root", "app").status == 64)
    }

    @Test("audit finds large backed-up files and totals what pressure would free")
    func audit() async throws {
        let runner = try CommandRunner()
        try makeFiles(runner, in: "app/Documents", count: 1, size: 2_000_000)
        try makeFiles(runner, in: "app/tmp", count: 3, size: 4096)
        let json = try await runner.run("audit", "--root", "app", "--min-size", "1MB", "--json").json()
        let findings = try #require(json["findings"] as? [[String: Any]])
        #expect(findings.map { $0["kind"] as? String } == ["largeBackedUpFile"])
        #expect(findings.first?["path"] as? String == "f0")
        let purgeable = try #require(json["purgeableUnderPressure"] as? [[String: Any]])
        #expect(purgeable.first?["location"] as? String == "temporary")
        #expect(purgeable.first?["fileCount"] as? Int == 3)
    }

    @Test("watch relieves pressure, logs it, and stops cleanly on SIGTERM")
    func watch() async throws {
        let runner = try CommandRunner()
        try makeFiles(runner, in: "app/tmp", count: 2, size: 4096)
        let process = try runner.start(["watch", "--available", "1MB", "--interval", "0.2s", "--root", runner.folderPath + "/app"],
                                       environment: ["STOWAGE_SIMULATED_AVAILABLE": "100kB"])
        // Read until the first relief is logged (within two minutes, however busy the machine).
        _ = try await process.read(until: "freed", within: .seconds(120))
        process.signal(SIGTERM)
        let ended = try await process.finish(within: .seconds(60))
        let text = ended.output
        #expect(ended.signal == nil && ended.status == 0, "\(text)")
        #expect(text.contains("watching"))
        #expect(text.contains("freed 8.2 kB from temporary"))
        #expect(text.hasSuffix("stopped\n"))
        // Relief writes nothing into the folders it frees (it must work on a full disk).
        #expect(try FileManager.default.contentsOfDirectory(atPath: runner.folderPath + "/app/tmp") == [])
    }

    @Test("a SIGTERM sent as soon as watch's first line appears stops it cleanly", arguments: [false, true])
    func watchStoppedAtOnce(jsonLines: Bool) async throws {
        let runner = try CommandRunner()
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/app", withIntermediateDirectories: true)
        // Ten times: the trap used to leave a moment after the first line in which a signal was
        // lost (a watch that never stopped, about one start in twenty).
        for round in 0..<10 {
            let process = try runner.start(["watch", "--available", "0", "--interval", "1h", "--root", runner.folderPath + "/app"]
                                           + (jsonLines ? ["--json-lines"] : []))
            _ = try await process.read(until: "\n", within: .seconds(120))
            process.signal(SIGTERM)
            let ended = try await process.finish(within: .seconds(60))
            #expect(ended.signal == nil && ended.status == 0, "round \(round): status \(ended.status), signal \(String(describing: ended.signal))")
            #expect(ended.output.hasSuffix(jsonLines ? "\"event\":\"stopped\"}\n" : "stopped\n"), "round \(round): \(ended.output)")
        }
    }
}
