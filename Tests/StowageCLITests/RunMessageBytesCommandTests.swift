import Foundation
import Testing

/// `run`'s messages show a command's bytes that are not UTF-8 as `\xff`, as every other command
/// shows such names, never as U+FFFD, which names another file (issue 30, item 16).
@Suite("stowage run's messages escape bytes that are not UTF-8")
struct RunMessageBytesCommandTests {
    @Test("a program that is not there, or cannot be run, is named by its bytes: one room and a range")
    func programNotUTF8() async throws {
        let runner = try await RunCommandTests.runner()
        let real = Array((runner.folderPath + "/real").utf8)
        let missing = Array("/nonexistent-stowage-".utf8) + [0xFF]
        let notRunnable = Array((runner.folderPath + "/plain-").utf8) + [0xFE]
        try RawFiles.makeFile(notRunnable, size: 10)  // mode 0644: execve says EACCES
        let cases: [([[UInt8]], [UInt8], Int32)] = [
            ([Array("4KB".utf8)], missing, 127), ([Array("0..4KB".utf8)], missing, 127), ([Array("4KB".utf8)], notRunnable, 126),
        ]
        for (available, program, status) in cases {
            let result = try await runner.run(bytes: [Array("run".utf8), Array("--available".utf8)] + available
                                        + [Array("--over".utf8), real, Array("--".utf8), program])
            #expect(result.status == status, "\(result.error)")
            let escaped = DisplayBytes.escaped(program)
            #expect(result.error.contains(escaped), "\(result.error)")
            #expect(!result.error.contains("\u{FFFD}"), "\(result.error)")
        }
    }
}

/// Bytes as stowage's text output shows them: a byte that is not UTF-8 as `\xff`.
enum DisplayBytes {
    static func escaped(_ bytes: [UInt8]) -> String {
        bytes.map { $0 < 0x80 ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16) }.joined()
    }
}
