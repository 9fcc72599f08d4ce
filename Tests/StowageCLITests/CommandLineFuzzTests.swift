import Foundation
import StowageTestSupport
import Testing

/// A fuzz of the command line's figures (issue 30, "make the proof systematic"): sizes, counts,
/// ranges, steps, durations and percentages at and around the ends of `Int64` (0, 1, 2^63-1,
/// 2^63, -1, 8 EiB, fractions, `1e3`, hex, three dots, empty), through every subcommand and
/// option that takes one and the environment variables that hold one, sometimes with standard
/// streams closed. The only acceptable endings are the documented exit statuses: never a signal
/// (a crash exits 132, 134 or 139).
///
/// Everything it touches is scratch: `--root` is a container in the test's folder, paths are
/// its folders, fills go to a tmpfs it mounts, rooms cover its `real` folder.
///
/// In `swift test`: a fixed seed and 150 cases (`STOWAGE_TEST_SEED` and
/// `STOWAGE_CLI_FUZZ_CASES` change them); `Scripts/fuzz-command-line.sh` runs thousands.
@Suite("stowage command-line fuzz", .hangLimit, .long("150 command lines at Int64's ends, each a process: 58 s"))
struct CommandLineFuzzTests {
    /// The seed of the cases `swift test` runs.
    static let fixedSeed: UInt64 = 30_2026_11_28

    /// Figures written as people (and typos, and scripts) write them, at Int64's ends above all.
    static let figures = [
        "0", "1", "2", "-1", "-0", "", " ", "9223372036854775807", "9223372036854775808", "9223372036854775806",
        "-9223372036854775808", "18446744073709551615", "18446744073709551616", "99999999999999999999999999",
        "1152921504606846976", "1152921504606846977", "4000000000", "4000000001", "4294967296", "36028797018963968",
        "8EiB", "8EB", "9.2EB", "9.3EB", "7.9999999999999999999EiB", "1EiB", "1.5EiB", "8000PB", "4EB", "1e3", "1E3", "1e400",
        "0x10", "0x7fffffffffffffff", "inf", "nan", "+5", "1_000", "\u{FF11}", "0.5", ".5MB", "5.", "1.5KB", "0.0001B", "1.5",
        "4KB", "4096", "4095", "1MB", "16MiB", "1 KiB", "10%", "100%", "100.0001%", "101%", "0%", "-5%", "%", "1..2", "0...1MB",
        "MB", "12XB", "4 KB", "1G", "1T",
    ]

    /// Durations, with the same ends.
    static let durations = [
        "0s", "1s", "0.5s", "0.001s", "0.01s", "365d", "366d", "52w", "53w", "9223372036854775807s", "9223372036854775807w",
        "1e3s", "1e308s", "-1s", "0x10s", "inf", "nan", "99999999999999999999999999w", ".5s", "5.s", "1", "", "s", "1y",
    ]

    struct Case: CustomStringConvertible {
        var arguments: [String]
        var environment: [String: String] = [:]
        var closed: Set<Int32> = []
        /// A command that may run until stopped (watch, a long range): stopped at a deadline.
        var mayRun = false
        var isRun: Bool { arguments.first == "run" }

        var description: String {
            (environment.map { "\($0.key)='\($0.value)'" }.sorted() + ["stowage"] + arguments.map { "'\($0)'" }).joined(separator: " ")
                + (closed.isEmpty ? "" : "  (closed: \(closed.sorted().map(String.init).joined(separator: ",")))")
        }
    }

    /// Figures that parse, at the ends of what each option takes: where overflows hide.
    static let extremes = [
        "0", "1", "4096", "9223372036854775807", "9223372036854775806", "9223372036854775000", "1152921504606846976",
        "1152921504606846977", "8000PB", "4EB", "7.99EiB", "1EiB", "1MB", "4KB", "36028797018963968", "4000000000", "100000000000000",
    ]

    /// A figure: an extreme that parses, one of ``figures``, a number near a power of two or
    /// Int64's end with a unit, or a range of two.
    static func figure(_ random: inout SeededRandom) -> String {
        switch Int.random(in: 0..<20, using: &random) {
        case 0..<8:
            return extremes.randomElement(using: &random)!
        case 8..<13:
            return figures.randomElement(using: &random)!
        case 13..<17:
            let shift = Int64.random(in: 0...63, using: &random)
            let base: Int64 = shift == 63 ? .max : (1 << shift)
            let near = base.addingReportingOverflow(Int64.random(in: -2...2, using: &random)).partialValue
            let unit = ["", "", "B", "KB", "KiB", "MB", "GiB", "TB", "PB", "EB", "EiB", "%"].randomElement(using: &random)!
            return "\(near)\(unit)"
        default:
            return range(&random)
        }
    }

    /// `LOW..HIGH`, mostly with a low end of 0 and a parsing high end, sometimes written wrong.
    static func range(_ random: inout SeededRandom) -> String {
        let separator = ["..", "..", "..", "...", ". .", "..-"].randomElement(using: &random)!
        let low = Bool.random(using: &random) ? "0" : figure(&random)
        return low + separator + (Bool.random(using: &random) ? extremes.randomElement(using: &random)! : figure(&random))
    }

    static func count(_ random: inout SeededRandom) -> String {
        Bool.random(using: &random) ? figure(&random)
            : ["0", "1", "2", "-1", "9223372036854775807", "9223372036854775808", "2147483648", "4294967296", "100000"]
                .randomElement(using: &random)!
    }

    static func duration(_ random: inout SeededRandom) -> String {
        Int.random(in: 0..<4, using: &random) == 0 ? figure(&random) : durations.randomElement(using: &random)!
    }

    /// One invocation over the scratch folders of `scratch`.
    static func makeCase(_ random: inout SeededRandom, scratch: Scratch) -> Case {
        func maybe(_ option: String, _ value: @autoclosure () -> String) -> [String] {
            Bool.random(using: &random) ? [option, value()] : []
        }
        var arguments: [String]
        var mayRun = false
        switch Int.random(in: 0..<12, using: &random) {
        case 0:
            arguments = ["sweep", scratch.tree] + maybe("--max-size", figure(&random)) + maybe("--max-count", count(&random))
                + maybe("--max-age", duration(&random)) + maybe("--low-watermark", figure(&random)) + ["--dry-run"]
            if arguments.count == 3 { arguments += ["--max-size", figure(&random)] }
        case 1:
            arguments = ["relieve", "--available", figure(&random), "--root", scratch.root, "--dry-run"]
        case 2:
            arguments = ["audit", "--root", scratch.root] + maybe("--min-size", figure(&random))
        case 3:
            arguments = ["usage", scratch.tree] + maybe("--top", count(&random)) + maybe("--depth", count(&random))
                + maybe("--min-size", figure(&random)) + maybe("--limit", count(&random)) + maybe("--threads", count(&random))
        case 4:
            arguments = ["watch", "--available", figure(&random), "--interval", duration(&random), "--root", scratch.root]
            mayRun = true
        case 5:
            let goal = Bool.random(using: &random) ? "--leave" : "--consume"
            arguments = ["fill", scratch.volume.path, goal, figure(&random)] + maybe("--chunk", figure(&random))
                + maybe("--method", ["allocate", "zeros", "random"].randomElement(using: &random)!)
        case 6:
            arguments = ["release", scratch.volume.path] + maybe("--amount", figure(&random))
        case 7, 8, 9:
            let available = Bool.random(using: &random) ? range(&random) : figure(&random)
            let inodes = Int.random(in: 0..<3, using: &random) == 0 ? [] : ["--inodes", Bool.random(using: &random) ? range(&random) : count(&random)]
            arguments = ["run", "--available", available] + inodes + maybe("--step", figure(&random))
            if Int.random(in: 0..<4, using: &random) == 0 { arguments += ["--drop-to", figure(&random), "--after", duration(&random)] }
            if Int.random(in: 0..<5, using: &random) == 0 { arguments += ["--find-minimum"] }
            if Int.random(in: 0..<8, using: &random) == 0 { arguments += ["--fs", "ext4"] }
            if Int.random(in: 0..<6, using: &random) == 0 { arguments += ["--json-lines"] }
            arguments += Int.random(in: 0..<4, using: &random) == 0 ? ["--root", scratch.root] : ["--over", scratch.real]
            arguments += ["--", "/bin/true"]
            mayRun = true
        case 10:
            arguments = ["info", "--root", scratch.root] + (Bool.random(using: &random) ? ["--json"] : [])
        default:
            arguments = ["--root", scratch.root]
        }
        var environment: [String: String] = [:]
        if Int.random(in: 0..<4, using: &random) == 0 {
            let name = ["STOWAGE_SIMULATED_AVAILABLE", "STOWAGE_SIMULATED_TOTAL", "STOWAGE_PROGRESS_DELAY", "COLUMNS", "LINES"]
                .randomElement(using: &random)!
            environment[name] = name == "STOWAGE_PROGRESS_DELAY" ? duration(&random) : figure(&random)
            if name == "STOWAGE_SIMULATED_AVAILABLE" && Bool.random(using: &random) { environment["STOWAGE_SIMULATED_TOTAL"] = figure(&random) }
        }
        let closed: Set<Int32> = Int.random(in: 0..<5, using: &random) == 0
            ? [[1], [0], [0, 1], [2], [0, 1, 2]].randomElement(using: &random)! : []
        return Case(arguments: arguments, environment: environment, closed: closed, mayRun: mayRun)
    }

    /// The test's scratch folders: a container, a tree to sweep and measure, a folder for rooms,
    /// a tmpfs to fill.
    struct Scratch {
        let runner: CommandRunner
        let volume: ScratchVolume
        var root: String { runner.folderPath + "/app" }
        var tree: String { runner.folderPath + "/tree" }
        var real: String { runner.folderPath + "/real" }

        init() async throws {
            runner = try await RunCommandTests.runner()
            for folder in ["/app/Library/Caches/c", "/app/tmp", "/app/Documents", "/tree/a/b"] {
                try FileManager.default.createDirectory(atPath: runner.folderPath + folder, withIntermediateDirectories: true)
            }
            for (index, path) in ["/app/Library/Caches/c/x", "/app/tmp/y", "/tree/a/f", "/tree/a/b/g"].enumerated() {
                try Data(count: 3000 * (index + 1)).write(to: URL(filePath: runner.folderPath + path))
            }
            volume = try ScratchVolume.mount(size: "16m", in: runner.folder)
        }

        /// Puts back what a case may have changed: the fill released, the swept tree remade.
        func reset() async throws {
            _ = try await runner.run("release", volume.path)
            for (index, path) in ["/tree/a/f", "/tree/a/b/g", "/app/Library/Caches/c/x", "/app/tmp/y"].enumerated()
            where !FileManager.default.fileExists(atPath: runner.folderPath + path) {
                try FileManager.default.createDirectory(atPath: (runner.folderPath + path as NSString).deletingLastPathComponent,
                                                        withIntermediateDirectories: true)
                try Data(count: 1000 * (index + 1)).write(to: URL(filePath: runner.folderPath + path))
            }
        }
    }

    /// The statuses a case may end with: 0, 1, 3 and 64 (the README's table); for `run`, also
    /// 125 (stowage failed: a room that cannot be made) and 130 (interrupted).
    static func isDocumented(_ status: Int32, run: Bool) -> Bool {
        [0, 1, 3, 64].contains(status) || (run && [125, 130].contains(status))
    }

    @Test("figures at Int64's ends, through every option and variable that takes one: documented exit statuses only, never a signal")
    func fuzz() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["STOWAGE_TEST_SEED"].flatMap(UInt64.init) ?? Self.fixedSeed
        let caseCount = environment["STOWAGE_CLI_FUZZ_CASES"].flatMap(Int.init) ?? 150
        print("command-line fuzz: seed \(seed), \(caseCount) cases (replay: STOWAGE_TEST_SEED=\(seed) STOWAGE_CLI_FUZZ_CASES=\(caseCount) "
              + "swift test --filter CommandLineFuzzTests)")
        var random = SeededRandom(seed: seed)
        let scratch = try await Scratch()
        var statuses: [Int32: Int] = [:]
        var stopped = 0
        var failures: [String] = []
        for index in 0..<caseCount {
            let fuzzCase = Self.makeCase(&random, scratch: scratch)
            let result: CommandRunner.Result
            do {
                result = try await scratch.runner.run(fuzzCase.arguments, closing: fuzzCase.closed, environment: fuzzCase.environment,
                                                within: .seconds(fuzzCase.mayRun ? 10 : 120))
            } catch let timeout as ChildProcessTimeout where fuzzCase.mayRun {
                stopped += 1  // a watch, or a long range of rooms, working as asked: killed at the deadline
                _ = timeout
                try await scratch.reset()
                continue
            }
            statuses[result.status, default: 0] += 1
            if result.signal != nil || !Self.isDocumented(result.status, run: fuzzCase.isRun) {
                failures.append("case \(index): \(fuzzCase)\n  -> status \(result.status), signal \(result.signal.map(String.init) ?? "none"): "
                                + String(result.error.suffix(600)))
            }
            try await scratch.reset()
        }
        print("command-line fuzz: \(caseCount) cases, statuses \(statuses.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")), "
              + "\(stopped) stopped at the deadline, \(failures.count) failed")
        #expect(failures.isEmpty, "seed \(seed):\n\(failures.joined(separator: "\n"))")
        #expect(try hostRoomMounts().isEmpty)
    }
}
