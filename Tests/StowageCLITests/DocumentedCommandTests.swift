import Foundation
import Testing

/// Runs every `$ stowage ...` line of the README and the DocC articles, not only parses it: each
/// on a scratch scene, through `/bin/sh` as a reader would type it, and each must exit as the
/// document says (0 unless it says otherwise), or be listed in ``notRun`` with the reason.
/// ``ReadmeConsoleTests`` compares the output of those that show one.
///
/// The scene is the test's folder: HOME, `XDG_*_HOME` and TMPDIR in it (`~` is that HOME), the
/// `/tmp/demo` of the examples made there, the names the documents use for a reader's programs
/// (`./myapp`, `./verify.sh`, `./chat-tests`, `./app`) written there as small shell scripts, and
/// `/mnt/scratch` a tmpfs mounted there. A path of the documents outside the scene is never
/// touched: a line naming one is refused before it runs.
@Suite("README and articles: every stowage line runs")
struct DocumentedCommandTests {
    /// The `$ stowage` lines that are not run, by document and command, with the reason.
    static let notRun: [String: String] = [
        "README.md: stowage usage --interactive ~/Downloads":
            "a full-screen browser: it needs a terminal (BrowserCommandTests runs it in a pseudo-terminal, every key and ending)",
        "README.md: stowage locations --interactive --app com.example.Chat":
            "a full-screen browser: it needs a terminal (BrowserCommandTests runs it in a pseudo-terminal)",
        "Sources/Stowage/Stowage.docc/SavedScans.md: stowage usage /tmp/scans-demo/cache --export monday.json":
            "a writer's cache outside the scene, and a day of its use before the next line (UsageSavedScanCommandTests exports and compares a tree changed in known ways)",
        "Sources/Stowage/Stowage.docc/SavedScans.md: stowage usage --compare monday.json /tmp/scans-demo/cache":
            "the line above's saved scan and a day of use (UsageSavedScanCommandTests compares a tree changed in known ways)",
        "Sources/Stowage/Stowage.docc/RunningInARoom.md: sudo .build/debug/stowage run --available 5MB -- swift test --skip-build":
            "`sudo`, and it runs Stowage's whole test suite in a room: this test is part of that suite",
        "Sources/Stowage/Stowage.docc/TestingLowStorage.md: stowage run --available 0..64KiB --over /tmp/demo --check './safe-save check /tmp/demo/file 20000 30000' -- ./safe-save wrong /tmp/demo/file 30000":
            "runs Examples/SafeSave (built in about 40 s), which RunRangeExampleTests builds and runs over this very range, checking its exit 1 and its table",
    ]

    /// Lines whose output the document shows and ``ReadmeConsoleTests`` cannot run (they fill and
    /// release a volume of their own): their output is compared here, on the scratch volume, with
    /// the time a fill took written `<time>`.
    static let outputsCompared: Set<String> = [
        "Sources/Stowage/Stowage.docc/FillingAVolume.md: stowage fill /mnt/scratch --leave 100MB",
        "Sources/Stowage/Stowage.docc/FillingAVolume.md: stowage fill --status /mnt/scratch",
        "Sources/Stowage/Stowage.docc/FillingAVolume.md: stowage release /mnt/scratch --amount 250MB",
        "Sources/Stowage/Stowage.docc/FillingAVolume.md: stowage release /mnt/scratch",
    ]

    @Test("every `$ stowage` line of the README and the articles runs on a scratch scene and exits as documented",
          .long("489 rooms of README's 0..2MB range, two searches of a minimum, a fill of a scratch tmpfs"))
    func everyLineRuns() async throws {
        var lines: [(document: String, line: Int, command: String)] = []
        for document in try ReadmeConsoleTests.documents() {
            let found = try ReadmeConsoleTests.commandLines(in: document).filter { Self.isStowage($0.command) }
            lines += found.map { (document, $0.line, $0.command) }
            // A `$ stowage` line outside a ```console block would be missed: there is none.
            let text = try String(contentsOf: ReadmeConsoleTests.packageRoot.appending(path: document), encoding: .utf8)
            let written = text.split(separator: "\n").filter { $0.hasPrefix("$ ") && Self.isStowage(String($0.dropFirst(2))) }
            #expect(written.count == found.count, "\(document): \(written.count) `$ stowage` lines, \(found.count) of them in console blocks")
        }
        let keys = Set(lines.map { "\($0.document): \($0.command)" })
        for key in Self.outputsCompared where !keys.contains(key) {
            Issue.record("\(key): listed as compared here, but no document has this line any more")
        }
        for key in Self.notRun.keys where !keys.contains(key) {
            Issue.record("\(key): listed as not run, but no document has this line any more")
        }
        let runner = try CommandRunner()
        let scene = try Scene(runner)
        let toRun = lines.filter { Self.notRun["\($0.document): \($0.command)"] == nil }
        #expect(toRun.count >= 30, "found \(toRun.map(\.command))")
        // Lines that need nothing but the scene first, then rooms, then the scratch volume, whose
        // mount cancels the test (saying why) where it is refused.
        let plain = toRun.filter { !$0.command.contains("/mnt/scratch") && !Self.words($0.command).contains("run") }
        let rooms = toRun.filter { !$0.command.contains("/mnt/scratch") && Self.words($0.command).contains("run") }
        let onVolume = toRun.filter { $0.command.contains("/mnt/scratch") }
        var ran = 0
        for line in plain {
            await ran += try scene.check(line) ? 1 : 0
        }
        let roomRefusal = try await RunCommandTests.roomRefusal(runner)
        let ext4Refusal = if let roomRefusal { roomRefusal } else { try await RunCommandTests.roomRefusal(runner, fileSystem: "ext4") }
        for line in rooms {
            if let reason = Self.words(line.command).contains("ext4") ? ext4Refusal : roomRefusal {
                print("SKIPPED: \(line.document):\(line.line): `\(line.command)`: \(reason)")
                continue
            }
            await ran += try scene.check(line) ? 1 : 0
        }
        print("\(ran) of \(lines.count) stowage lines of the README and the articles ran as documented before the scratch volume; \(Self.notRun.count) listed as not run")
        guard !onVolume.isEmpty else { return }
        let volume = try ScratchVolume.mount("tmpfs", size: "400m", in: runner.folder, named: "scratch")
        scene.scratch = volume.path
        for line in onVolume {
            await ran += try scene.check(line) ? 1 : 0
        }
        print("\(ran) of \(lines.count) stowage lines ran as documented in all")
        withExtendedLifetime(volume) {}
    }

    /// Whether `command` runs stowage: its first word after `VAR=value` and `sudo` is `stowage` or a path to it.
    static func isStowage(_ command: String) -> Bool {
        let program = words(command).first { !($0.contains("=") && !$0.hasPrefix("-")) && $0 != "sudo" }
        return program == "stowage" || program?.hasSuffix("/stowage") == true
    }

    static func words(_ command: String) -> [String] { ReadmeConsoleTests.shellWords(command) }

    /// The test's folder made into the scene the documents' lines expect.
    final class Scene {
        let runner: CommandRunner
        let work: URL
        let demo: String
        let environment: [String: String]
        /// The mount point that stands for `/mnt/scratch`, once mounted.
        var scratch: String?

        init(_ runner: CommandRunner) throws {
            self.runner = runner
            let manager = FileManager.default
            work = runner.folder.appending(path: "work", directoryHint: .isDirectory)
            for folder in ["home/Downloads", "home/.cache/myapp", "tmp", "data", "cache", "config", "real", "work"] {
                try manager.createDirectory(at: runner.folder.appending(path: folder), withIntermediateDirectories: true)
            }
            // The `ux` and `cache` folders of the articles' examples, as ReadmeConsoleTests makes them.
            try ReadmeConsoleTests.makeUsageTree(in: work)
            try ReadmeConsoleTests.makeSweepCache(in: work)
            demo = try ReadmeConsoleTests.makeDemo(in: runner.folder)
            var environment = runner.environment
            for name in environment.keys where name.hasPrefix("STOWAGE_") { environment.removeValue(forKey: name) }
            environment["DEMO"] = demo  // where ./app saves: the /tmp/demo of the scene
            self.environment = environment
            for (name, script) in Self.standIns {
                let path = work.appending(path: name).path(percentEncoded: false)
                try Data(("#!/bin/sh\n" + script).utf8).write(to: URL(filePath: path))
                guard chmod(path, 0o755) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            }
        }

        /// The reader's programs the documents name, as small scripts: each writes what its option
        /// says and exits 1 where the room is too small (`head` fails on ENOSPC).
        static let standIns: [(String, String)] = [
            ("myapp", """
                # A stand-in for the reader's app.
                set -e
                case "$1" in
                  --download) head -c 1000000 /dev/zero > "$HOME/Downloads/file.part"; mv "$HOME/Downloads/file.part" "$HOME/Downloads/file" ;;
                  --save) mkdir -p "$HOME/saved"; head -c 30000 /dev/zero > "$HOME/saved/.new"; mv "$HOME/saved/.new" "$HOME/saved/file" ;;
                  --sync) mkdir -p "$HOME/.cache/myapp"; head -c 100000 /dev/zero > "$HOME/.cache/myapp/state" ;;
                  "") echo hello > "$TMPDIR/myapp.txt" ;;
                  *) echo "myapp: unknown option $1" >&2; exit 64 ;;
                esac

                """),
            ("verify.sh", """
                # The check of ./myapp --save: the saved file is not there, or whole.
                [ ! -e "$HOME/saved/file" ] || [ "$(wc -c < "$HOME/saved/file")" -eq 30000 ]

                """),
            ("chat-tests", """
                # A stand-in for the tests of com.example.Chat: writes into its caches.
                set -e
                mkdir -p "$XDG_CACHE_HOME/com.example.Chat"
                head -c 50000 /dev/zero > "$XDG_CACHE_HOME/com.example.Chat/probe"

                """),
            ("app", """
                # The app of the smallest room: saves 100,000 bytes into the demo folder.
                [ "$1" = --save ] || exit 64
                head -c 100000 /dev/zero > "$DEMO/saved"

                """),
        ]

        /// Runs `line` through `/bin/sh` in the scene and expects it to exit 0, as every line run
        /// here does in its document (the one the documents show failing, exit 1, is in ``notRun``);
        /// returns whether it did.
        func check(_ line: (document: String, line: Int, command: String)) async throws -> Bool {
            let place = "\(line.document):\(line.line): `\(line.command)`"
            var command = line.command.replacingOccurrences(of: "/tmp/demo", with: demo)
                .replacingOccurrences(of: "/tmp/what-it-wrote", with: runner.folderPath + "/what-it-wrote")
            if let scratch { command = command.replacingOccurrences(of: "/mnt/scratch", with: scratch) }
            // Never a path of the machine's: every absolute path is in the scene (`~` is the scene's HOME).
            for word in DocumentedCommandTests.words(command) where word.hasPrefix("/") && !word.hasPrefix(runner.folderPath + "/") {
                Issue.record("\(place): names \(word), outside the scratch scene; not run")
                return false
            }
            guard let stowage = command.range(of: "stowage ") else {
                Issue.record("\(place): no stowage word")
                return false
            }
            command.replaceSubrange(stowage, with: "'\(try CommandRunner.binary().path(percentEncoded: false))' ")
            let result = try await runProcess(URL(filePath: "/bin/sh"), ["-c", command], environment: environment,
                                        directory: work, within: .seconds(900))
            #expect(result.status == 0, "\(place) exited \(result.status), where the document says 0:\n\(result.output)\(result.error)")
            if DocumentedCommandTests.outputsCompared.contains("\(line.document): \(line.command)") {
                let shown = try ReadmeConsoleTests.examples(in: line.document).first { $0.line == line.line }?.output ?? ""
                var output = result.output
                if let scratch { output = output.replacingOccurrences(of: scratch, with: "/mnt/scratch") }
                let timed = /in \d+(\.\d+)? s\n/
                #expect(output.replacing(timed, with: "in <time> s\n") == shown.replacing(timed, with: "in <time> s\n"),
                        "\(place) printed\n\(output)\nwhere the document shows\n\(shown)")
            }
            print("ran \(place): exit \(result.status)")
            return result.status == 0
        }
    }
}
