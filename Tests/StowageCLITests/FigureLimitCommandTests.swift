import Foundation
import Testing

/// Figures at the ends of `Int64` on the command line (issue 30, item 11): each of these ended
/// `stowage` with an arithmetic overflow (SIGILL, exit 132); each is now refused where it is
/// parsed, naming the option and the limit, before anything is made.
@Suite("stowage figures at Int64's ends")
struct FigureLimitCommandTests {
    @Test("run: sizes, inodes, ranges and steps past a room's limits are usage errors naming the option and the limit", arguments: [
        (["--available", "0..9223372036854775807"], "--available: the high end of '0..9223372036854775807': 9223372036854775807 bytes "
            + "is more than the largest room, 1 EiB (1152921504606846976 bytes)"),
        (["--available", "0..8000PB", "--step", "4EB"], "--available: the high end of '0..8000PB': 8000000000000000000 bytes is more than "
            + "the largest room, 1 EiB (1152921504606846976 bytes)"),
        (["--available", "0..9223372036854775807", "--find-minimum"], "--available: the high end of '0..9223372036854775807'"),
        (["--available", "1MB", "--inodes", "0..9223372036854775807", "--step", "100000000000000"],
         "--inodes: the high end of '0..9223372036854775807': 9223372036854775807 inodes is more than a room's layer can have free, 4000000000"),
        (["--available", "1MB", "--inodes", "0..9223372036854775807", "--find-minimum"], "--inodes: the high end of '0..9223372036854775807'"),
        (["--available", "1MB", "--inodes", "9223372036854775807"],
         "--inodes is 9223372036854775807, more than a room's layer can have free, 4000000000."),
        (["--available", "1MB", "--inodes", "9223372036854775000"], "--inodes is 9223372036854775000, more than a room's layer can have free"),
        (["--available", "1MB", "--inodes", "9223372036854775808"], "--inodes is 9223372036854775808, more than a room's layer can have free"),
        (["--available", "1MB", "--inodes", "4000000001"], "--inodes is 4000000001, more than a room's layer can have free, 4000000000."),
        (["--available", "1MB", "--inodes", "36028797018963968", "--fs", "ext4"], "--inodes is 36028797018963968, more than"),
        (["--available", "9223372036854775807", "--fs", "ext4"],
         "The value '9223372036854775807' is invalid for '--available <size>': 9223372036854775807 bytes is more than the largest room, "
            + "1 EiB (1152921504606846976 bytes)"),
        (["--available", "1152921504606846977", "--fs", "ext4"], "1152921504606846977 bytes is more than the largest room"),
        (["--available", "1MB", "--drop-to", "9223372036854775807", "--after", "1s"],
         "The value '9223372036854775807' is invalid for '--drop-to <size>': 9223372036854775807 bytes is more than the largest room"),
    ] as [([String], String)])
    func run(options: [String], message: String) async throws {
        let runner = try CommandRunner()
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/real", withIntermediateDirectories: true)
        let result = try await runner.run(["run"] + options + ["--over", runner.folderPath + "/real", "--", "/bin/true"])
        #expect(result.signal == nil && result.status == 64, "status \(result.status), signal \(result.signal ?? 0): \(result.error)")
        #expect(result.error.contains(message), "\(result.error)")
    }

    @Test("STOWAGE_PROGRESS_DELAY at Int64's end, or past a Double's, is a delay like any other (found by the fuzz: SIGILL)",
          arguments: ["9223372036854775807", "1e300", "1e18", "9223372036854775.807", "-1e300", "0x7fffffffffffffff"])
    func progressDelay(value: String) async throws {
        let runner = try CommandRunner()
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/app", withIntermediateDirectories: true)
        let result = try await runner.run(["audit", "--root", runner.folderPath + "/app"], environment: ["STOWAGE_PROGRESS_DELAY": value])
        #expect(result.signal == nil && result.status == 0, "status \(result.status): \(result.error)")
    }

    @Test("simulated figures up to 8 EiB: the overview and info show the share used as df rounds it (found by the fuzz: SIGILL)",
          arguments: [("4KB", "1152921504606846976", 100), ("9223372036854775807", "9223372036854775807", 0),
                      ("4611686018427387904", "9223372036854775807", 50), ("1", "9223372036854775807", 100), ("0", "0", 0)])
    func simulatedShare(available: String, total: String, percent: Int) async throws {
        let runner = try CommandRunner()
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/app", withIntermediateDirectories: true)
        let environment = ["STOWAGE_SIMULATED_AVAILABLE": available, "STOWAGE_SIMULATED_TOTAL": total]
        for command in [[], ["info"]] as [[String]] {
            let result = try await runner.run(command + ["--root", runner.folderPath + "/app"], environment: environment)
            #expect(result.signal == nil && result.status == 0, "\(command) status \(result.status): \(result.error)")
            #expect(result.output.contains("]  \(percent)% used\n"), "\(result.output)")
        }
    }

    @Test("fill --consume 9223372036854775807 (and 8 EiB less a block) is more than is available: refused, nothing filled")
    func fillConsume() async throws {
        let runner = try CommandRunner()
        let volume = try ScratchVolume.mount(size: "16m", in: runner.folder)
        let before = FillCommandTests.available(volume.path)
        for consume in ["9223372036854775807", "9223372036854771713", "8EiB"] {
            let result = try await runner.run("fill", volume.path, "--consume", consume)
            #expect(result.signal == nil, "\(consume): \(result.error)")
            if consume == "8EiB" {
                #expect(result.status == 64 && result.error.contains("it is 8 EiB or more"), "\(result.error)")
            } else {
                #expect(result.status == 1, "\(consume): \(result.error)")
                #expect(result.error.contains("cannot consume 9.2 EB: only"), "\(result.error)")
            }
        }
        #expect(FillCommandTests.available(volume.path) == before)
        #expect(!FileManager.default.fileExists(atPath: volume.path + "/.stowage-fill/fill-000001"))
    }
}
