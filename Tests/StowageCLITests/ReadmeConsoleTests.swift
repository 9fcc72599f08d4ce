import Foundation
import Testing
@testable import stowage

/// Keeps the terminal examples of the README and the DocC articles true: every `$ stowage ...`
/// line of a ```` ```console ```` block that shows output is run, and its output must be what the
/// document prints, or the example is listed in ``notRun`` with the reason it cannot be.
///
/// The examples stand on a fixed scene: `/tmp/demo` (made here in the test's folder, whose path
/// replaces `/tmp/demo` in the command and back in the output), the `ux` and `cache` folders of
/// the articles' examples, run from the test's folder, which stands for `/tmp` in the output, and
/// `HOME=/home/me` with no `XDG_*` or `TMPDIR` (the command only prints where the default
/// container would be). Only
/// commands that read are run (`locations`, `usage`, `info`, and `sweep` with `--dry-run`): a
/// README line that shows output for any other command fails the test rather than run it.
@Suite("README and articles: terminal examples")
struct ReadmeConsoleTests {
    /// One `$ stowage ...` line and the output the README shows under it.
    struct Example {
        var document: String
        var line: Int
        var command: String
        var output: String
    }

    static let readOnly: Set<String> = ["locations", "usage", "info"]

    /// Examples with output that are not run, by document and command, with the reason. Each is
    /// the real output of one run, pasted; the command's own tests check what it depends on.
    static let notRun: [String: String] = [
        "Sources/Stowage/Stowage.docc/CapacityAndSimulation.md: stowage info --iec":
            "the figures of the disk of the machine it ran on",
        "Sources/Stowage/Stowage.docc/FillingAVolume.md: stowage fill /mnt/scratch --leave 100MB":
            "a volume of its own, which it fills (/mnt/scratch, a tmpfs of 400 MiB mounted as root): DocumentedCommandTests runs these four lines there and compares their output",
        "Sources/Stowage/Stowage.docc/FillingAVolume.md: stowage fill --status /mnt/scratch":
            "the fill above",
        "Sources/Stowage/Stowage.docc/FillingAVolume.md: stowage release /mnt/scratch --amount 250MB":
            "the fill above (a deleting command: never run on a path a document names)",
        "Sources/Stowage/Stowage.docc/FillingAVolume.md: stowage release /mnt/scratch":
            "the fill above (a deleting command: never run on a path a document names)",
        "Sources/Stowage/Stowage.docc/TestingLowStorage.md: stowage run --available 0..64KiB --over /tmp/demo \\":
            "runs Examples/SafeSave, which RunRangeExampleTests builds and runs over this very range, checking this table",
        "Sources/Stowage/Stowage.docc/TestingLowStorage.md: stowage run --available 0..1MiB --find-minimum --over /tmp/demo -- ./app --save":
            "runs an app of the reader's (RunRangeCommandTests finds the minimum of a command that needs a known number of blocks)",
        "Sources/Stowage/Stowage.docc/SavedScans.md: stowage usage --compare monday.json /tmp/scans-demo/cache":
            "a day of a writer's cache between two scans (UsageSavedScanCommandTests and UsageDifferenceTests compare trees changed in known ways)",
    ]

    /// Examples whose times are relative to the day they run (the scene's files were last used
    /// some days ago): their ISO 8601 times are compared as `<time>`, everything else exactly.
    static let relativeTimes: Set<String> = [
        "Sources/Stowage/Stowage.docc/Sweeping.md: stowage sweep cache --max-size 250kB --max-age 14d --dry-run",
    ]

    @Test("every stowage example with output in the README and the articles prints exactly that output")
    func examplesMatch() async throws {
        let all = try Self.documents().flatMap { try Self.examples(in: $0) }
        let examples = all.filter { Self.notRun["\($0.document): \($0.command)"] == nil }
        #expect(examples.count >= 5, "found \(examples.map(\.command))")
        let listed = Set(all.map { "\($0.document): \($0.command)" })
        for key in Self.notRun.keys where !listed.contains(key) {
            Issue.record("\(key): listed as not run, but no document shows it with output any more")
        }
        let runner = try CommandRunner()
        let demo = try Self.makeDemo(in: runner.folder)
        try Self.makeUsageTree(in: runner.folder)
        try Self.makeSweepCache(in: runner.folder)
        for example in examples {
            let pipeline = example.command.components(separatedBy: " | ")
            let words = pipeline[0].split(separator: " ").map(String.init)
            guard words.first == "stowage", words.count > 1,
                  pipeline.count == 1 || (pipeline.count == 2 && pipeline[1].hasPrefix("jq ")) else {
                Issue.record("\(example.document):\(example.line): `\(example.command)` shows output but is not a stowage command (piped at most into jq) this test runs")
                continue
            }
            let subcommand = words[1]
            guard Self.readOnly.contains(subcommand) || (subcommand == "sweep" && words.contains("--dry-run")) else {
                Issue.record("\(example.document):\(example.line): `\(example.command)` shows output, but only reading commands are run here")
                continue
            }
            let arguments = words.dropFirst().map { $0.replacingOccurrences(of: "/tmp/demo", with: demo) }
            // Only PATH and HOME: the default container's folders then follow from HOME alone.
            let environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": "/home/me"]
            var result: ProcessResult
            if pipeline.count == 2 {
                guard let jq = Self.tool("jq") else {
                    print("\(example.document):\(example.line): `\(example.command)` not checked: jq is not installed")
                    continue
                }
                // Through the shell, the binary and jq by their full paths; the filter as written.
                let script = ([try CommandRunner.binary().path(percentEncoded: false)] + arguments).joined(separator: " ")
                    + " | " + jq + pipeline[1].dropFirst(2)
                result = try await runProcess(URL(filePath: "/bin/sh"), ["-c", script], environment: environment, directory: runner.folder)
            } else {
                result = try await runProcess(try CommandRunner.binary(), Array(arguments), environment: environment,
                                        directory: runner.folder)
            }
            #expect(result.status == 0, "\(example.document):\(example.line): `\(example.command)` failed: \(result.error)")
            var output = result.output.replacingOccurrences(of: demo, with: "/tmp/demo")
                .replacingOccurrences(of: runner.folderPath + "/", with: "/tmp/")
            var shown = example.output
            if Self.relativeTimes.contains("\(example.document): \(example.command)") {
                output = Self.maskingTimes(output)
                shown = Self.maskingTimes(shown)
            }
            #expect(output == shown,
                    "\(example.document):\(example.line): `\(example.command)` printed\n\(output)\nwhere the README shows\n\(example.output)")
        }
    }

    @Test("every stowage line in the README and the articles, with output or without, is one the parser accepts")
    func everyLineParses() throws {
        var checked = 0
        for document in try Self.documents() {
            for (line, command) in try Self.commandLines(in: document) {
                var words = Self.shellWords(command)
                while let first = words.first, first.contains("="), !first.hasPrefix("-") { words.removeFirst() }  // VAR=value
                guard words.first == "stowage" else { continue }
                checked += 1
                do {
                    _ = try StowageCommand.parseAsRoot(Array(words.dropFirst()))
                } catch where StowageCommand.exitCode(for: error) == .success {
                    // --help, --version
                } catch {
                    Issue.record("\(document):\(line): `\(command)` is refused: \(StowageCommand.message(for: error))")
                }
            }
        }
        #expect(checked >= 30, "\(checked) lines")
        print("\(checked) stowage lines of the README and the articles parse")
    }

    /// Every `$ ` line of the console blocks of `document` (continued lines joined), with its
    /// line number, without a trailing comment and what is piped after it.
    static func commandLines(in document: String) throws -> [(line: Int, command: String)] {
        let text = try String(contentsOf: packageRoot.appending(path: document), encoding: .utf8)
        var lines: [(Int, String)] = []
        var inConsole = false
        var pending: (Int, String)?
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") {
                inConsole = !inConsole && line == "```console"
                continue
            }
            guard inConsole else { continue }
            if let (start, before) = pending {
                let command = before.trimmingCharacters(in: .whitespaces) + " " + line.trimmingCharacters(in: .whitespaces)
                pending = command.hasSuffix("\\") ? (start, String(command.dropLast())) : nil
                if pending == nil { lines.append((start, command)) }
                continue
            }
            guard line.hasPrefix("$ ") else { continue }
            let command = String(line.dropFirst(2))
            if command.hasSuffix("\\") { pending = (index + 1, String(command.dropLast())) } else { lines.append((index + 1, command)) }
        }
        return lines.map { line, command in
            let uncommented = command.components(separatedBy: "  #").first ?? command
            let unpiped = uncommented.components(separatedBy: " | ").first ?? uncommented
            return (line, unpiped.trimmingCharacters(in: .whitespaces))
        }
    }

    /// `command` split into words as a shell would (quotes kept together, no expansion).
    static func shellWords(_ command: String) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        for character in command {
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == " " {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(character)
                inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }

    /// The README and the articles of both DocC catalogs, relative to the package root.
    static func documents() throws -> [String] {
        var documents = ["README.md"]
        for catalog in ["Sources/Stowage/Stowage.docc", "Sources/StowageTesting/StowageTesting.docc"] {
            let names = try FileManager.default.contentsOfDirectory(atPath: packageRoot.appending(path: catalog).path(percentEncoded: false))
            documents += names.filter { $0.hasSuffix(".md") }.sorted().map { catalog + "/" + $0 }
        }
        return documents
    }

    /// The console examples of `document` that show output.
    static func examples(in document: String) throws -> [Example] {
        let readme = try String(contentsOf: packageRoot.appending(path: document), encoding: .utf8)
        var examples: [Example] = []
        var inConsole = false
        var current: Example?
        for (index, line) in readme.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") {
                if let example = current, !example.output.isEmpty { examples.append(example) }
                current = nil
                inConsole = !inConsole && line == "```console"
                continue
            }
            guard inConsole else { continue }
            if line.hasPrefix("$ ") {
                if let example = current, !example.output.isEmpty { examples.append(example) }
                let command = line.dropFirst(2).components(separatedBy: "  #").first ?? ""
                current = Example(document: document, line: index + 1, command: command.trimmingCharacters(in: .whitespaces), output: "")
            } else if current != nil {
                current?.output += line + "\n"
            }
        }
        return examples.filter { $0.command.hasPrefix("stowage") || $0.command.contains(" stowage ") }
    }

    /// The scene of the examples: two photos and a cache file last used on 2026-01-01.
    static func makeDemo(in folder: URL) throws -> String {
        let demo = folder.appending(path: "demo", directoryHint: .isDirectory)
        for (path, size) in [("photos/a.jpg", 3_000_000), ("photos/b.jpg", 1_200_000), ("cache/c.bin", 500_000)] {
            let file = demo.appending(path: path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(count: size).write(to: file)
        }
        let used = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
        try setTimes(used, of: demo.appending(path: "cache/c.bin").path(percentEncoded: false))
        return String(demo.path(percentEncoded: false).trimmingSuffix("/"))
    }

    /// The folder `ux` of MeasuringUsage's example: 4 files in 4 folders, a hidden one among them.
    static func makeUsageTree(in folder: URL) throws {
        for (path, size) in [("ux/photos/2024/big.jpg", 3_000_000), ("ux/photos/small.jpg", 200_000),
                             ("ux/.cache/blob", 700_000), ("ux/notes.txt", 50_000)] {
            let file = folder.appending(path: path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(count: size).write(to: file)
        }
    }

    /// The folder `cache` of Sweeping's example: five files last used 20, 10, 5, 3 and 1 days ago.
    static func makeSweepCache(in folder: URL) throws {
        for (path, size, days) in [("cache/a/img1.jpg", 4_000, 20.0), ("cache/a/img2.jpg", 30_000, 10),
                                   ("cache/b/video1.mp4", 100_000, 5), ("cache/b/video2.mp4", 100_000, 3),
                                   ("cache/b/video3.mp4", 100_000, 1)] {
            let file = folder.appending(path: path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(count: size).write(to: file)
            try setTimes(Date(timeIntervalSinceNow: -days * 24 * 3600), of: file.path(percentEncoded: false))
        }
    }

    /// `text` with every ISO 8601 time (`2026-11-03T02:37:12Z`) written `<time>`.
    static func maskingTimes(_ text: String) -> String {
        text.replacing(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/, with: "<time>")
    }

    /// The full path of `name` on the PATH, or `nil`.
    static func tool(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static var packageRoot: URL {
        URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}

/// Sets a file's access and modification times (Foundation sets only the modification time).
private func setTimes(_ date: Date, of path: String) throws {
    let seconds = Int(date.timeIntervalSince1970)
    var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
    guard utimensat(AT_FDCWD, path, &times, 0) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
}
