import ArgumentParser
import Foundation
import Stowage

struct SweepCommand: AsyncParsableCommand, StowageSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Keep a folder within size, count and age limits, least recently used first.",
        discussion: """
            Never follows links, never leaves the folder or enters another mount, never removes \
            pinned files or folders; removes only the folders it empties, and old leftovers of \
            interrupted writes. Once a size or count limit is exceeded the folder is swept down to \
            the low watermark. Refuses /, the home folder and the folders above it unless --force.
            """
    )

    @ParentCommand var parent: StowageCommand
    static let refusedRootOptions: [RootOption: String] = [
        .container: "it sweeps the folders it is given (to free an app's caches: `stowage clear caches` or `stowage relieve`, which take --app and --root).",
        .groups: groupsElsewhere,
    ]

    @Argument(help: "The folder to sweep.", completion: .directory, transform: PathArgument.init(parsing:))
    var path: PathArgument

    @Option(name: .customLong("max-size"), parsing: .unconditional, help: ArgumentHelp("Most allocated bytes, such as 100MB.", valueName: "size"), transform: SizeArgument.init(parsing:))
    var maxSize: SizeArgument?

    @Option(name: .customLong("max-count"), parsing: .unconditional, help: "Most files.")
    var maxCount: Int?

    @Option(name: .customLong("max-age"), parsing: .unconditional, help: ArgumentHelp("Oldest a file may be: 45s, 30m, 12h, 7d, 2w.", valueName: "age"))
    var maxAge: AgeArgument?

    @Option(help: "Which files go first: lru (least recently used), oldest (modified), largest.")
    var order: SweepOrder = .leastRecentlyUsed

    @Option(name: .customLong("low-watermark"), help: "Fraction of a size or count limit to sweep down to (0 < x <= 1).")
    var lowWatermark = 0.8

    @Flag(name: .customLong("dry-run"), help: "Report what would be removed; remove nothing.")
    var dryRun = false

    @Flag(help: "Sweep even /, the home folder or a folder holding it (refused otherwise).")
    var force = false

    @Flag(help: "List every file removed, not only the largest.")
    var list = false

    @OptionGroup var units: UnitOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        try refuseRootOptionsNotTaken()
        if let problem = policy.problem { throw ValidationError("--max-size, --max-count, --max-age, --low-watermark: \(problem).") }
    }

    /// The policy the options describe.
    var policy: SweepPolicy {
        SweepPolicy(maximumAllocatedBytes: maxSize?.bytes, maximumCount: maxCount, maximumFileAge: maxAge?.duration,
                    order: order, lowWatermark: lowWatermark)
    }

    mutating func run() async throws {
        let folder = path.url(directoryHint: .isDirectory)
        let style = units.style
        let dryRun = dryRun
        let force = force
        let list = list
        let progress = ProgressLine(style: style)
        try await output.run {
            let report = try await progress.during {
                try await Sweeper(policy: policy).sweep(folder, dryRun: dryRun, allowingSystemFolders: force,
                                                        progressInterval: ProgressLine.interval) { figures in
                    progress.show(ProgressStatus(figures, subject: DisplayPath.of(folder)))
                }
            }
            for issue in report.issues { Terminal.standardError.problem(issue) }
            // As du: the figures first, then status 1 when anything could not be read.
            return Rendered(json: report, exitStatus: report.issues.isEmpty ? ExitStatus.success : ExitStatus.failure) {
                SweepView.render(report, style: style, listAll: list)
            }
        }
    }
}

enum SweepView {
    /// How many removals a summary lists: the largest.
    static let summaryRows = 10

    /// The report for people: totals, then the largest removals (all of them with `listAll`).
    static func render(_ report: SweepReport, style: ByteCountStyle, indent: String = "", listAll: Bool = false) -> String {
        var lines: [String] = []
        let verb = report.isDryRun ? "Would remove" : "Removed"
        lines.append("\(indent)\(verb) \(Noun.file.counted(report.removed.count)), \(ByteCount(report.freedAllocatedBytes).formatted(style)) "
            + "from \(DisplayPath.escaped(report.folder)); kept \(Noun.file.counted(report.keptFileCount)), "
            + ByteCount(report.keptAllocatedBytes).formatted(style)
            + (report.pinnedItemCount > 0 ? "; \(report.pinnedItemCount) pinned" : ""))
        if !report.removed.isEmpty {
            var table = TextTable(header: ["SIZE", "REASON", "LAST USED", "PATH"])
            let formatter = ISO8601DateFormatter()
            let shown = listAll ? report.removed
                : Array(report.removed.sorted { ($0.allocatedBytes, $1.path) > ($1.allocatedBytes, $0.path) }.prefix(summaryRows))
            for file in shown {
                table.rows.append([ByteCount(file.allocatedBytes).formatted(style), file.reason.name,
                                   formatter.string(from: file.lastAccessDate), DisplayPath.escaped(bytes: file.pathBytes)])
            }
            lines.append(table.render().split(separator: "\n").map { indent + "  " + $0 }.joined(separator: "\n"))
            if shown.count < report.removed.count {
                lines.append("\(indent)  ... the largest \(shown.count); \(report.removed.count - shown.count) more (--list shows all)")
            }
        }
        if !report.removedFolders.isEmpty {
            lines.append("\(indent)\(report.isDryRun ? "Would remove" : "Removed") \(Noun("emptied folder").counted(report.removedFolders.count))")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

struct RelieveCommand: AsyncParsableCommand, StowageSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "relieve",
        abstract: "Free space until the volume has the given bytes available.",
        discussion: """
            In purge order: tmp (oldest first), then Caches (least recently used first), then \
            files marked purgeable elsewhere; stops as soon as the target is met. Documents and \
            other data are never touched otherwise; pinned files never.
            """
    )

    @ParentCommand var parent: StowageCommand

    func validate() throws { try refuseRootOptionsNotTaken() }

    @Option(parsing: .unconditional, help: ArgumentHelp("The available space wanted, such as 2GB.", valueName: "size"), transform: SizeArgument.init(parsing:))
    var available: SizeArgument

    @Flag(name: .customLong("dry-run"), help: "Report what would be removed; remove nothing.")
    var dryRun = false

    @Flag(help: "List every file removed, not only the largest of each location.")
    var list = false

    @OptionGroup var container: ContainerOptions
    @OptionGroup var units: UnitOptions
    @OptionGroup var output: OutputOptions

    mutating func run() async throws {
        let style = units.style
        let target = available.bytes
        let dryRun = dryRun
        let list = list
        let container = container
        let progress = ProgressLine(style: style)
        try await output.run {
            let resolved = try container.resolve()
            let report = try await progress.during {
                try await resolved.relieve(toAvailableBytes: target, dryRun: dryRun, progressInterval: ProgressLine.interval) {
                    progress.show(ProgressStatus($0))
                }
            }
            let issues = report.steps.flatMap(\.report.issues)
            for issue in issues { Terminal.standardError.problem(issue) }
            // Something could not be read (1) says more than "not enough freed" (3), which it may explain.
            let status = !issues.isEmpty ? ExitStatus.failure : report.isSatisfied ? ExitStatus.success : ExitStatus.goalNotMet
            return Rendered(json: report, exitStatus: status) {
                ReliefView.render(report, style: style, listAll: list)
            }
        }
    }
}

enum ReliefView {
    static func render(_ report: ReliefReport, style: ByteCountStyle, listAll: Bool = false) -> String {
        func size(_ bytes: Int64) -> String { ByteCount(bytes).formatted(style) }
        var text = "Available: \(size(report.availableBytesBefore))\(report.isSimulated ? " (simulated)" : ""); "
            + "wanted: \(size(report.targetAvailableBytes)).\n"
        if report.neededBytes == 0 { return text + "Nothing to do.\n" }
        text += "Needed \(size(report.neededBytes)); \(report.isDryRun ? "would free" : "freed") \(size(report.freedAllocatedBytes))"
            + (report.isSatisfied ? ".\n" : ": NOT ENOUGH could be freed.\n")
        for step in report.steps where !step.report.removed.isEmpty {
            text += "\(DisplayPath.escaped(step.location.identifier)):\n" + SweepView.render(step.report, style: style, indent: "  ", listAll: listAll)
        }
        return text
    }
}

struct ClearCommand: AsyncParsableCommand, StowageSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "clear",
        abstract: "Remove everything in one location of the container (the settings screen's \"Clear cache\").",
        discussion: """
            Only the location's own folder is emptied; in the default container on Linux that is \
            always a folder of the app's own. A location folder that is a link is refused; mount \
            points inside are left alone; pinned files and folders, and writes in progress, are kept. \
            Clearing a backed-up location (documents, applicationSupport, preferences, shared:<group>), \
            which holds user data, asks first on a terminal and needs --yes otherwise.
            """
    )

    @ParentCommand var parent: StowageCommand

    func validate() throws { try refuseRootOptionsNotTaken() }

    @Argument(help: ArgumentHelp("The location: documents, applicationSupport, caches, preferences, temporary, shared:<group>."))
    var location: Location

    @Flag(name: .customLong("dry-run"), help: "Report what would be removed; remove nothing.")
    var dryRun = false

    @Flag(help: "Clear a backed-up location without asking (needed when no terminal can be asked).")
    var yes = false

    @OptionGroup var container: ContainerOptions
    @OptionGroup var units: UnitOptions
    @OptionGroup var output: OutputOptions

    mutating func run() async throws {
        let location = location
        let style = units.style
        let dryRun = dryRun
        let confirmed = yes || dryRun || !location.policy.isBackedUp
        let json = output.json
        let container = container
        let progress = ProgressLine(style: style)
        try await output.run {
            let store = Store(container: try container.resolve())
            if !confirmed { try await Self.confirm(clearing: location, in: store, style: style, canAsk: !json, progress: progress) }
            let report = try await progress.during {
                try await store.clear(location, dryRun: dryRun, progressInterval: ProgressLine.interval) {
                    progress.show(ProgressStatus($0))
                }
            }
            for issue in report.issues { Terminal.standardError.problem(issue) }
            return Rendered(json: report, exitStatus: report.issues.isEmpty ? ExitStatus.success : ExitStatus.failure) {
                "\(dryRun ? "Would clear" : "Cleared") \(location.displayName) (\(DisplayPath.escaped(report.folder))): "
                    + "\(Noun.file.counted(report.removed.count)), \(ByteCount(report.freedAllocatedBytes).formatted(style)) \(dryRun ? "to free" : "freed")"
                    + (report.pinnedItemCount > 0 ? "; \(report.pinnedItemCount) pinned kept" : "") + ".\n"
            }
        }
    }

    /// Asks before user data is removed: on a terminal, a yes/no question showing what would go;
    /// elsewhere (a script, `--json`) a refusal naming `--yes`, status 64. Nothing to remove asks nothing.
    static func confirm(clearing location: Location, in store: Store, style: ByteCountStyle, canAsk: Bool,
                        progress: ProgressLine) async throws {
        let preview = try await progress.during {
            try await store.clear(location, dryRun: true, progressInterval: ProgressLine.interval) {
                progress.show(ProgressStatus($0))
            }
        }
        guard !preview.removed.isEmpty else { return }
        let what = "\(location.displayName) (\(DisplayPath.escaped(preview.folder))) holds backed-up user data: "
            + "\(Noun.file.counted(preview.removed.count)), \(ByteCount(preview.freedAllocatedBytes).formatted(style))"
        guard canAsk, Terminal.standardInputIsTerminal else {
            throw UsageRefusal(error: StowageError(.refused, operation: .clear, location: location,
                                                   reason: "\(what); pass --yes to clear it (or --dry-run to list what would go)"))
        }
        Terminal.standardError.write("\(what). Remove them? This cannot be undone. [y/N] ")
        let answer = (readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        guard answer == "y" || answer == "yes" else {
            throw StowageError(.refused, operation: .clear, location: location, reason: "not confirmed; nothing was removed")
        }
    }
}
