import Foundation
import StowageTestSupport
import Testing

/// `clear` of a location that holds user data (backed up) asks first, or needs `--yes`.
@Suite("stowage clear asks before removing user data")
struct ClearConfirmationCommandTests {
    func makeDocuments(_ runner: CommandRunner) throws {
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/app/Documents", withIntermediateDirectories: true)
        try Data("thesis".utf8).write(to: URL(filePath: runner.folderPath + "/app/Documents/thesis.txt"))
    }

    /// Runs the command with standard input from /dev/null: nobody to ask.
    func runWithoutTerminal(_ runner: CommandRunner, _ arguments: String) async throws -> ProcessResult {
        let binary = try CommandRunner.binary().path(percentEncoded: false)
        return try await runProcess(URL(filePath: "/bin/sh"), ["-c", "exec \"$0\" \(arguments) < /dev/null", binary],
                              environment: runner.environment, directory: runner.folder)
    }

    @Test("without a terminal, clearing Documents is refused with 64 unless --yes; caches and a dry run need nothing")
    func refusedWithoutYes() async throws {
        let runner = try CommandRunner()
        try makeDocuments(runner)
        let refused = try await runWithoutTerminal(runner, "clear documents --root app")
        #expect(refused.status == 64, "a usage error: --yes is missing, and nothing was done")
        #expect(refused.error.contains("backed-up user data: 1 file,") && refused.error.contains("--yes"), "\(refused.error)")
        #expect(FileManager.default.fileExists(atPath: runner.folderPath + "/app/Documents/thesis.txt"))
        await #expect(try runWithoutTerminal(runner, "clear documents --root app --dry-run").status == 0)
        await #expect(try runWithoutTerminal(runner, "clear caches --root app").status == 0)
        let json = try await runWithoutTerminal(runner, "clear documents --root app --json")
        #expect(json.status == 64 && json.output.contains("\"refused\""), "\(json.output)")
        let yes = try await runWithoutTerminal(runner, "clear documents --root app --yes")
        #expect(yes.status == 0, "\(yes.error)")
        #expect(!FileManager.default.fileExists(atPath: runner.folderPath + "/app/Documents/thesis.txt"))
    }

    @Test("on a terminal it asks, and only 'y' or 'yes' clears", arguments: [("n\n", false), ("\n", false), ("y\n", true)])
    func asksOnATerminal(answer: String, clears: Bool) async throws {
        let script = try requireTool("script")  // util-linux: gives the command a terminal
        let runner = try CommandRunner()
        try makeDocuments(runner)
        let binary = try CommandRunner.binary().path(percentEncoded: false)
        // script gives the command a pseudo-terminal and passes it the answer typed on its input.
        // (script runs its command in a shell of its own: the binary's path goes in as text.)
        let command = "printf '\(answer.replacingOccurrences(of: "\n", with: "\\n"))' | \(script) -qec "
            + "\"'\(binary)' clear documents --root app\" /dev/null"
        let result = try await runProcess(URL(filePath: "/bin/sh"), ["-c", command],
                                    environment: runner.environment, directory: runner.folder)
        #expect(result.output.contains("Remove them?"), "\(result.output) \(result.error)")
        #expect(FileManager.default.fileExists(atPath: runner.folderPath + "/app/Documents/thesis.txt") == !clears,
                "\(result.output)")
        #expect((result.status == 0) == clears, "status \(result.status)")
    }
}
