import ArgumentParser
import Foundation
import Testing
@testable import stowage

/// Each command's `--help` lists only what the command takes: every option it lists is
/// accepted. Acceptance is asked of the parser in this process (`parseAsRoot`, which validates
/// as the command does before it runs), so that no command runs.
@Suite("stowage --help")
struct HelpCommandTests {
    /// The subcommands, and the arguments each needs to parse at all: an option is accepted when
    /// it parses with one of them (`fill --status` refuses a goal, `fill --method` needs one).
    /// The last list goes after the option (`run`'s command, after `--`).
    static let commands: [(name: String, bases: [[String]], trailing: [String])] = [
        ("", [[]], []),
        ("locations", [[]], []),
        ("info", [[]], []),
        ("usage", [[]], []),
        ("sweep", [["/tmp/stowage-help-test"]], []),
        ("relieve", [["--available", "1MB"]], []),
        ("clear", [["caches"]], []),
        ("audit", [[]], []),
        ("watch", [["--available", "1MB"]], []),
        ("fill", [[], ["--consume", "1MB"]], []),
        ("release", [[]], []),
        // One room, a room that drops, and a range of rooms (some options go only with a range,
        // --keep over a range only with a check).
        ("run", [["--available", "1MB"], ["--available", "1MB", "--after", "1s"], ["--available", "1MB", "--drop-to", "0"],
                 ["--available", "0..1MB"], ["--available", "0..1MB", "--check", "true"]],
         ["--", "true"]),
    ]

    /// A value an option takes, by its name in the help (`<size>`) or the option's own name.
    static func sample(option: String, valueName: String) -> String {
        switch (option, valueName) {
        case ("--order", _): "oldest"
        case ("--method", _): "zeros"
        case ("--fs", _): "tmpfs"
        case ("--low-watermark", _): "0.5"
        case ("--leave", _), (_, "size"): "1MB"
        case (_, "age"), (_, "interval"), (_, "duration"): "1s"
        case (_, "dir"), (_, "path"): "/tmp/stowage-help-test"
        case (_, "n|all"): "all"
        case (_, "glob"): "*.tmp"
        default: "2"  // counts: --max-count, --top, --depth, --threads, --inodes; ids and groups
        }
    }

    /// The options a help text lists, each with the name of its value (nil for a flag).
    static func listedOptions(in help: String) -> [(option: String, valueName: String?)] {
        guard let section = help.components(separatedBy: "OPTIONS:\n").dropFirst().first else { return [] }
        var options: [(String, String?)] = []
        for line in section.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty || !line.hasPrefix(" ") { break }  // the end of the section
            // "  --max-size <size>  Most ...", "  -h, --help  Show ...", "  --si  Decimal ...";
            // a description that goes on is indented further.
            guard line.hasPrefix("  -") else { continue }
            let words = line.split(separator: " ")
            let names = words.prefix { $0.hasPrefix("-") }.map { $0.trimmingCharacters(in: [","]) }
            let long = names.first { $0.hasPrefix("--") } ?? names[0]
            let value = words.dropFirst(names.count).first.flatMap { $0.hasPrefix("<") ? String($0.dropFirst().dropLast()) : nil }
            options.append((long, value))
        }
        return options
    }

    @Test("watch --help leaves out --json, which watch refuses, and lists --json-lines")
    func watchHelp() async throws {
        let runner = try CommandRunner()
        let help = try await runner.run("watch", "--help")
        #expect(help.status == 0)
        let options = Self.listedOptions(in: help.output).map(\.option)
        #expect(options.contains("--json-lines"))
        #expect(!options.contains("--json"), "\(help.output)")
        #expect(help.output.range(of: #"--json(?!-)"#, options: .regularExpression) == nil, "\(help.output)")
        // Refused all the same, with the reason, when it is given.
        let refused = try await runner.run("watch", "--available", "1GB", "--json")
        #expect(refused.status == 64 && refused.error.contains("use --json-lines"), "\(refused.error)")
    }

    @Test("every option each command's --help lists is accepted by the parser", arguments: Self.commands.map(\.name))
    func everyListedOptionIsAccepted(command commandName: String) async throws {
        let runner = try CommandRunner()
        // One command a case, so that the cases (each hundreds of parses) run side by side.
        for (name, bases, trailing) in Self.commands where name == commandName {
            let command = name.isEmpty ? [] : [name]
            let help = try await runner.run(command + ["--help"])
            #expect(help.status == 0, "\(name): \(help.error)")
            let options = Self.listedOptions(in: help.output)
            #expect(options.count >= 3, "\(name): the options could not be read from --help:\n\(help.output)")
            for (option, valueName) in options {
                let given = [option] + (valueName.map { [Self.sample(option: option, valueName: $0)] } ?? [])
                var refusals: [String] = []
                for base in bases {
                    let arguments = command + base + given + trailing
                    do {
                        _ = try StowageCommand.parseAsRoot(arguments)
                        refusals = []
                        break
                    } catch {
                        // --help and --version end the parse early, with success.
                        if StowageCommand.exitCode(for: error) == .success {
                            refusals = []
                            break
                        }
                        refusals.append("\(arguments.joined(separator: " ")): \(StowageCommand.message(for: error))")
                    }
                }
                let commandName = name.isEmpty ? "stowage" : name
                #expect(refusals.isEmpty, "\(commandName) --help lists \(option), which it refuses:\n\(refusals.joined(separator: "\n"))")
            }
        }
    }

    /// The root command's options, each with a value to give it.
    static let rootOptions: [(option: String, value: String?)] = [
        ("--app", "x"), ("--root", "/tmp/stowage-help-test"), ("--group", "g"), ("--si", nil), ("--iec", nil), ("--json", nil),
    ]

    @Test("a root option a command's --help does not list is refused (64), before the command's name or after it, naming it")
    func rootOptionsNotListedAreRefused() async throws {
        let runner = try CommandRunner()
        var refusedCount = 0
        for (name, bases, trailing) in Self.commands where !name.isEmpty {
            let listed = await Set(Self.listedOptions(in: try runner.run(name, "--help").output).map(\.option))
            for (option, value) in Self.rootOptions where !listed.contains(option) {
                let given = [option] + (value.map { [$0] } ?? [])
                for arguments in [given + [name] + bases[0] + trailing, [name] + bases[0] + given + trailing] {
                    do {
                        _ = try StowageCommand.parseAsRoot(arguments)
                        Issue.record("\(arguments.joined(separator: " ")) was accepted, though \(name) --help does not list \(option)")
                    } catch {
                        let message = StowageCommand.message(for: error)
                        #expect(StowageCommand.exitCode(for: error).rawValue == 64, "\(arguments): \(message)")
                        #expect(message.contains("takes no \(option):"), "\(arguments.joined(separator: " ")): \(message)")
                        refusedCount += 1
                    }
                }
            }
        }
        // usage and sweep take no --app or --root; of the ten others, only locations takes --group;
        // run and watch take no --json.
        #expect(refusedCount == 2 * (2 * 2 + 10 + 2), "\(refusedCount) refusals")
    }

    @Test("--app and --root beside a path (or info --all, run --over) are refused: one of them would be ignored",
          arguments: [["info", "/tmp"], ["info", "--all"], ["fill", "/tmp", "--leave", "1MB"], ["release", "/tmp"],
                      ["run", "--available", "1MB", "--over", "/tmp", "--", "true"]])
    func containerBesideAPath(arguments: [String]) throws {
        for container in [["--app", "x"], ["--root", "/tmp/stowage-help-test"]] {
            let given = Array(arguments.prefix { $0 != "--" }) + container + Array(arguments.drop { $0 != "--" })
            #expect(throws: (any Error).self, "\(given)") { _ = try StowageCommand.parseAsRoot(given) }
            do {
                _ = try StowageCommand.parseAsRoot(given)
            } catch {
                #expect(StowageCommand.exitCode(for: error).rawValue == 64)
                #expect(StowageCommand.message(for: error).contains("or --app/--root for"), "\(StowageCommand.message(for: error))")
            }
        }
        #expect(throws: Never.self) { _ = try StowageCommand.parseAsRoot(arguments) }
    }

    @Test("watch prints sizes in the units asked for (run: its --find-minimum test)")
    func unitsOfWatch() async throws {
        let runner = try CommandRunner()
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/app", withIntermediateDirectories: true)
        let watch = try runner.start(["watch", "--available", "1MiB", "--interval", "1h", "--iec", "--root", runner.folderPath + "/app"])
        let first = try await watch.read(until: "\n", within: .seconds(120))
        watch.signal(SIGTERM)
        _ = try await watch.finish(within: .seconds(60))
        #expect(first.hasSuffix(": keeping 1 MiB available\n"), "\(first)")
    }
}

