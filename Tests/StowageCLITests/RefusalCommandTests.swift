import Foundation
import Testing

/// What the command refuses before it does anything: an empty path (which a path API reads as
/// the working folder), and a watch interval it could not honour. Refusals are usage errors:
/// exit status 64, a message naming the argument or option, and nothing touched.
@Suite("stowage refuses empty paths and unusable intervals")
struct RefusalCommandTests {
    /// A few files in the runner's working folder, where an empty path would point.
    func makeBystanders(_ runner: CommandRunner) throws -> [String] {
        let names = ["keep-1.txt", "keep-2.txt", "sub/keep-3.txt"]
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/sub", withIntermediateDirectories: true)
        for name in names { try Data("keep".utf8).write(to: URL(filePath: runner.folderPath + "/" + name)) }
        return names
    }

    func expectUsageError(_ result: CommandRunner.Result, naming name: String,
                          sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 64, "status \(result.status); stderr: \(result.error)", sourceLocation: sourceLocation)
        #expect(result.error.contains(name), "the message names \(name): \(result.error)", sourceLocation: sourceLocation)
        #expect(result.error.contains("empty"), "the message says why: \(result.error)", sourceLocation: sourceLocation)
    }

    @Test("sweep \"\" is a usage error and removes nothing from the working folder")
    func sweepEmptyPath() async throws {
        let runner = try CommandRunner()
        let names = try makeBystanders(runner)
        let result = try await runner.run("sweep", "", "--max-age", "0s")
        expectUsageError(result, naming: "<path>")
        for name in names {
            #expect(try String(contentsOfFile: runner.folderPath + "/" + name, encoding: .utf8) == "keep", "\(name)")
        }
        let dry = try await runner.run("sweep", "", "--max-age", "0s", "--dry-run", "--json")
        #expect(dry.status == 64)
        #expect(!dry.output.contains("removed") && dry.output.contains("\"usage\""), "a usage error prints no result, only the JSON error")
    }

    @Test("usage, info, fill and release refuse an empty path")
    func otherCommandsRefuseEmptyPaths() async throws {
        let runner = try CommandRunner()
        let names = try makeBystanders(runner)
        await expectUsageError(try runner.run("usage", ""), naming: "<paths>")
        await expectUsageError(try runner.run("usage", ".", ""), naming: "<paths>")
        await expectUsageError(try runner.run("info", ""), naming: "<path>")
        await expectUsageError(try runner.run("fill", "", "--status"), naming: "<path>")
        await expectUsageError(try runner.run("fill", "", "--consume", "1MB"), naming: "<path>")
        await expectUsageError(try runner.run("release", ""), naming: "<path>")
        await expectUsageError(try runner.run("release", "", "--amount", "1MB"), naming: "<path>")
        #expect(!FileManager.default.fileExists(atPath: runner.folderPath + "/.stowage-fill"))
        for name in names { #expect(FileManager.default.fileExists(atPath: runner.folderPath + "/" + name)) }
    }

    @Test("--root \"\" is a usage error for every command that takes it")
    func emptyRoot() async throws {
        let runner = try CommandRunner()
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/Library/Caches", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/tmp", withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: URL(filePath: runner.folderPath + "/Library/Caches/keep"))
        try Data("keep".utf8).write(to: URL(filePath: runner.folderPath + "/tmp/keep"))
        let commands: [[String]] = [
            ["clear", "caches"], ["relieve", "--available", "1TB"], ["locations"], [], ["info"], ["audit"],
            ["fill", "--status"], ["release"],
        ]
        for command in commands {
            await expectUsageError(try runner.run(command + ["--root", ""], environment: ["STOWAGE_SIMULATED_AVAILABLE": "0"]),
                             naming: "--root")
        }
        // A watch that started would run until stopped: run it so that a test cannot hang.
        let (watch, kept) = try await run(["watch", "--available", "1TB", "--interval", "1s", "--root", ""], runner: runner)
        #expect(!kept, "the watch started (and was stopped by the test)")
        expectUsageError(CommandRunner.Result(status: watch.status, output: watch.output, error: watch.error), naming: "--root")
        #expect(FileManager.default.fileExists(atPath: runner.folderPath + "/Library/Caches/keep"))
        #expect(FileManager.default.fileExists(atPath: runner.folderPath + "/tmp/keep"))
    }

    /// Runs `watch` with `interval` on a container of the runner's.
    func watch(interval: String, runner: CommandRunner) async throws -> (result: ProcessResult, kept: Bool) {
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/app/tmp", withIntermediateDirectories: true)
        return try await run(["watch", "--available", "0", "--interval", interval, "--root", runner.folderPath + "/app"], runner: runner)
    }

    /// Runs a command that should be refused but would not end by itself if it were not (a
    /// watch): a refusal ends it; one still running after two minutes (a loaded machine starts
    /// a refused command in far less) is stopped and reported as `kept`, rather than left running.
    func run(_ arguments: [String], runner: CommandRunner) async throws -> (result: ProcessResult, kept: Bool) {
        let process = try ChildProcess(try CommandRunner.binary(), arguments, environment: runner.environment,
                                       directory: runner.folder)
        let deadline = ContinuousClock.now + .seconds(120)
        while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .seconds(0.05)) }
        let kept = process.isRunning
        if kept { process.signal(SIGTERM) }
        return await (try process.finish(within: .seconds(60)), kept)
    }

    @Test("watch refuses intervals below 10 ms or above a year, naming the range (an exponent is no duration)", arguments: [
        "1e16s", "1e300s", "9e15s", "53w", "366d", "0.0001s", "0.009s", "0s",
    ])
    func watchIntervalOutOfRange(interval: String) async throws {
        let runner = try CommandRunner()
        let (result, kept) = try await watch(interval: interval, runner: runner)
        #expect(!kept, "the watch started (and was stopped by the test)")
        #expect(result.status == 64, "status \(result.status); stderr: \(result.error)")
        #expect(result.error.contains("--interval"), "\(result.error)")
        if interval.contains("e") {
            // Exponents are no duration at all (as sizes take none): refused by the grammar.
            #expect(result.error.contains("invalid for '--interval"), "\(result.error)")
        } else {
            #expect(result.error.contains("0.01s") && result.error.contains("365d"), "the message gives the range: \(result.error)")
        }
    }

    @Test("watch accepts the ends of the range", arguments: ["0.01s", "52w"])
    func watchIntervalAtTheEnds(interval: String) async throws {
        let runner = try CommandRunner()
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/app/tmp", withIntermediateDirectories: true)
        let process = try runner.start(["watch", "--available", "0", "--interval", interval, "--root", runner.folderPath + "/app"])
        // Its first line comes once its signal trap is in place: stopped then, it ends cleanly.
        let first = try await process.read(until: "\n", within: .seconds(120))
        #expect(process.isRunning, "the watch runs until stopped; it printed \(first)")
        process.signal(SIGTERM)
        let result = try await process.finish(within: .seconds(60))
        #expect(result.signal == nil && result.status == 0, "a stopped watch exits cleanly: \(result.error)")
    }

    @Test("percentages and sizes share one number grammar; a percentage where none can be is not offered")
    func percentGrammar() async throws {
        let runner = try CommandRunner()
        // A folder that does not exist: should the grammar ever let one through, nothing is filled.
        let nowhere = runner.folderPath + "/no-such-folder"
        for leave in ["0x10%", "1e1%", "+5%", "101%"] {
            let result = try await runner.run("fill", nowhere, "--leave", leave)
            #expect(result.status == 64, "\(leave): \(result.error)")
            #expect(result.error.contains("is not a size"), "\(leave): \(result.error)")
        }
        let sweep = try await runner.run("sweep", nowhere, "--max-size", "10%", "--dry-run")
        #expect(sweep.status == 64)
        #expect(sweep.error.contains("a percentage needs a volume") && !sweep.error.contains("(10%)"), "\(sweep.error)")
    }

    @Test("a negative size is refused as negative, not as a missing value", arguments: [
        ["sweep", "no-such-folder", "--max-size", "-5MB"], ["relieve", "--available", "-1GB"],
        ["audit", "--min-size", "-1"], ["fill", "no-such-folder", "--leave", "-5MB"],
    ])
    func negativeSizes(arguments: [String]) async throws {
        let result = try await CommandRunner().run(arguments)
        #expect(result.status == 64)
        #expect(result.error.contains("sizes cannot be negative"), "\(result.error)")
    }

    @Test("help texts: defaults read as typed, --group only where groups are shown, the environment listed")
    func helpTexts() async throws {
        let runner = try CommandRunner()
        let watch = try await runner.run("watch", "--help").output
        #expect(watch.contains("(default: 60s)") && !watch.contains("AgeArgument"), "\(watch)")
        for command in ["clear", "fill", "release", "sweep", "relieve", "audit", "watch"] {
            await #expect(!(try runner.run(command, "--help").output.contains("--group")), "\(command) --help offers --group")
        }
        await #expect(try runner.run("locations", "--help").output.contains("--group"))
        let main = try await runner.run("--help").output
        #expect(main.contains("STOWAGE_APP") && main.contains("STOWAGE_SIMULATED_AVAILABLE"), "\(main)")
    }
}
