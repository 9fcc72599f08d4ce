import Foundation
import Testing

/// What `make install` puts beside the binary, made from the binary itself: completion scripts
/// for bash, zsh and fish, and the help with its exit statuses.
@Suite("stowage completions and help")
struct ShellIntegrationCommandTests {
    @Test("completion scripts for bash, zsh and fish name every subcommand", arguments: ["bash", "zsh", "fish"])
    func completions(shell: String) async throws {
        let runner = try CommandRunner()
        let result = try await runner.run("--generate-completion-script", shell)
        #expect(result.status == 0, "\(result.error)")
        for subcommand in ["locations", "info", "usage", "sweep", "relieve", "clear", "audit", "watch", "fill", "release", "run"] {
            #expect(result.output.contains(subcommand), "\(shell): \(subcommand) missing")
        }
        #expect(result.output.contains("json-lines"), "\(shell): fill's and watch's --json-lines")
    }

    /// The arguments whose values can be listed, and those values (`clear`'s location is the
    /// argument of that name; `shared:<group>` is not offered, a group's name being unknown).
    static let enumerated: [(argument: String, values: [String])] = [
        ("order", ["lru", "oldest", "largest"]),
        ("location", ["documents", "applicationSupport", "caches", "preferences", "temporary"]),
        ("method", ["allocate", "zeros", "random"]),
        ("fs", ["tmpfs", "ext4"]),
    ]

    @Test("completion scripts for bash, zsh and fish offer the values of every enumerated argument",
          arguments: ["bash", "zsh", "fish"])
    func enumeratedValues(shell: String) async throws {
        let runner = try CommandRunner()
        let script = try await runner.run("--generate-completion-script", shell).output
        for (argument, values) in Self.enumerated {
            // How each shell's script lists the words to offer (swift-argument-parser's generators).
            let list = switch shell {
            case "bash": "-W " + values.map { "'\($0)'" }.joined(separator: "$'\\n'")
            case "zsh": "(" + values.map { "'\($0)'" }.joined(separator: " ") + ")"
            default: "-rfka '" + values.joined(separator: " ") + "'"
            }
            let fishPositional = "-fka '" + values.joined(separator: " ") + "'"
            #expect(script.contains(list) || (shell == "fish" && script.contains(fishPositional)),
                    "\(shell): the values of \(argument) are not offered (\(list))")
        }
    }

    /// The words bash's completion offers for `words` (the last one being completed), driven as
    /// bash drives it: COMP_WORDS, COMP_CWORD, COMP_LINE and COMP_POINT, then the function
    /// `complete -F` names.
    static func bashCompletions(_ words: [String], script: String, in runner: CommandRunner) async throws -> [String] {
        let bash = try requireToolURL("bash")
        let file = runner.folderPath + "/stowage.bash"
        try script.write(toFile: file, atomically: true, encoding: .utf8)
        let driver = """
            source "$0"
            COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
            COMPREPLY=()
            _stowage stowage "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try await runProcess(bash, ["-c", driver, file] + words)
        #expect(result.status == 0, "\(result.error)")
        return result.output.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    @Test("bash completes the values of sweep --order, clear, fill --method, run --fs and usage --limit")
    func bashCompletesValues() async throws {
        let runner = try CommandRunner()
        let script = try await runner.run("--generate-completion-script", "bash").output
        await #expect(try Self.bashCompletions(["stowage", "sweep", "--order", ""], script: script, in: runner) == ["lru", "oldest", "largest"])
        await #expect(try Self.bashCompletions(["stowage", "sweep", "--order", "o"], script: script, in: runner) == ["oldest"])
        await #expect(try Self.bashCompletions(["stowage", "clear", ""], script: script, in: runner)
                == ["documents", "applicationSupport", "caches", "preferences", "temporary"])
        await #expect(try Self.bashCompletions(["stowage", "clear", "ca"], script: script, in: runner) == ["caches"])
        await #expect(try Self.bashCompletions(["stowage", "fill", "--method", ""], script: script, in: runner) == ["allocate", "zeros", "random"])
        await #expect(try Self.bashCompletions(["stowage", "run", "--fs", ""], script: script, in: runner) == ["tmpfs", "ext4"])
        await #expect(try Self.bashCompletions(["stowage", "usage", "--limit", ""], script: script, in: runner) == ["all"])
        // watch takes --json-lines, not --json: only the option it takes is offered.
        await #expect(try Self.bashCompletions(["stowage", "watch", "--js"], script: script, in: runner) == ["--json-lines"])
    }

    @Test("bash completes folders where a folder is asked for, and files too where a path is")
    func bashCompletesPaths() async throws {
        let runner = try CommandRunner()
        let script = try await runner.run("--generate-completion-script", "bash").output
        let pick = runner.folderPath + "/pick"
        try FileManager.default.createDirectory(atPath: pick + "/alpha", withIntermediateDirectories: true)
        try Data().write(to: URL(filePath: pick + "/afile"))
        for words in [["sweep"], ["--root"], ["clear", "--root"], ["run", "--over"], ["run", "--keep"], ["fill"], ["release"]] {
            await #expect(try Self.bashCompletions(["stowage"] + words + [pick + "/a"], script: script, in: runner) == [pick + "/alpha"],
                    "\(words)")
        }
        for words in [["usage"], ["info"]] {
            await #expect(try Self.bashCompletions(["stowage"] + words + [pick + "/a"], script: script, in: runner).sorted()
                    == [pick + "/afile", pick + "/alpha"], "\(words)")
        }
    }

    @Test("--version says the build is unreleased: no version is tagged yet")
    func version() async throws {
        let runner = try CommandRunner()
        let result = try await runner.run("--version")
        #expect(result.status == 0)
        #expect(result.output == "0.1.0-dev\n", "a pre-release version, not 0.1.0 as if released: \(result.output)")
    }

    @Test("--help lists the exit statuses of the README's table")
    func exitStatusesInHelp() async throws {
        let runner = try CommandRunner()
        let help = try await runner.run("--help").output
        for (status, meaning) in [(0, "done"), (1, "failed"), (3, "ran, but the goal was not met"), (64, "usage error")] {
            #expect(help.range(of: "\(status) +\(meaning)", options: .regularExpression) != nil,
                    "exit status \(status) missing from --help:\n\(help)")
        }
    }
}
