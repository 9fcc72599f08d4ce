import Foundation
import Testing

/// The progress line of every long-running command, on a real pseudo-terminal of 80 columns:
/// redrawn in place, never wider than the terminal, names escaped, cleared at the end; and
/// nothing at all when standard error is not a terminal.
///
/// `STOWAGE_PROGRESS_DELAY=0` (documented in `--help` and the README) makes the line appear from
/// the first figures, so scratch trees of a few hundred files are enough.
@Suite("stowage progress line")
struct ProgressLineCommandTests {
    /// A folder name longer than any terminal line, ending in an escape sequence that would turn
    /// the terminal red if it reached it unescaped.
    static let longName = "progress-" + String(repeating: "a-rather-long-folder-name-", count: 6) + "\u{1B}[31m-end"

    /// `count` files of 4 KiB in `folder`, spread over ten sub-folders.
    static func makeFiles(in folder: String, count: Int) throws {
        let data = Data(count: 4096)
        for index in 0..<count {
            let sub = folder + "/\(index % 10)"
            if index < 10 { try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true) }
            try data.write(to: URL(filePath: sub + "/file-\(index)"))
        }
    }

    /// A command to watch, and what it needs set up.
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        /// What the line says the command is doing (in at least one drawing).
        var activity: String
        var expectedStatus: Int32 = 0
        var needsVolume = false
        /// Sets up in the runner's folder (and on the volume, when one is mounted) and returns
        /// the arguments and extra environment.
        var setUp: @Sendable (_ runner: CommandRunner, _ volume: String?) async throws -> (arguments: [String], environment: [String: String])

        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "usage", activity: "Scanning") { runner, _ in
            let folder = runner.folderPath
            let tree = folder + "/" + longName
            try makeFiles(in: tree, count: 800)
            return (["usage", tree], [:])
        },
        Case(name: "sweep", activity: "Removing") { runner, _ in
            let folder = runner.folderPath
            let tree = folder + "/" + longName
            try makeFiles(in: tree, count: 800)
            return (["sweep", tree, "--max-count", "0"], [:])
        },
        Case(name: "clear", activity: "Removing") { runner, _ in
            let folder = runner.folderPath
            try makeFiles(in: folder + "/container/Library/Caches", count: 800)
            return (["clear", "caches", "--root", folder + "/container"], [:])
        },
        Case(name: "relieve", activity: "Removing", expectedStatus: 3) { runner, _ in
            let folder = runner.folderPath
            try makeFiles(in: folder + "/container/tmp", count: 400)
            try makeFiles(in: folder + "/container/Library/Caches", count: 400)
            // Nothing available (simulated) and 1 TB wanted: relief removes all it may, and falls short.
            return (["relieve", "--available", "1TB", "--root", folder + "/container"], ["STOWAGE_SIMULATED_AVAILABLE": "0"])
        },
        Case(name: "audit", activity: "Auditing") { runner, _ in
            let folder = runner.folderPath
            try makeFiles(in: folder + "/container/Library/Caches", count: 400)
            try makeFiles(in: folder + "/container/Documents", count: 400)
            return (["audit", "--root", folder + "/container"], [:])
        },
        Case(name: "fill", activity: "Filling", needsVolume: true) { _, volume in
            (["fill", try #require(volume), "--consume", "24MB", "--method", "zeros", "--chunk", "64KiB"], [:])
        },
        Case(name: "release", activity: "Releasing", needsVolume: true) { runner, volume in
            let volume = try #require(volume)
            let fill = try await runner.run("fill", volume, "--consume", "24MB", "--method", "zeros", "--chunk", "64KiB")
            #expect(fill.status == 0, "\(fill.error)")
            return (["release", volume], [:])
        },
    ]

    /// Mounts a tmpfs named like ``longName`` when the case needs a volume (or skips, saying why).
    static func volume(for testCase: Case, in runner: CommandRunner) throws -> ScratchVolume? {
        testCase.needsVolume ? try ScratchVolume.mount(size: "64m", in: runner.folder, named: longName) : nil
    }

    @Test("on an 80-column terminal the line is redrawn in place, fits 80 columns, escapes names, and is cleared at the end",
          arguments: cases)
    func drawnOnTerminal(_ testCase: Case) async throws {
        let runner = try CommandRunner()
        let volume = try Self.volume(for: testCase, in: runner)
        let (arguments, extra) = try await testCase.setUp(runner, volume?.path)
        var environment = runner.environment.merging(extra) { $1 }
        environment["STOWAGE_PROGRESS_DELAY"] = "0"
        environment["COLUMNS"] = "300"  // the terminal's own width (TIOCGWINSZ) must win over $COLUMNS
        let terminal = try PseudoTerminal(columns: 80, rows: 24)
        let run = try await terminal.run(try CommandRunner.binary(), arguments, environment: environment, directory: runner.folder)
        #expect(run.status == testCase.expectedStatus, "\(run.terminal)")
        let transcript = TerminalTranscript(text: run.terminal)
        let drawings = transcript.drawings
        #expect(!drawings.isEmpty, "the line was drawn: \(run.terminal.debugDescription)")
        for line in drawings {
            #expect(TerminalTranscript.columns(line) <= 80, "\(TerminalTranscript.columns(line)) columns: \(line.debugDescription)")
        }
        #expect(drawings.contains { $0.hasPrefix(testCase.activity) }, "\(drawings)")
        #expect(transcript.endsCleared, "the line is erased at the end: \(run.terminal.suffix(200).debugDescription)")
        #expect(transcript.strayEscapes == 0, "names reach the terminal escaped: \(run.terminal.debugDescription)")
    }

    /// The drawings of `stowage usage` on a tree named ``longName``, its standard error on a
    /// terminal of `columns` (0: a terminal that does not tell its size).
    static func usageDrawings(columns: Int, environment extra: [String: String]) async throws -> [String] {
        let runner = try CommandRunner()
        let tree = runner.folderPath + "/" + longName
        try makeFiles(in: tree, count: 500)
        let environment = runner.environment.merging(extra) { $1 }.merging(["STOWAGE_PROGRESS_DELAY": "0"]) { $1 }
        let run = try await PseudoTerminal(columns: columns, rows: 24).run(try CommandRunner.binary(), ["usage", tree],
                                                                     environment: environment, directory: runner.folder)
        #expect(run.status == 0, "\(run.terminal)")
        return TerminalTranscript(text: run.terminal).drawings
    }

    @Test("a long folder name is shortened in its middle to fit, its escape sequence shown as \\x1b")
    func longNameShortened() async throws {
        let first = try #require(try await Self.usageDrawings(columns: 80, environment: [:]).first)
        #expect(first.hasPrefix("Scanning  "), "\(first)")
        #expect(first.contains("…") && first.hasSuffix("\\x1b[31m-end"), "\(first)")
        #expect(TerminalTranscript.columns(first) == 79, "a long line takes every column but the last: \(first)")
    }

    @Test("a terminal that does not tell its size is taken as $COLUMNS wide")
    func columnsFallback() async throws {
        // 60 columns: the widest figures ("Scanning  501 entries  204.8 kB  0:00") leave the folder
        // its 12 columns at least, so every drawing names it, cut to the width. (At 50, whether
        // the name fitted depended on how far the scan was at each report.)
        let drawings = try await Self.usageDrawings(columns: 0, environment: ["COLUMNS": "60"])
        #expect(!drawings.isEmpty)
        #expect(drawings.allSatisfy { TerminalTranscript.columns($0) == 59 }, "\(drawings)")
    }

    @Test("with standard error not a terminal nothing is drawn", arguments: cases)
    func nothingOffTerminal(_ testCase: Case) async throws {
        let runner = try CommandRunner()
        let volume = try Self.volume(for: testCase, in: runner)
        let (arguments, extra) = try await testCase.setUp(runner, volume?.path)
        let result = try await runner.run(arguments, environment: extra.merging(["STOWAGE_PROGRESS_DELAY": "0"]) { $1 })
        #expect(result.status == testCase.expectedStatus, "\(result.error)")
        #expect(!result.error.contains("\r") && !result.error.contains("\u{1B}"), "\(result.error.debugDescription)")
        #expect(result.error.isEmpty, "\(result.error)")
    }
}
