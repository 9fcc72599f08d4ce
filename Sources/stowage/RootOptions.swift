import ArgumentParser

/// The root command's options that name a choice of its own: which container (`--app`,
/// `--root`), which app groups (`--group`), and a JSON document (`--json`).
enum RootOption: Hashable {
    case container, groups, json
}

/// A subcommand, and the root command's options it does not take.
///
/// ArgumentParser hands the root command's options to every subcommand, given before its name or
/// after it: an option the subcommand does not take was parsed and then ignored without a word
/// (`usage --root X` measured the paths given, `run --json` printed text, `info --group` showed no
/// group). Each subcommand refuses those as a usage error (64) that names the option and says
/// what it is for instead; `--help` never lists them (the help's test checks both ways).
protocol StowageSubcommand: ParsableCommand {
    /// The root command, as parsed.
    var parent: StowageCommand { get }
    /// The root command's options this one does not take, each with what to do instead
    /// (by default `--group` alone, which only the overview and `locations` take).
    static var refusedRootOptions: [RootOption: String] { get }
}

extension StowageSubcommand {
    static var refusedRootOptions: [RootOption: String] { [.groups: groupsElsewhere] }

    /// What `--group` is for: the overview and `locations`, which show the shared containers.
    static var groupsElsewhere: String {
        "--group adds an app group's shared container to what `stowage` and `stowage locations` show."
    }

    /// Throws a usage error for the first root option given that this command does not take.
    func refuseRootOptionsNotTaken() throws {
        let container = parent.container
        let given: [(RootOption, String)] = [
            container.app != nil ? (.container, "--app") : nil, container.root != nil ? (.container, "--root") : nil,
            parent.groups.groups.isEmpty ? nil : (.groups, "--group"), parent.output.json ? (.json, "--json") : nil,
        ].compactMap { $0 }
        for (option, name) in given {
            if let instead = Self.refusedRootOptions[option] {
                throw ValidationError("\(Self.configuration.commandName ?? "this command") takes no \(name): \(instead)")
            }
        }
    }
}
