import Foundation
import Testing

/// What `make install` puts beside the binary, made from the binary itself: completion scripts
/// for bash, zsh and fish, and the help with its exit statuses.
@Suite("stowage completions and help")
struct ShellIntegrationCommandTests {
    @Test("completion scripts for bash, zsh and fish name every subcommand", arguments: ["bash", "zsh", "fish"])
    func completions(shell: String) throws {
        let runner = try CommandRunner()
        let result = try runner.run("--generate-completion-script", shell)
        #expect(result.status == 0, "\(result.error)")
        for subcommand in ["locations", "info", "usage", "sweep", "relieve", "clear", "audit", "watch", "fill", "release", "run"] {
            #expect(result.output.contains(subcommand), "\(shell): \(subcommand) missing")
        }
        #expect(result.output.contains("json-lines"), "\(shell): fill's and watch's --json-lines")
    }

    @Test("--help lists the exit statuses of the README's table")
    func exitStatusesInHelp() throws {
        let runner = try CommandRunner()
        let help = try runner.run("--help").output
        for (status, meaning) in [(0, "done"), (1, "failed"), (3, "ran, but the goal was not met"), (64, "usage error")] {
            #expect(help.range(of: "\(status) +\(meaning)", options: .regularExpression) != nil,
                    "exit status \(status) missing from --help:\n\(help)")
        }
    }
}
