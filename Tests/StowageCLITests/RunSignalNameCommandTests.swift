import Foundation
import Testing

/// A room's command ended by a signal is named as the schema promises (`SIGSEGV`), in the table
/// and in JSON, whatever the signal (issue 30, item 16: it was `signal 11`).
@Suite("stowage run names the signal that ended a command")
struct RunSignalNameCommandTests {
    @Test("a range's table and JSON lines name SIGSEGV, SIGABRT, SIGPIPE, SIGALRM, SIGBUS", arguments: [
        ("SEGV", "SIGSEGV"), ("ABRT", "SIGABRT"), ("PIPE", "SIGPIPE"), ("ALRM", "SIGALRM"), ("BUS", "SIGBUS"),
    ])
    func range(signal: String, name: String) async throws {
        let runner = try await RunCommandTests.runner()
        let command = ["--", "/bin/sh", "-c", "kill -\(signal) $$"]
        let table = try await runner.run(["run", "--available", "0..4KB", "--over", runner.folderPath + "/real"] + command)
        #expect(table.status == 3, "\(table.error)")
        #expect(table.output.contains("     0  \(name)"), "\(table.output)")
        let lines = try await runner.run(["run", "--available", "0..4KB", "--json-lines", "--over", runner.folderPath + "/real"] + command)
        #expect(lines.output.contains("\"signal\":\"\(name)\""), "\(lines.output)")
    }
}
