import ArgumentParser
import Foundation
import Stowage

/// The `stowage` command: every Stowage capability from a terminal.
@main
struct StowageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stowage",
        abstract: "Manage an app's on-device storage the way Apple's storage guidelines describe.",
        discussion: """
            With no subcommand, prints an overview of the app's container: the capacity of its \
            volume, and where each location lives, its policy, and whether it exists yet.

            Environment:
              STOWAGE_APP                  the app id if no --app is given (stowage)
              STOWAGE_SIMULATED_AVAILABLE  report this much available, such as 500MB,
              STOWAGE_SIMULATED_TOTAL      and this total: low space, no disk filled
              HOME, XDG_*_HOME, TMPDIR     where the default container lives (Linux)
              STOWAGE_PROGRESS_DELAY       seconds before progress is shown (0.5)
              COLUMNS, LINES               the terminal's size if it does not tell it

            Exit status:
              0   done
              1   failed, or a path could not be read (figures printed first, as du)
              3   ran, but the goal was not met (relieve short, fill stopped or full)
              64  usage error: nothing was done
              run exits with its command's status; 125 when stowage failed,
              126 when the command cannot be run, 127 when it is not found.
              Over a range of rooms: 0 every check passed, 1 a check failed,
              3 the command never succeeded, 130 interrupted
            """,
        // No version is released (tagged) yet: a build is the development of the first one.
        version: "0.1.0-dev",
        subcommands: [LocationsCommand.self, InfoCommand.self, UsageCommand.self, SweepCommand.self, RelieveCommand.self,
                      ClearCommand.self, AuditCommand.self, WatchCommand.self, FillCommand.self, ReleaseCommand.self,
                      RunCommand.self]
    )

    @OptionGroup var container: ContainerOptions
    @OptionGroup var groups: GroupOptions
    @OptionGroup var units: UnitOptions
    @OptionGroup var output: OutputOptions

    /// ArgumentParser's main, plus one thing: with `--json`, a usage error is also printed as
    /// `{"error": {...}}` on standard output, as every other failure is (with `--json-lines`, as
    /// an `error` event); the status is 64 all the same.
    static func main() async {
        // Before anything opens a file: a closed standard stream's number must not be reused.
        TerminalDevice.openNullDeviceOnClosedStandardStreams()
        do {
            var command = try parseAsRoot()
            // Before anything runs: an argument that is not UTF-8 was repaired into another one.
            try RawCommandLine.requireUTF8(exceptLast: (command as? RunCommand)?.command.count ?? 0)
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            let arguments = CommandLine.arguments.dropFirst().prefix { $0 != "--" }
            // A StowageError refused with 64 was printed as JSON already (ExitCode carries only its status).
            if !(error is ExitCode), exitCode(for: error).rawValue == ExitStatus.usage,
               arguments.contains("--json") || arguments.contains("--json-lines") {
                let body = ErrorJSON(error: .init(code: "usage", operation: "parse arguments", location: nil, path: nil,
                                                  errno: nil, message: message(for: error)))
                // Best effort: the usage message goes to standard error below in any case.
                if arguments.contains("--json-lines") {
                    if let text = try? JSONOutput.line(EventLine(event: .error, date: Date(), payload: body)) { print(text) }
                } else if let text = try? JSONOutput.encode(body) {
                    print(text)
                }
            }
            exit(withError: error)
        }
    }

    @MainActor
    mutating func run() async throws {
        let container = self.container
        let groups = self.groups.groups
        let style = units.style
        try await output.run {
            guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { throw overviewUnavailable() }
            let overview = try await StorageOverview.refreshed(container.resolve(), groups: groups, style: style)
            let locations = LocationsJSON(overview)
            // Set by a refresh that ran to its end, as the command's always does (nothing cancels it).
            let measured = overview.capacity
            let capacity = if let measured { measured } else { try await overview.container.capacity(of: .documents) }
            let json = OverviewJSON(container: locations.container, capacity: capacity, locations: locations.locations)
            return Rendered(json: json) {
                CapacityView(capacity: capacity, style: style).render() + "\n" + LocationsView(locations: locations, style: style).render()
            }
        }
    }
}

/// The app groups whose shared containers `locations` and the overview also show.
struct GroupOptions: ParsableArguments {
    @Option(name: .customLong("group"), help: ArgumentHelp(
        "Also show the shared container of this app group (repeatable).",
        valueName: "group"))
    var groups: [String] = []
}

/// Which container a command works on.
struct ContainerOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The app identifier of the default container (XDG folders on Linux).",
        valueName: "id"))
    var app: String?

    @Option(name: .long, help: ArgumentHelp(
        "Use the iOS layout under this folder instead of the default container.",
        valueName: "dir"), completion: .directory, transform: PathArgument.init(parsing:))
    var root: PathArgument?

    func validate() throws {
        if app != nil && root != nil {
            throw ValidationError("Give --app or --root, not both.")
        }
    }

    /// Refuses `--app` and `--root` beside `other` (`"a path"`, `"--over"`), which names what
    /// the command works on instead: one of them would be ignored.
    func refuse(beside other: String?, standingFor purpose: String = "the container's Documents") throws {
        guard let other, app != nil || root != nil else { return }
        throw ValidationError("Give \(other), or --app/--root for \(purpose), not both.")
    }

    /// The app identifier used when `--app` is not given: `$STOWAGE_APP`, else `stowage`.
    static func defaultAppIdentifier() throws -> String {
        try ProcessEnvironment.value(of: "STOWAGE_APP").flatMap { $0.isEmpty ? nil : $0 } ?? "stowage"
    }

    /// The container. An unusable app identifier or environment (`--app ""`, `HOME` not UTF-8)
    /// throws `invalidArgument`, which every command reports with status 64
    /// (``ExitStatus/status(for:)``), its code kept in the JSON error.
    func resolve() throws -> Container {
        if let root { return Container(root: root.url(directoryHint: .isDirectory)) }
        return try Container.default(appIdentifier: app ?? Self.defaultAppIdentifier())
    }
}

struct LocationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locations",
        abstract: "Print every location's folder, size and policy."
    )

    @OptionGroup var container: ContainerOptions
    @OptionGroup var groups: GroupOptions

    @Flag(help: ArgumentHelp(
        "Browse the locations full-screen: their sizes and purge policy, their files; d clears a location as `stowage clear` does.",
        discussion: "Needs a terminal on standard input and output; scripts use --json."))
    var interactive = false

    @OptionGroup var units: UnitOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if interactive && output.json { throw ValidationError("--interactive and --json: choose one (--json is for scripts).") }
    }

    @MainActor
    mutating func run() async throws {
        let container = self.container
        let groups = self.groups.groups
        let style = units.style
        if interactive {
            let source: BrowserSource
            do {
                source = try BrowserSource.locations(of: container.resolve(), groups: groups)
            } catch let error as StowageError {
                output.report(error)
                throw ExitCode(ExitStatus.status(for: error))
            }
            try await Browser.runCommand(source, units: style, operation: .locate, output: output)
            return
        }
        try await output.run {
            guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { throw overviewUnavailable() }
            let locations = LocationsJSON(try await StorageOverview.refreshed(container.resolve(), groups: groups, style: style))
            return Rendered(json: locations) { LocationsView(locations: locations, style: style).render() }
        }
    }
}
