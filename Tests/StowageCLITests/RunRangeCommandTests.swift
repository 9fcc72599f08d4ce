import Foundation
import Testing

/// `stowage run` over a range of rooms (issue 25): a line per room, the failing sizes exactly,
/// the exit statuses, `--keep`, `--find-minimum`, the refusals, and SIGINT.
@Suite("stowage run over a range")
struct RunRangeCommandTests {
    /// A command that writes `bytes` bytes to `real/out.bin`, and a check that the file holds them all.
    static func writer(_ runner: CommandRunner, bytes: Int) -> (check: String, command: [String]) {
        let real = runner.folderPath + "/real"
        return ("test \"$(stat -c %s '\(real)/out.bin')\" = \(bytes)",
                ["/bin/sh", "-c", "head -c \(bytes) /dev/zero > \"$0/out.bin\"", real])
    }

    @Test("0..40KB in steps of 4KB: a line per room, both ends included; the check fails exactly under 3 blocks; exit 1")
    func failingSizes() async throws {
        let runner = try await RunCommandTests.runner()
        let (check, command) = Self.writer(runner, bytes: 10_000)
        let result = try await runner.run(["run", "--available", "0..40KB", "--step", "4KB", "--over", runner.folderPath + "/real",
                                     "--check", check, "--"] + command)
        #expect(result.status == 1, "\(result.error)")
        #expect(result.output == """
             BYTES  COMMAND     CHECK
                 0  exit 1      FAILED (exit 1)
              4096  exit 1      FAILED (exit 1)
              8192  exit 1      FAILED (exit 1)
             12288  exit 0      passed
             16384  exit 0      passed
             20480  exit 0      passed
             24576  exit 0      passed
             28672  exit 0      passed
             32768  exit 0      passed
             36864  exit 0      passed
             40960  exit 0      passed
            11 rooms from 0 bytes to 40960 bytes in steps of 4096 bytes: the check failed in 3: 0, 4096, 8192 bytes

            """, "40KB is 9.8 blocks: the high end is rounded up to 10")
        #expect(result.error == "stowage: note: the step, 4 kB (4000 bytes), is not a whole number of 4096-byte blocks; "
                + "rounded up to 4096 bytes\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: runner.folderPath + "/real").isEmpty)
        #expect(try hostRoomMounts().isEmpty)
    }

    @Test("exit 0 when every check passes, 3 when the command never succeeds, whatever the checks say")
    func statuses() async throws {
        let runner = try await RunCommandTests.runner()
        let real = runner.folderPath + "/real"
        let passed = try await runner.run("run", "--available", "0..16KiB", "--over", real, "--check", "true", "--", "/bin/true")
        #expect(passed.status == 0, "\(passed.error)")
        #expect(passed.output.hasSuffix("5 rooms from 0 bytes to 16384 bytes in steps of 4096 bytes: every check passed\n"), "\(passed.output)")
        let never = try await runner.run("run", "--available", "0..16KiB", "--over", real, "--check", "true", "--", "/bin/false")
        #expect(never.status == 3, "\(never.error)")
        #expect(never.output.hasSuffix("the command succeeded in none (every check passed)\n"), "\(never.output)")
        let noCheck = try await runner.run("run", "--inodes", "0..3", "--available", "4KB", "--over", real, "--", "/bin/sh", "-c",
                                     "touch \"$0/a\"", real)
        #expect(noCheck.status == 0, "\(noCheck.error)")
        #expect(noCheck.output == """
            INODES  COMMAND     CHECK
                 0  exit 1      -
                 1  exit 0      -
                 2  exit 0      -
                 3  exit 0      -
            4 rooms from 0 inodes to 3 inodes in steps of 1 inode: no check; the command succeeded in 3

            """)
    }

    @Test("--keep copies what the room of the first failed check held, and only that one")
    func keepFirstFailure() async throws {
        let runner = try await RunCommandTests.runner()
        let real = runner.folderPath + "/real"
        let keep = runner.folderPath + "/kept"
        let (check, _) = Self.writer(runner, bytes: 10_000)
        let result = try await runner.run("run", "--available", "4KiB..24KiB", "--over", real, "--keep", keep, "--check", check, "--",
                                    "/bin/sh", "-c", "df -B1 --output=avail \"$0\" | tail -1 | tr -d ' ' > \"$0/room.txt\"; "
                                        + "head -c 10000 /dev/zero > \"$0/out.bin\"", real)
        #expect(result.status == 1, "\(result.error)")
        // room.txt takes a block of its own: 10,000 bytes more need 3.
        #expect(result.output.hasSuffix("the check failed in 3: 4096, 8192, 12288 bytes\n"), "\(result.output)")
        #expect(try String(contentsOfFile: keep + real + "/room.txt", encoding: .utf8) == "4096\n", "the first failing room's writes")
        #expect(result.error.contains("kept 2 files ("), "\(result.error)")
        #expect(result.error.contains(" of the room of 4096 bytes in \(keep)\n"), "\(result.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: real).isEmpty)
    }

    @Test("--find-minimum: needs at least 25 blocks for 100,000 bytes, confirmed; exit 3 when even the largest room fails")
    func findMinimum() async throws {
        let runner = try await RunCommandTests.runner()
        let real = runner.folderPath + "/real"
        let (check, command) = Self.writer(runner, bytes: 100_000)
        let found = try await runner.run(["run", "--available", "0..1MiB", "--find-minimum", "--over", real, "--check", check, "--"] + command)
        #expect(found.status == 0, "\(found.error)")
        let lines = found.output.split(separator: "\n")
        #expect(lines.suffix(2) == [
            "needs at least 102.4 kB free (102400 bytes); 98304 bytes is not enough "
                + "(confirmed: 102400 bytes succeeded on a second run; at 98304 bytes the command failed with exit 1)",
            "assumed, not run: that every room smaller than 98304 bytes fails and every one larger than 102400 bytes succeeds "
                + "(\(lines.count - 5) of 257 rooms run; without --find-minimum every room is run)",
        ], "\(found.output)")
        #expect(lines.dropFirst().prefix(2).map { $0.split(separator: " ").first } == ["0", "1048576"], "the low end, then the high end")
        let never = try await runner.run(["run", "--available", "0..64KiB", "--find-minimum", "--over", real, "--"] + command)
        #expect(never.status == 3)
        #expect(never.output.hasSuffix("the command did not succeed even in the largest room, 65536 bytes\n"), "\(never.output)")
        let zero = try await runner.run("run", "--available", "0..16KiB", "--find-minimum", "--over", real, "--", "/bin/true")
        #expect(zero.status == 0, "\(zero.error)")
        #expect(zero.output == """
             BYTES  COMMAND     CHECK
                 0  exit 0      -
                 0  exit 0      -
            needs no free bytes: it succeeded in an empty room, also on a second run (confirmed)

            """, "nothing below 0 to run, nothing assumed")
        let below = try await runner.run("run", "--available", "8KiB..16KiB", "--find-minimum", "--iec", "--over", real, "--", "/bin/true")
        #expect(below.status == 1, "not confirmed: \(below.error)")
        #expect(below.output.hasSuffix("not confirmed: it needs at least 8 KiB free (8192 bytes), but succeeded with 4096 bytes too, "
                                       + "below the range: widen it\n"), "\(below.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: real).isEmpty)
    }

    @Test("--find-minimum where only the check fails: the rows and the summary say it was the check, and the exit is 1, not 3")
    func findMinimumCheckAlone() async throws {
        let runner = try await RunCommandTests.runner()
        let result = try await runner.run("run", "--available", "0..16KiB", "--find-minimum", "--over", runner.folderPath + "/real",
                                    "--check", "exit 2", "--", "/bin/true")
        #expect(result.status == 1, "\(result.error)")
        #expect(result.output == """
             BYTES  COMMAND     CHECK
                 0  exit 0      FAILED (exit 2)
             16384  exit 0      FAILED (exit 2)
            the check failed even in the largest room, 16384 bytes, with exit 2 (the command exited 0 there)

            """)
        let command = try await runner.run("run", "--available", "0..16KiB", "--find-minimum", "--over", runner.folderPath + "/real",
                                     "--check", "exit 2", "--", "/bin/false")
        #expect(command.status == 3, "the command never succeeded: \(command.error)")
        #expect(command.output.hasSuffix("\nthe command did not succeed even in the largest room, 16384 bytes\n"), "\(command.output)")
    }

    @Test("--find-minimum says what it confirmed and what it assumed: a command whose need is not monotonic is found at 901120 bytes, the rooms between assumed")
    func findMinimumAssumptions() async throws {
        let runner = try await RunCommandTests.runner()
        let real = runner.folderPath + "/real"
        // Succeeds in rooms of 200 to 400 kB, and from 900 kB: not what a bisection assumes.
        let script = #"a=$(df -B1 --output=avail "$0" | tail -1); [ "$a" -ge 200000 ] && [ "$a" -le 400000 ] || [ "$a" -ge 900000 ]"#
        let result = try await runner.run("run", "--available", "0..1MB", "--find-minimum", "--over", real, "--", "/bin/sh", "-c", script, real)
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        let runCount = lines.count - 3 - 2  // the header, the two summary lines; the two confirmations run sizes already run
        #expect(lines.suffix(2) == [
            "needs at least 901.1 kB free (901120 bytes); 897024 bytes is not enough "
                + "(confirmed: 901120 bytes succeeded on a second run; at 897024 bytes the command failed with exit 1)",
            "assumed, not run: that every room smaller than 897024 bytes fails and every one larger than 901120 bytes succeeds "
                + "(\(runCount) of 246 rooms run; without --find-minimum every room is run)",
        ], "\(result.output)")
        let room = try await runner.run("run", "--available", "300KB", "--over", real, "--", "/bin/sh", "-c", script, real)
        #expect(room.status == 0, "a 300 kB room is enough too: the assumption was wrong, and the summary says it was one")
    }

    @Test("the README's example runs as printed: --find-minimum over 0..1GB (244,142 rooms) in the default folders, a few rooms run")
    func readmeFindMinimum() async throws {
        let runner = try await RunCommandTests.runner()
        let readme = try String(contentsOf: JSONVocabularySnippetTests.packageRoot.appending(path: "README.md"), encoding: .utf8)
        let line = try #require(readme.split(separator: "\n").first { $0.contains("--find-minimum") && $0.hasPrefix("$ stowage run") })
        let words = line.split(separator: "#")[0].split(separator: " ").dropFirst().map(String.init)
        #expect(words == ["stowage", "run", "--available", "0..1GB", "--find-minimum", "--", "./myapp", "--sync"])
        // ./myapp: saves 100,000 bytes in the home folder (a room's default folder) when told --sync.
        let app = runner.folder.appending(path: "myapp")
        try Data("#!/bin/sh\n[ \"$1\" = --sync ] && head -c 100000 /dev/zero > \"$HOME/synced\"\n".utf8).write(to: app)
        chmod(app.path(percentEncoded: false), 0o755)
        let result = try await runner.run(Array(words.dropFirst()))
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.suffix(2).first?.hasPrefix("needs at least 102.4 kB free (102400 bytes); 98304 bytes is not enough (confirmed") == true,
                "\(result.output)")
        print("README example: \(lines.count - 3) rooms run of 244,142")
        #expect(lines.count - 3 <= 22, "the ends, log2(244,141) halvings and the two confirmations: \(result.output)")
        #expect(!FileManager.default.fileExists(atPath: runner.folderPath + "/home/synced"), "the real home folder untouched")
    }

    @Test("bad ranges and options that do not go together are refused with 64, saying why", arguments: [
        (["--available", "2MB..1MB"], "--available: the range '2MB..1MB' goes down: its low end is above its high end"),
        (["--available", "0.."], "--available: '0..' lacks an end: a range needs both, LOW..HIGH, as in 0..2MB"),
        (["--available", "0..1MB", "--step", "0"], "--available: the step cannot be 0"),
        (["--available", "0..500KB", "--step", "1MB"], "the step (1003520 bytes) is larger than the range (0 to 503808 bytes)"),
        (["--available", "1MB..2MB..3MB"], "is not a range: give LOW..HIGH"),
        (["--available", "0...1MB"], "--available: '0...1MB' has more than two dots between its ends: give LOW..HIGH, as in 0..2MB"),
        (["--available", "0..1MB", "--inodes", "0....5"], "One of --available and --inodes can be a range, not both."),
        (["--available", "1MB", "--inodes", "0...5"], "--inodes: '0...5' has more than two dots between its ends"),
        (["--available", "abc..1MB"], "--available: the low end of 'abc..1MB': "),
        (["--available", "4000..4096"], "holds one room (4096 bytes rounded up to whole blocks of 4096 bytes)"),
        (["--available", "0..1MB", "--inodes", "0..5"], "One of --available and --inodes can be a range, not both."),
        (["--available", "1MB", "--check", "true"], "--check goes with a range of rooms"),
        (["--available", "1MB", "--step", "4KB"], "--step goes with a range of rooms"),
        (["--available", "0..1MB", "--find-minimum", "--step", "8KB"], "--find-minimum searches to one block"),
        (["--available", "0..1MB", "--keep", "/nonexistent-keep"], "--keep with a range keeps the room of the first failed check: give --check."),
        (["--available", "0..1MB", "--fs", "ext4"], "A range of rooms is made on tmpfs only"),
        (["--available", "0..1MB", "--drop-to", "0", "--after", "1s"], "A range of rooms takes no --drop-to"),
        (["--available", "1MB", "--inodes", "x"], "--inodes takes a whole number of inodes"),
        (["--available", "1MB", "--inodes", "5..x"], "--inodes: the high end of '5..x' is 'x', not a whole number of inodes"),
    ] as [([String], String)])
    func refused(arguments: [String], message: String) async throws {
        let runner = try CommandRunner()
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/real", withIntermediateDirectories: true)
        let result = try await runner.run(["run"] + arguments + ["--over", runner.folderPath + "/real", "--", "/bin/true"])
        #expect(result.status == 64, "\(arguments): \(result.error)")
        #expect(result.error.contains(message), "\(arguments): \(result.error)")
        #expect(result.output.isEmpty)
    }

    @Test("a --check that is not UTF-8 is refused with 64 (it would be another command once repaired)")
    func checkNotUTF8() async throws {
        let runner = try CommandRunner()
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/real", withIntermediateDirectories: true)
        let result = try await runner.run(bytes: [Array("run".utf8), Array("--available".utf8), Array("0..8KiB".utf8), Array("--over".utf8),
                                            Array((runner.folderPath + "/real").utf8), Array("--check".utf8), Array("test -e x".utf8) + [0xFF],
                                            Array("--".utf8), Array("/bin/true".utf8)])
        #expect(result.status == 64)
        #expect(result.error.contains(#"the argument 'test -e x\xff' is not UTF-8"#))
    }

    @Test("the command line reaches every room byte for byte; output is discarded, or on standard error with --show-output")
    func bytesAndOutput() async throws {
        let runner = try await RunCommandTests.runner()
        let real = runner.folderPath + "/real"
        let out = runner.folderPath + "/out"
        let name: [UInt8] = Array("n".utf8) + [0xFF]
        let quiet = try await runner.run(bytes: ["run", "--available", "0..8KiB", "--over", real, "--", "/bin/sh", "-c",
                                           #"printf %s "$1" >> "$0"; echo said"#, out].map { Array($0.utf8) } + [name])
        #expect(quiet.status == 0, "\(quiet.error)")
        #expect(Array(try Data(contentsOf: URL(filePath: out))) == name + name + name, "three rooms, each given the same bytes")
        #expect(!quiet.output.contains("said") && quiet.error.isEmpty, "the command's output is discarded: \(quiet.output) \(quiet.error)")
        let shown = try await runner.run("run", "--available", "0..8KiB", "--over", real, "--show-output", "--check", "echo checked >&2", "--",
                                   "/bin/sh", "-c", "echo said")
        #expect(shown.status == 0, "\(shown.error)")
        #expect(shown.error == String(repeating: "said\nchecked\n", count: 3), "\(shown.error)")
        #expect(!shown.output.contains("said"), "standard output is the table's alone")
    }

    @Test("SIGINT stops the whole range at once: the command ends, no mount, no process, no temporary folder is left; exit 130",
          arguments: [false, true])
    func interrupt(toTheGroup: Bool) async throws {
        let runner = try await RunCommandTests.runner()
        let real = runner.folderPath + "/real"
        let tmp = runner.folderPath + "/tmp"
        let before = try FileManager.default.contentsOfDirectory(atPath: tmp)
        let process = try runner.start(["run", "--available", "0..4MiB", "--over", real, "--check", "sleep 0.1", "--",
                                        "/bin/sh", "-c", "readlink /proc/self/ns/mnt > \"$0/../ns-$(cat /proc/sys/kernel/random/uuid)\"; touch \"$0/x\"; sleep 0.2", real])
        await #expect(try process.read(until: "12288", within: .seconds(120)).contains("12288"), "three rooms are done")
        if toTheGroup {
            _ = kill(-process.identifier, SIGINT)  // as a terminal's Ctrl-C: stowage, the room's processes and the command
        } else {
            process.signal(SIGINT)
        }
        let ended = try await process.finish(within: .seconds(60))
        #expect(ended.status == 130, "\(ended.error)")
        #expect(ended.error.contains("stowage: interrupted after "), "\(ended.error)")
        let namespaces = Set(try FileManager.default.contentsOfDirectory(atPath: runner.folderPath).filter { $0.hasPrefix("ns-") }
            .map { try String(contentsOfFile: runner.folderPath + "/" + $0, encoding: .utf8).trimmingCharacters(in: .newlines) })
        // A mount namespace per run (the kernel reuses a gone namespace's number, so they need not differ).
        #expect(!namespaces.isEmpty, "the runs said where they ran")
        var left = namespaces.flatMap(processes(inMountNamespace:))
        for _ in 0..<2_400 where !left.isEmpty {
            try await Task.sleep(for: .seconds(0.05))
            left = namespaces.flatMap(processes(inMountNamespace:))
        }
        #expect(left.isEmpty, "no process of any room is left")
        #expect(try hostRoomMounts().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: real).isEmpty, "the real folder as it was")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp) == before, "no temporary folder left")
    }
}
