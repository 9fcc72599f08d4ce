import Foundation
import Testing

/// `run --keep` copies what it can of the command's writes and lists the rest with the reason
/// (issue 20, finding 13: it gave up at the first item it could not copy, naming the keep folder).
@Suite("stowage run --keep")
struct RunKeepCommandTests {
    @Test("a name that is not UTF-8 is kept exactly; a FIFO is listed as not copied; the run exits 0")
    func bytesAndSpecialItems() async throws {
        let runner = try await RunCommandTests.runner()
        let real = runner.folderPath + "/real"
        let keep = runner.folderPath + "/kept"
        let result = try await runner.run("run", "--available", "5MB", "--over", real, "--keep", keep, "--", "/bin/sh", "-c",
                                    #"cd "$0" && printf x > "$(printf 'n\377')" && echo hi > ok && mkfifo pipe"#, real)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("kept 2 files"), "\(result.error)")
        #expect(result.error.contains("not kept: \(real)/pipe: a device, socket or FIFO"), "\(result.error)")
        #expect(RawFiles.exists(RawFiles.join(keep + real, Array("n".utf8) + [0xFF])), "the name kept byte for byte")
        #expect(try String(contentsOfFile: keep + real + "/ok", encoding: .utf8) == "hi\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: real).isEmpty, "the real folder untouched")
    }

    @Test("a sparse file is kept sparse: a terabyte with a byte of data costs a block, not a terabyte of zeros")
    func sparseFiles() async throws {
        let runner = try await RunCommandTests.runner()
        let real = runner.folderPath + "/real"
        let keep = runner.folderPath + "/kept"
        let result = try await runner.run("run", "--available", "5MB", "--over", real, "--keep", keep, "--", "/bin/sh", "-c",
                                    #"cd "$0" && truncate -s 1T sparse && printf x | dd of=sparse bs=1 seek=1000000 conv=notrunc 2>/dev/null"#,
                                    real)
        #expect(result.status == 0, "\(result.error)")
        var status = stat()
        #expect(stat(keep + real + "/sparse", &status) == 0)
        #expect(status.st_size == 1 << 40, "the size kept")
        #expect(status.st_blocks * 512 <= 1 << 20, "only the data written: \(status.st_blocks * 512) bytes allocated")
        let file = try FileHandle(forReadingFrom: URL(filePath: keep + real + "/sparse"))
        defer { try? file.close() }
        try file.seek(toOffset: 999_999)
        #expect(try file.read(upToCount: 3) == Data([0, UInt8(ascii: "x"), 0]), "the data where it was")
    }

    @Test("--keep naming a folder with something in it, or a file, is refused with 64 before anything runs, in one room and a range")
    func keepRefusedBeforeRunning() async throws {
        let runner = try await RunCommandTests.runner()
        let real = runner.folderPath + "/real"
        let ran = runner.folderPath + "/ran"  // outside the room: the command leaves it if it ran
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/full", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(filePath: runner.folderPath + "/full/something"))
        try Data("file".utf8).write(to: URL(filePath: runner.folderPath + "/plain"))
        for (keep, message) in [("full", "the keep folder has something in it already"), ("plain", "the keep folder is not a folder")] {
            for range in [["--available", "1MB"], ["--available", "0..8KiB", "--check", "false"]] {
                let result = try await runner.run(["run"] + range + ["--over", real, "--keep", runner.folderPath + "/" + keep,
                                                              "--", "/bin/sh", "-c", "touch \"$0\"", ran])
                #expect(result.status == 64, "\(keep) \(range): \(result.error)")
                #expect(result.error.contains(message), "\(result.error)")
                #expect(!FileManager.default.fileExists(atPath: ran), "nothing ran")
            }
        }
        #expect(try String(contentsOfFile: runner.folderPath + "/full/something", encoding: .utf8) == "x")
    }

    @Test("--keep inside a covered folder is refused with 64 (the copy would be written into the real folder), through a link too")
    func keepInsideCoveredFolder() async throws {
        let runner = try await RunCommandTests.runner()
        let real = runner.folderPath + "/real"
        try FileManager.default.createDirectory(atPath: real + "/sub", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: runner.folderPath + "/link", withDestinationPath: real + "/sub")
        let command = ["--", "/bin/sh", "-c", "echo x > \"$0/written\"", real]
        for keep in [real + "/kept", real + "/sub/a/b", real, runner.folderPath + "/link/kept", real + "/../real/kept"] {
            for range in [["--available", "1MB"], ["--available", "0..8KiB", "--check", "false"]] {
                let result = try await runner.run(["run"] + range + ["--over", real, "--keep", keep] + command)
                #expect(result.status == 64, "\(keep) \(range): \(result.error)")
                #expect(result.error.contains("which the room covers: the copy would be written into the real folder"), "\(result.error)")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: real) == ["sub"], "the real folder as it was")
        #expect(try FileManager.default.contentsOfDirectory(atPath: real + "/sub").isEmpty)
        let beside = try await runner.run(["run", "--available", "1MB", "--over", real, "--keep", runner.folderPath + "/realm"] + command)
        #expect(beside.status == 0, "a folder whose name begins with the covered folder's is outside it: \(beside.error)")
    }

    @Test("a range's --keep summary is a single room's: the bytes on disk (a sparse terabyte is one block of data), the real items removed, the FIFO not kept")
    func rangeSummaryAsSingleRoom() async throws {
        let runner = try await RunCommandTests.runner()
        let real = runner.folderPath + "/real"
        try Data("old".utf8).write(to: URL(filePath: real + "/old"))
        let script = #"cd "$0" && rm old && mkfifo pipe && truncate -s 1T sparse && printf x > small"#
        let single = try await runner.run("run", "--available", "1MB", "--over", real, "--keep", runner.folderPath + "/one", "--",
                                    "/bin/sh", "-c", script, real)
        #expect(single.status == 0, "\(single.error)")
        #expect(single.error == """
            stowage: kept 2 files (4.1 kB on disk) the command wrote in \(runner.folderPath)/one; it removed 1 real item: \(real)/old
            stowage: not kept: \(real)/pipe: a device, socket or FIFO, which is not copied

            """)
        let range = try await runner.run("run", "--available", "4KiB..8KiB", "--over", real, "--keep", runner.folderPath + "/range",
                                   "--check", "false", "--", "/bin/sh", "-c", script, real)
        #expect(range.status == 1, "\(range.error)")
        #expect(range.error == """
            stowage: kept 2 files (4.1 kB on disk) of the room of 4096 bytes in \(runner.folderPath)/range; it removed 1 real item: \(real)/old
            stowage: not kept: \(real)/pipe: a device, socket or FIFO, which is not copied

            """)
        #expect(try FileManager.default.contentsOfDirectory(atPath: real) == ["old"])
    }

    @Test("as an ordinary user, unreadable items are listed with the reason, the readable ones kept, and the run exits 125")
    func unreadableItems() async throws {
        let runner = try await RunCommandTests.runner()
        guard getuid() == 0 else {
            print("SKIPPED: needs root (to become another user)")
            try Test.cancel("needs root")
        }
        let setpriv = try requireToolURL("setpriv")
        let binary = try CommandRunner.binary().path(percentEncoded: false)
        let real = runner.folderPath + "/real"
        let keep = runner.folderPath + "/kept"
        chmod(runner.folderPath, 0o777)
        chown(real, 65534, 65534)
        let result = try await runProcess(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", binary, "run", "--available", "5MB",
                                              "--over", real, "--keep", keep, "--", "/bin/sh", "-c",
                                              #"cd "$0" && echo a > readable && echo b > secret && chmod 000 secret && mkdir locked "#
                                                + #"&& echo c > locked/inside && chmod 000 locked && mkdir open && echo d > open/file"#, real],
                                    environment: runner.environment)
        if result.status == 126 || (result.status == 125 && !result.error.contains("not kept")) {
            let reason = "an ordinary user cannot make a room here: \(result.error.trimmingCharacters(in: .whitespacesAndNewlines))"
            print("SKIPPED: \(reason)")
            try Test.cancel(Comment(rawValue: reason))
        }
        #expect(result.status == 125, "\(result.error)")
        #expect(result.error.contains("not kept: \(real)/secret: openat failed: permission denied"), "\(result.error)")
        #expect(result.error.contains("not kept: \(real)/locked: openat failed: permission denied"), "\(result.error)")
        #expect(result.error.contains("2 of the command's writes could not be copied"), "\(result.error)")
        #expect(try String(contentsOfFile: keep + real + "/readable", encoding: .utf8) == "a\n")
        #expect(try String(contentsOfFile: keep + real + "/open/file", encoding: .utf8) == "d\n")
    }
}
