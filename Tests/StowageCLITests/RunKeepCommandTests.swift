import Foundation
import Testing

/// `run --keep` copies what it can of the command's writes and lists the rest with the reason
/// (issue 20, finding 13: it gave up at the first item it could not copy, naming the keep folder).
@Suite("stowage run --keep")
struct RunKeepCommandTests {
    @Test("a name that is not UTF-8 is kept exactly; a FIFO is listed as not copied; the run exits 0")
    func bytesAndSpecialItems() throws {
        let runner = try RunCommandTests.runner()
        let real = runner.folderPath + "/real"
        let keep = runner.folderPath + "/kept"
        let result = try runner.run("run", "--available", "5MB", "--over", real, "--keep", keep, "--", "/bin/sh", "-c",
                                    #"cd "$0" && printf x > "$(printf 'n\377')" && echo hi > ok && mkfifo pipe"#, real)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("kept 2 files"), "\(result.error)")
        #expect(result.error.contains("not kept: \(real)/pipe: a device, socket or FIFO"), "\(result.error)")
        #expect(RawFiles.exists(RawFiles.join(keep + real, Array("n".utf8) + [0xFF])), "the name kept byte for byte")
        #expect(try String(contentsOfFile: keep + real + "/ok", encoding: .utf8) == "hi\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: real).isEmpty, "the real folder untouched")
    }

    @Test("a sparse file is kept sparse: a terabyte with a byte of data costs a block, not a terabyte of zeros")
    func sparseFiles() throws {
        let runner = try RunCommandTests.runner()
        let real = runner.folderPath + "/real"
        let keep = runner.folderPath + "/kept"
        let result = try runner.run("run", "--available", "5MB", "--over", real, "--keep", keep, "--", "/bin/sh", "-c",
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

    @Test("as an ordinary user, unreadable items are listed with the reason, the readable ones kept, and the run exits 125")
    func unreadableItems() throws {
        let runner = try RunCommandTests.runner()
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
        let result = try runProcess(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", binary, "run", "--available", "5MB",
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
