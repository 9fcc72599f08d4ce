import Foundation
import StowageTestSupport
import Testing

/// `stowage run` as a tester uses it: the command's output, exit status and signals are its
/// own, stowage's failures have statuses of their own, and nothing is left on the host, even
/// when stowage is killed.
@Suite("stowage run")
struct RunCommandTests {
    /// A runner whose HOME and TMPDIR exist, with a `real` folder for rooms to cover; skips the
    /// test, saying why, where a room cannot be made.
    static func runner(fileSystem: String = "tmpfs", sourceLocation: SourceLocation = #_sourceLocation) async throws -> CommandRunner {
        let runner = try CommandRunner()
        for name in ["home", "tmp", "real"] {
            try FileManager.default.createDirectory(at: runner.folder.appending(path: name), withIntermediateDirectories: true)
        }
        if let reason = try await roomRefusal(runner, fileSystem: fileSystem) {
            print("SKIPPED: \(reason)")
            try Test.cancel(Comment(rawValue: reason), sourceLocation: sourceLocation)
        }
        return runner
    }

    /// Why a room of `fileSystem` cannot be made here, or `nil` when it can: a probe room over
    /// `runner`'s `real` folder (which must exist). A probe that fails for another reason fails the test.
    static func roomRefusal(_ runner: CommandRunner, fileSystem: String = "tmpfs") async throws -> String? {
        // The probe's room is of the test's file system: an ext4 layer needs root and mkfs.ext4.
        let probe = try await runner.run("run", "--available", fileSystem == "ext4" ? "1MB" : "4KB", "--fs", fileSystem,
                                   "--over", runner.folderPath + "/real", "--", "/bin/true")
        let unsupported = ["not supported", "refused", "an ext4 layer needs"]  // the library's .unsupported reasons
        if probe.status == 125, unsupported.contains(where: probe.error.contains) {
            return "a room cannot be made here (\(probe.error.trimmingCharacters(in: .whitespacesAndNewlines)))"
        }
        try #require(probe.status == 0, "\(probe.error)")
        return nil
    }


    @Test("the command's output and exit status are its own; the room is what --available says")
    func outputAndStatus() async throws {
        let runner = try await Self.runner()
        let real = runner.folderPath + "/real"
        let result = try await runner.run("run", "--available", "5MB", "--over", real, "--", "/bin/sh", "-c",
                                    "df -B1 --output=avail \"$0\" | tail -1; echo to-stderr >&2; exit 7", real)
        #expect(result.status == 7)
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "5001216")
        #expect(result.error == "to-stderr\n", "stowage adds nothing to a run that went well")
        #expect(try hostRoomMounts().isEmpty)
    }

    @Test("a signal that ends the command ends stowage the same way")
    func signalPassesThrough() async throws {
        let runner = try await Self.runner()
        let process = try runner.start(["run", "--available", "1MB", "--over", runner.folderPath + "/real", "--",
                                        "/bin/sh", "-c", "kill -TERM $$"])
        let ended = try await process.finish(within: .seconds(60))
        #expect(ended.signal == SIGTERM, "status \(ended.status), signal \(String(describing: ended.signal))")
    }

    @Test("SIGTERM sent to stowage goes to the command, whose status stowage then exits with")
    func signalsAreForwarded() async throws {
        let runner = try await Self.runner()
        let process = try runner.start(["run", "--available", "1MB", "--over", runner.folderPath + "/real", "--",
                                        "/bin/sh", "-c", "trap 'echo got TERM; exit 42' TERM; echo ready; while :; do sleep 0.05; done"])
        await #expect(try process.read(until: "ready", within: .seconds(120)).contains("ready"))
        process.signal(SIGTERM)
        let ended = try await process.finish(within: .seconds(60))
        #expect(ended.signal == nil && ended.status == 42, "status \(ended.status)")
        #expect(ended.output.contains("got TERM"))
    }

    @Test("Ctrl-C at a terminal reaches the command, and stowage exits as the command does")
    func controlCAtATerminal() async throws {
        let runner = try await Self.runner()
        let script = try requireToolURL("script")  // util-linux: gives the command a terminal
        let binary = try CommandRunner.binary().path(percentEncoded: false)
        // `exec`: script runs its command with `$SHELL -c`, and a shell that stays (dash does)
        // gets the terminal's SIGINT too and ends by it after stowage exits, whatever stowage did.
        let inner = "exec '\(binary)' run --available 1MB --over \(runner.folderPath)/real -- /bin/sh -c "
            + "'trap \"echo INT caught; caught=1\" INT; echo ready; "
            + "while :; do sleep 0.05; if [ -n \"$caught\" ]; then sleep 0.5; exit 5; fi; done'"
        let input = Pipe()
        let process = try ChildProcess(script, ["-q", "-f", "-e", "-c", inner, "/dev/null"],
                                       environment: runner.environment.merging(["SHELL": "/bin/sh"]) { $1 },
                                       standardInput: input.fileHandleForReading.fileDescriptor)
        await #expect(try process.read(until: "ready", within: .seconds(120)).contains("ready"))
        input.fileHandleForWriting.write(Data([0x03]))  // the terminal's interrupt character: SIGINT to its foreground group
        let ended = try await process.finish(within: .seconds(60))
        let text = ended.output
        // (Whether stowage also forwarded it cannot be seen here: two SIGINTs pending at once merge.)
        #expect(text.contains("INT caught"), "\(text)")
        #expect(ended.status == 5, "the command's status, through stowage and script")
    }

    @Test("a Store write from the test helper inside stowage run --root is noSpace naming its path, and loses nothing")
    func storeWriteInsideRun() async throws {
        let runner = try await Self.runner()
        let helper = try CommandRunner.binary().deletingLastPathComponent().appending(path: "stowage-test-helper")
        guard FileManager.default.isExecutableFile(atPath: helper.path(percentEncoded: false)) else {
            print("SKIPPED: stowage-test-helper is not built beside stowage")
            try Test.cancel("stowage-test-helper is not built")
        }
        let root = runner.folderPath + "/container"
        try FileManager.default.createDirectory(atPath: root + "/Documents", withIntermediateDirectories: true)
        let original = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try original.write(to: URL(filePath: root + "/Documents/value.bin"))
        let result = try await runner.run("run", "--available", "256KB", "--root", root, "--",
                                    helper.path(percentEncoded: false), "save-over", root, "value.bin", "1000000")
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "error noSpace Documents/value.bin", "\(result.output)")
        #expect(lines.contains("unchanged 100000") && lines.contains("entries: value.bin"), "\(result.output)")
        #expect(try Data(contentsOf: URL(filePath: root + "/Documents/value.bin")) == original)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/Documents") == ["value.bin"])
    }

    @Test("SIGKILL of stowage ends every process of the room, those the command left in the background too, and leaves no mount on the host",
          arguments: ["tmpfs", "ext4"])
    func killedStowageLeavesNothing(fileSystem: String) async throws {
        let runner = try await Self.runner(fileSystem: fileSystem)
        let real = runner.folderPath + "/real"
        // The shell waits for the second sleep; the first runs in the background, and a command's
        // processes outlived a killed stowage (holding the namespace and the loop device) before
        // the room had a PID namespace of its own.
        let script = "readlink /proc/self/ns/mnt; grep \" $0 \" /proc/self/mountinfo | grep -o '/dev/loop[0-9]*' | head -1; "
            + "echo ready; sleep 300 & sleep 301"
        let process = try runner.start(["run", "--available", "1MB", "--fs", fileSystem, "--over", real, "--",
                                        "/bin/sh", "-c", script, real])
        let lines = try await process.read(until: "ready", within: .seconds(120)).split(separator: "\n").map(String.init)
        let namespace = try #require(lines.first { $0.hasPrefix("mnt:[") }, "\(lines)")
        // Looked up while the namespace exists (its number may be another room's once it is gone).
        var started = processes(inMountNamespace: namespace)
        func sleeps() -> Int { started.filter { (try? String(contentsOfFile: "/proc/\($0.pid)/comm", encoding: .utf8)) == "sleep\n" }.count }
        for _ in 0..<2_400 where sleeps() < 2 {
            try await Task.sleep(for: .seconds(0.05))
            started = processes(inMountNamespace: namespace)
        }
        defer { end(started) }  // a failure leaves nothing running
        #expect(sleeps() == 2, "both sleeps run in the namespace: \(started)")
        #expect(namespace != (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/mnt")))
        process.signal(SIGKILL)
        _ = try await process.finish(within: .seconds(60))
        var left = started.filter(\.exists)
        // The parent-death signals end the room's init at once, and the kernel every process
        // in its PID namespace; the polls stop as soon as what they wait for is seen, and allow
        // 2 minutes to a machine starved by the rest of the suite.
        for _ in 0..<2_400 where !left.isEmpty {
            try await Task.sleep(for: .seconds(0.05))
            left = started.filter(\.exists)
        }
        #expect(left.isEmpty, "no process is left in the namespace, so it is gone with its mounts")
        #expect(try hostRoomMounts().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: real).isEmpty)
        if fileSystem == "ext4" {
            let loop = try #require(lines.first { $0.hasPrefix("/dev/loop") }, "\(lines)")
            let backing = "/sys/block/\(loop.dropFirst("/dev/".count))/loop/backing_file"
            var attached = FileManager.default.fileExists(atPath: backing)
            for _ in 0..<2_400 where attached {  // the ext4 layer is written back to its image first
                try await Task.sleep(for: .seconds(0.05))
                attached = FileManager.default.fileExists(atPath: backing)
            }
            #expect(!attached, "\(loop) detached itself when the namespace's mounts went")
        }
    }

    @Test("the command gets descriptors 0, 1 and 2 only: one open on a real file before run is not inherited, nor stowage's own",
          arguments: ["tmpfs", "ext4"])
    func onlyStandardDescriptors(fileSystem: String) async throws {
        let runner = try await Self.runner(fileSystem: fileSystem)
        let real = runner.folderPath + "/real"
        let outside = runner.folderPath + "/outside.txt"
        try Data("real\n".utf8).write(to: URL(filePath: outside))
        // The shell opens fd 5 on a real file (no close-on-exec), then becomes stowage.
        let result = try await runProcess(URL(filePath: "/bin/sh"), ["-c", "exec 5>>\"$0\"; exec \"$@\"", outside,
                                                               try CommandRunner.binary().path(percentEncoded: false),
                                                               "run", "--available", "4MB", "--fs", fileSystem, "--over", real, "--",
                                                               "/bin/sh", "-c", "echo changed >&5 || echo refused; exec ls /proc/self/fd"],
                                    environment: runner.environment, directory: runner.folder)
        // The shell's descriptors become ls's, which adds one, 3, to read the folder.
        #expect(result.output == "refused\n0\n1\n2\n3\n", "only the standard descriptors: \(result.output)")
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("Bad file descriptor"), "\(result.error)")
        #expect(try String(contentsOfFile: outside, encoding: .utf8) == "real\n", "the real file is unchanged")
    }

    @Test("the README's example: a test suite in a 5 MB room over the home and temporary folders (the defaults)")
    func testSuiteInARoom() async throws {
        let runner = try await Self.runner()
        let suite = runner.folderPath + "/suite.sh"
        try """
            passed=0 failed=0
            check() { if sh -c "$1" 2>/dev/null; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $1"; fi; }
            check 'head -c 1000000 /dev/zero > "$TMPDIR/small.bin"'
            check 'head -c 3000000 /dev/zero > "$HOME/medium.bin"'
            check 'head -c 10000000 /dev/zero > "$TMPDIR/large.bin"'
            echo "$passed passed, $failed failed"
            [ "$failed" -eq 0 ]
            """.write(toFile: suite, atomically: true, encoding: .utf8)
        let result = try await runner.run("run", "--available", "5MB", "--", "/bin/sh", suite)
        #expect(result.status == 1, "the suite's own status: \(result.error)")
        #expect(result.output == """
            FAIL: head -c 10000000 /dev/zero > "$TMPDIR/large.bin"
            2 passed, 1 failed

            """, "the home folder and the temporary folder share the 5 MB: \(result.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: runner.folderPath + "/home").isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: runner.folderPath + "/tmp").isEmpty)
    }

    @Test("relative paths lead into the room: the command starts in the working folder as the room shows it")
    func workingFolderIsInTheRoom() async throws {
        let runner = try await Self.runner()
        let result = try await runner.run("run", "--available", "1MB", "--over", runner.folderPath, "--",
                                    "/bin/sh", "-c", "echo inside > relative.txt && cat relative.txt")
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == "inside\n")
        #expect(!FileManager.default.fileExists(atPath: runner.folderPath + "/relative.txt"))
    }

    @Test("with --root the room covers the container; the app's files are read, its writes stay in the room")
    func rootContainer() async throws {
        let runner = try await Self.runner()
        let root = runner.folderPath + "/container"
        try FileManager.default.createDirectory(atPath: root + "/Documents", withIntermediateDirectories: true)
        try Data("saved before".utf8).write(to: URL(filePath: root + "/Documents/note.txt"))
        let result = try await runner.run("run", "--available", "64KB", "--root", root, "--", "/bin/sh", "-c",
                                    "cat \"$0/Documents/note.txt\"; echo; head -c 100000 /dev/zero > \"$0/Documents/big\" || echo full", root)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == "saved before\nfull\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/Documents") == ["note.txt"])
    }

    @Test("--keep copies the command's writes and says so; --drop-to and --inodes reach the room")
    func keepDropInodes() async throws {
        let runner = try await Self.runner()
        let real = runner.folderPath + "/real"
        let keep = runner.folderPath + "/kept"
        // The drop comes 10 s after the command starts; the note is written first, by the shell
        // itself (no process to start), and df counts the inodes before it, however slowly a
        // loaded machine starts df.
        let result = try await runner.run("run", "--available", "2MB", "--drop-to", "0", "--after", "10s", "--inodes", "5",
                                    "--keep", keep, "--over", real, "--", "/bin/sh", "-c", """
                                        echo hello > "$0/note.txt"
                                        df --output=iavail "$0" | tail -1 | tr -d ' '
                                        while [ "$(df -B1 --output=avail "$0" | tail -1 | tr -d ' ')" != 0 ]; do sleep 0.05; done
                                        head -c 10000 /dev/zero >> "$0/note.txt" 2>/dev/null || echo full
                                        """, real)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == "4\nfull\n", "five free inodes, the note took one: \(result.output)")
        #expect(result.error.hasPrefix("stowage: kept 1 file ("), "\(result.error)")
        #expect(result.error.hasSuffix(") the command wrote in \(keep)\n"), "\(result.error)")
        #expect(try String(contentsOfFile: keep + real + "/note.txt", encoding: .utf8).hasPrefix("hello\n"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: real).isEmpty)
    }

    @Test("stowage's own failures: 127 not found, 126 not runnable, 125 no room, 64 usage")
    func failureStatuses() async throws {
        let runner = try await Self.runner()
        let real = runner.folderPath + "/real"
        let missing = try await runner.run("run", "--available", "1MB", "--over", real, "--", "stowage-no-such-program")
        #expect(missing.status == 127)
        #expect(missing.error == "stowage: run 'stowage-no-such-program' failed: 'stowage-no-such-program' is not a program in PATH\n")
        try Data("text".utf8).write(to: URL(filePath: real + "/plain.txt"))
        await #expect(try runner.run("run", "--available", "1MB", "--over", real, "--", real + "/plain.txt").status == 126)
        let noFolder = try await runner.run("run", "--available", "1MB", "--over", runner.folderPath + "/missing", "--", "/bin/true")
        #expect(noFolder.status == 125)
        #expect(noFolder.error.contains("missing' failed: no such file or directory"), "\(noFolder.error)")
        await #expect(try runner.run("run", "--available", "1MB", "--over", real).status == 64, "no command")
        await #expect(try runner.run("run", "--available", "1MB", "--drop-to", "0", "--over", real, "--", "/bin/true").status == 64)
        await #expect(try runner.run("run", "--available", "-1MB", "--over", real, "--", "/bin/true").status == 64)
        await #expect(try runner.run("run", "--available", "1MB", "--over", real, "--app", "x", "--", "/bin/true").status == 64)
        await #expect(try runner.run("run", "--available", "1MB", "--fs", "btrfs", "--over", real, "--", "/bin/true").status == 64)
    }

    @Test("an ordinary user gets a room in a user namespace, as themself; others' files read but do not copy up")
    func ordinaryUser() async throws {
        let runner = try await Self.runner()
        guard getuid() == 0 else {
            print("SKIPPED: needs root (to become another user)")
            try Test.cancel("needs root")
        }
        let setpriv = try requireToolURL("setpriv")
        let binary = try CommandRunner.binary().path(percentEncoded: false)
        let real = runner.folderPath + "/real"
        chown(real, 65534, 65534)
        chmod(runner.folderPath, 0o755)
        // A file root owns, that anyone may write: outside the room nobody could append to it.
        try Data("root's\n".utf8).write(to: URL(filePath: real + "/shared.txt"))
        chmod(real + "/shared.txt", 0o666)
        let result = try await runProcess(setpriv,
                                    ["--reuid=65534", "--regid=65534", "--clear-groups", binary, "run", "--available", "1MB",
                                     "--over", real, "--", "/bin/sh", "-c",
                                     "id -u; df -B1 --output=avail \"$0\" | tail -1 | tr -d ' '; head -c 2000000 /dev/zero > \"$0/x\" || echo full; "
                                        + "cat \"$0/shared.txt\"; echo more >> \"$0/shared.txt\" || echo not-copied-up",
                                     real], environment: runner.environment)
        if result.status == 125 || result.status == 126 {
            let reason = "an ordinary user cannot make a room here: \(result.error.trimmingCharacters(in: .whitespacesAndNewlines))"
            print("SKIPPED: \(reason)")
            try Test.cancel(Comment(rawValue: reason))
        }
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == "65534\n1003520\nfull\nroot's\nnot-copied-up\n", "\(result.output)")
        #expect(result.error.contains("Value too large for defined data type"), "EOVERFLOW: root is not in the namespace: \(result.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: real) == ["shared.txt"])
    }
}
