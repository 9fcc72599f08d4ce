import Foundation
import Testing

/// Values that cannot be used are usage errors (64) said as such, and failures say what failed
/// (issue 20, findings 9 and 15): nothing crashes, nothing that failed exits 0.
@Suite("stowage refuses unusable values with 64 and reports failures with 1")
struct RefusedValueCommandTests {
    @Test("durations: decimal only, at most 365 days for --after, a negative one refused as a duration")
    func durations() async throws {
        let runner = try CommandRunner()
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/d", withIntermediateDirectories: true)
        let run = ["run", "--available", "1MB", "--drop-to", "0", "--over", runner.folderPath + "/d"]
        for value in ["999999999999d", "1e18s", "31536001s", "365.00002d"] {
            let result = try await runner.run(run + ["--after", value, "--", "/bin/true"])
            #expect(result.status == 64, "--after \(value): \(result.status) \(result.error)")
            #expect(result.error.contains("--after"), "\(result.error)")
        }
        for value in ["0x10s", "1e3s", "-1s", "inf", "nans", ".5s", "5.s", "1..2s"] {
            let sweep = try await runner.run("sweep", "d", "--max-age", value)
            #expect(sweep.status == 64, "--max-age \(value): \(sweep.error)")
            #expect(sweep.error.contains("invalid for '--max-age"), "\(value) is refused as not a duration: \(sweep.error)")
            let watch = try await runner.run("watch", "--root", "d", "--available", "1MB", "--interval", value)
            #expect(watch.status == 64, "--interval \(value): \(watch.error)")
        }
        for value in ["0s", "0.5s", "2w", "45"] {
            await #expect(try runner.run("sweep", "d", "--max-age", value, "--dry-run").status == 0, "--max-age \(value) is a duration")
        }
    }

    @Test("--after exactly 365 days is taken (the command ends before the drop)")
    func afterAtItsLimit() async throws {
        let runner = try await RunCommandTests.runner()
        let result = try await runner.run("run", "--available", "1MB", "--drop-to", "0", "--after", "31536000s",
                                    "--over", runner.folderPath + "/real", "--", "/bin/true")
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("ended before the drop"), "\(result.error)")
    }

    @Test("negative counts are refused as such, not reported as a missing value")
    func negativeCounts() async throws {
        let runner = try CommandRunner()
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/d", withIntermediateDirectories: true)
        for arguments in [["usage", "d", "--depth", "-1"], ["usage", "d", "--top", "-1"], ["sweep", "d", "--max-count", "-1"],
                          ["run", "--available", "1MB", "--inodes", "-1", "--over", runner.folderPath + "/d", "--", "/bin/true"]] {
            let result = try await runner.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.error)")
            #expect(!result.error.contains("Missing value"), "\(arguments): \(result.error)")
            #expect(result.error.contains("0 or more") || result.error.contains("cannot be negative"), "\(arguments): \(result.error)")
        }
    }

    @Test("values the library refuses before doing anything are 64: --app \"\", --chunk 0, a drop at the room")
    func refusedByTheLibrary() async throws {
        let runner = try CommandRunner()
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/d", withIntermediateDirectories: true)
        let app = try await runner.run("--app", "", "locations", "--json")
        #expect(app.status == 64, "\(app.error)")
        #expect(try app.json()["error"] as? [String: Any] != nil, "the usage error as JSON too")
        let chunk = try await runner.run("fill", "d", "--leave", "1GB", "--chunk", "0")
        #expect(chunk.status == 64, "\(chunk.error)")
        #expect(chunk.error.contains("chunk size"), "\(chunk.error)")
        let drop = try await runner.run("run", "--available", "1MB", "--drop-to", "1MB", "--after", "1s",
                                  "--over", runner.folderPath + "/d", "--", "/bin/true")
        #expect(drop.status == 64, "a drop to the room itself: \(drop.error)")
    }

    @Test("release and fill --status of a path that is not there fail with 1 naming it; of a file, 'not a folder'")
    func missingFillPaths() async throws {
        let runner = try CommandRunner()
        try Data("x".utf8).write(to: runner.folder.appending(path: "file"))
        for arguments in [["release", "typo"], ["fill", "--status", "typo"], ["release", "typo", "--json"]] {
            let result = try await runner.run(arguments)
            #expect(result.status == 1, "\(arguments): \(result.output)")
            #expect(result.error.contains(runner.folderPath + "/typo") && result.error.contains("no such folder"), "\(result.error)")
        }
        let file = try await runner.run("release", "file")
        #expect(file.status == 1 && file.error.contains("not a folder"), "\(file.error)")
        #expect(!FileManager.default.fileExists(atPath: runner.folderPath + "/typo"), "nothing made for a typo")
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/empty", withIntermediateDirectories: true)
        await #expect(try runner.run("release", "empty").status == 0, "a folder where nothing was filled releases nothing, fine")
    }

    @Test("sweep, clear and relieve print their figures, then exit 1 when a folder could not be read")
    func unreadableFolders() async throws {
        let runner = try CommandRunner()
        let app = runner.folderPath + "/app"
        for folder in ["/tmp/locked", "/Library/Caches/locked"] {
            try FileManager.default.createDirectory(atPath: app + folder, withIntermediateDirectories: true)
            try Data(count: 10).write(to: URL(filePath: app + folder + "/inside"))
        }
        try Data(count: 10).write(to: URL(filePath: app + "/tmp/loose"))
        _ = try await runProcess(URL(filePath: "/bin/chown"), ["-R", "65534:65534", runner.folderPath])
        _ = try await runProcess(URL(filePath: "/bin/chmod"), ["000", app + "/tmp/locked", app + "/Library/Caches/locked"])
        let (setpriv, nobody) = try await CommandRunner.asNobody()
        let binary = try CommandRunner.binary().path(percentEncoded: false)
        for arguments in [["sweep", app + "/tmp", "--max-count", "0", "--json"], ["clear", "temporary", "--root", app, "--json"],
                          ["relieve", "--available", "1EB", "--root", app, "--json"]] {
            let result = try await runProcess(setpriv, nobody + [binary] + arguments, environment: runner.environment, directory: runner.folder)
            #expect(result.status == 1, "\(arguments): \(result.status) \(result.output) \(result.error)")
            #expect(result.error.contains("locked"), "\(arguments) names the folder: \(result.error)")
            #expect((try? JSONSerialization.jsonObject(with: Data(result.output.utf8))) != nil, "the figures come first: \(result.output)")
        }
    }
}
