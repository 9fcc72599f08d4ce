import Foundation
import Testing

/// A room for an ordinary user over a folder that is not theirs (issue 20, finding 14): the
/// folder shows as the user's own in the user namespace, but the user may do there only what
/// they may do outside.
@Suite("stowage run for an ordinary user over another user's folder")
struct RunOwnershipCommandTests {
    @Test("creating a file in a root-owned 755 folder fails in the room as it does outside")
    func cannotWriteWhereOutsideCannot() async throws {
        let runner = try await RunCommandTests.runner()
        guard getuid() == 0 else {
            print("SKIPPED: needs root (to become another user)")
            try Test.cancel("needs root")
        }
        let setpriv = try requireToolURL("setpriv")
        let binary = try CommandRunner.binary().path(percentEncoded: false)
        let real = runner.folderPath + "/real"
        chmod(runner.folderPath, 0o755)
        chmod(real, 0o755)  // root's, as /usr/share/doc is
        let result = try await runProcess(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", binary, "run", "--available", "1MB",
                                              "--over", real, "--", "/bin/sh", "-c",
                                              #"stat -c %a "$0"; touch "$0/new" && echo created || echo refused"#, real],
                                    environment: runner.environment)
        // Skipped only where the kernel refuses an ordinary user a room; any other 125 fails.
        if result.status == 125, result.error.contains("may not make a user namespace") || result.error.contains("no user namespaces") {
            let reason = "an ordinary user cannot make a room here: \(result.error.trimmingCharacters(in: .whitespacesAndNewlines))"
            print("SKIPPED: \(reason)")
            try Test.cancel(Comment(rawValue: reason))
        }
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == "555\nrefused\n", "the owner's bits say what the user may really do: \(result.output) \(result.error)")
        #expect(!FileManager.default.fileExists(atPath: real + "/new"))
    }
}
