import ArgumentParser
import Foundation
import Stowage

struct UsageCommand: AsyncParsableCommand, StowageSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "usage",
        abstract: "Show where the space went: sizes, a breakdown and the largest files.",
        discussion: """
            Sizes are exact: allocated bytes (st_blocks * 512, as du -B1) and logical bytes \
            (st_size, as du -b); hard links count once and links are not followed. Unreadable \
            folders are reported on standard error and skipped.

            The breakdown is a tree: each folder's items right under it, largest first (or, with \
            --flat, one list by size). It shows the largest rows that fit the terminal (--limit \
            to choose), each with a bar and its share of the root; --json nests them in \
            `children` and keeps them all unless --limit or --min-size is given.
            """
    )

    @ParentCommand var parent: StowageCommand
    static let refusedRootOptions: [RootOption: String] = [
        .container: "it measures the paths it is given (`stowage locations --app ID` measures an app's locations).",
        .groups: groupsElsewhere,
    ]

    @Argument(help: "Files or folders to measure (default: the working folder, as du does).",
              completion: .file(), transform: PathArgument.init(parsing:))
    var paths: [PathArgument] = []

    @Option(parsing: .unconditional, help: "How many of the largest files to list.")
    var top = 10

    @Option(parsing: .unconditional, help: "How many levels below each path the breakdown lists.")
    var depth = 1

    @Flag(help: "Rank and show logical sizes (st_size) instead of allocated sizes.")
    var apparent = false

    @Flag(name: .customLong("one-file-system"), help: "Do not descend into other file systems (du -x).")
    var oneFileSystem = false

    @Flag(help: "Follow symbolic links (du -L).")
    var follow = false

    @Flag(name: .customLong("no-hidden"), help: "Leave out entries whose names start with a dot.")
    var noHidden = false

    @Option(help: ArgumentHelp("Leave out entries matching this shell pattern (repeatable).", valueName: "glob"))
    var exclude: [String] = []

    @Flag(help: "Print only the totals, as du -s does.")
    var summarize = false

    @Flag(help: "List the breakdown flat, largest first, instead of as a tree.")
    var flat = false

    @Option(help: ArgumentHelp(
        "Rows of the breakdown, the largest: a number, or all (default: what fits the terminal; 50 when output is not a terminal; all with --json).",
        valueName: "n|all"))
    var limit: RowLimit?

    @Option(name: .customLong("min-size"), parsing: .unconditional,
            help: ArgumentHelp("Leave out of the breakdown entries smaller than this, such as 10MB.", valueName: "size"),
            transform: SizeArgument.init(parsing:))
    var minSize: SizeArgument?

    @Option(help: "Worker threads (default: one per core, at least two; on a cold cache more pay off).")
    var threads: Int?

    @Option(name: .customLong("export"),
            help: ArgumentHelp("Also save the scan, every folder and file, to this file in ncdu's JSON export format (- for standard output, which then holds only it).",
                               valueName: "file"))
    var exportFile: String?

    @Option(name: .customLong("import"),
            help: ArgumentHelp("Show a saved scan (an export of stowage, ncdu or gdu; - for standard input) instead of scanning.",
                               valueName: "file"))
    var importFile: String?

    @Option(name: .customLong("compare"),
            help: ArgumentHelp("Show what changed since this saved scan: against a second saved scan or a folder scanned now (the path given, or the saved scan's own).",
                               valueName: "old"))
    var compareFile: String?

    @Flag(help: ArgumentHelp(
        "Browse the scan full-screen: walk, sort, delete (through the removal walk, asking first) and rescan; ? lists the keys. With --import, a saved scan (nothing deleted); with --compare, what changed since, the largest change first.",
        discussion: "Needs a terminal on standard input and output (so no saved scan from -); scripts use --json. Not with --export, which saves without browsing, as ncdu -o does."))
    var interactive = false

    @OptionGroup var units: UnitOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        try refuseRootOptionsNotTaken()
        if interactive && output.json { throw ValidationError("--interactive and --json: choose one (--json is for scripts).") }
        if interactive && exportFile != nil {
            throw ValidationError("--export saves a scan without browsing it, as ncdu -o does; browse the file after with --import FILE --interactive.")
        }
        if interactive && (importFile == "-" || compareFile == "-" || (compareFile != nil && paths.first?.path == "-")) {
            throw ValidationError("--interactive reads its keys from the terminal on standard input, so a saved scan cannot come from there (-): give its file.")
        }
        if top < 0 { throw ValidationError("--top must be 0 or more.") }
        if depth < 0 { throw ValidationError("--depth must be 0 or more.") }
        if let threads, threads < 1 || threads > 256 { throw ValidationError("--threads must be from 1 to 256.") }
        try validateSavedScans()
    }

    mutating func run() async throws {
        if let compareFile { return try await interactive ? browseChanges(since: compareFile) : compare(since: compareFile) }
        if interactive { return try await browse() }
        let options = scanOptions(everything: exportFile != nil)
        var report: UsageReport
        if let importFile {
            report = try loadSavedScan(importFile, options: options).report
        } else {
            let urls = (paths.isEmpty ? [try PathArgument(parsing: ".")] : paths).map { $0.url().standardizedFileURL }
            report = try await scan(urls, options: options)
        }
        if let exportFile {
            try save(report, to: exportFile)
            if exportFile == "-" { return }
            let depth = summarize ? 0 : depth
            report.breakdown.removeAll { $0.depth > depth }
        }
        try show(report)
    }

    /// Opens the browser on the paths (every level and every file: it walks the whole tree), or
    /// on the saved scan of `--import`.
    func browse() async throws {
        var options = scanOptions(everything: true)
        options.largestFileCount = 0
        var source: BrowserSource
        if let importFile {
            let (report, takenAt) = try loadSavedScan(importFile, options: options)
            source = BrowserSource(title: "stowage usage", roots: [], options: options)
            source.content = .savedScan(takenAt: takenAt)
            source.report = report
        } else {
            let urls = (paths.isEmpty ? [try PathArgument(parsing: ".")] : paths).map { $0.url().standardizedFileURL }
            source = BrowserSource(title: "stowage usage", roots: urls, topName: urls.count == 1 ? nil : "\(urls.count) paths", options: options)
        }
        try await Browser.runCommand(source, units: units.style, operation: .measureUsage, output: output)
    }

    /// What the scan counts and lists: as the options say, or every folder and file (`everything`,
    /// for a saved scan and a comparison).
    func scanOptions(everything: Bool) -> UsageOptions {
        var options = UsageOptions()
        options.followsSymbolicLinks = follow
        options.staysOnOneFileSystem = oneFileSystem
        options.includesHiddenEntries = !noHidden
        options.excludedPatterns = exclude
        options.breakdownDepth = summarize ? 0 : depth
        options.largestFileCount = summarize ? 0 : top
        options.ranksByLogicalSize = apparent
        options.threads = threads
        if everything { options.breakdownDepth = .max }
        return options
    }

    /// Scans `urls`, showing progress on a terminal.
    func scan(_ urls: [URL], options: UsageOptions) async throws -> UsageReport {
        let progress = ProgressLine(style: units.style)
        let subject = DisplayPath.of(urls[0]) + (urls.count > 1 ? " and \(urls.count - 1) more" : "")
        return try await progress.during {
            try await UsageScanner(options: options).scan(urls, progressInterval: ProgressLine.interval) { figures in
                progress.show(ProgressStatus(figures, activity: "Scanning", subject: subject, noun: .entry))
            }
        }
    }

    /// Prints `report` as text or JSON, with its problems on standard error; exits 1 when there
    /// were any (as `du`), or with the error of the one root that could not be examined at all.
    func show(_ report: UsageReport) throws {
        // A path that could not be examined at all (not there, or not reachable) gets no row of
        // zeros: as `du`, only its error, and when no path could be, the command fails with it.
        let unexamined = report.roots.filter { Self.couldNotExamine($0, in: report) }
        if !unexamined.isEmpty, unexamined.count == report.roots.count, !report.wasCancelled {
            let failure = Self.failure(examining: unexamined[0], in: report)
            for issue in report.issues where issue.path != unexamined[0].path { Terminal.standardError.problem(issue) }
            try output.run { throw failure }
            return
        }
        for issue in report.issues { Terminal.standardError.problem(issue) }
        var shown = report
        shown.roots.removeAll { Self.couldNotExamine($0, in: report) }
        let trees = shown.breakdownTree(rankedByLogicalSize: apparent)
        // JSON keeps every row unless --limit says otherwise; text fits the screen by default.
        let json = UsageSelection(limit: limit?.rows, minimumBytes: minSize?.bytes, apparent: apparent).apply(to: trees)
        let text = UsageSelection(limit: limit.map(\.rows) ?? Self.defaultRows(for: shown, style: units.style), minimumBytes: minSize?.bytes,
                                  apparent: apparent).apply(to: trees)
        let view = UsageView(report: shown, style: units.style, apparent: apparent, summarize: summarize, flat: flat,
                             trees: text.trees, hidden: text.hidden, hasMinimum: minSize != nil,
                             width: Self.width)
        // As `du`: the figures of what could be read, then a failure status if anything could not.
        try output.run {
            let document = UsageJSON(report, breakdown: json.trees.flatMap(\.children))
            return Rendered(jsonText: { document.text() }, exitStatus: report.issues.isEmpty ? ExitStatus.success : ExitStatus.failure) {
                view.render()
            }
        }
    }

    /// Whether `root` could not be examined at all: nothing of it counted, and a problem met at
    /// the root itself (it is not there, a folder on its way is not one or cannot be searched).
    /// A root counted by an earlier one has no figures either, but was examined.
    static func couldNotExamine(_ root: UsageTotals, in report: UsageReport) -> Bool {
        root.alreadyCountedIn == nil && root.fileCount + root.folderCount + root.symbolicLinkCount + root.otherCount == 0
            && report.issues.contains { $0.path == root.path }
    }

    /// The error for a root that could not be examined, from the problem met at it.
    static func failure(examining root: UsageTotals, in report: UsageReport) -> StowageError {
        let issue = report.issues.first { $0.path == root.path }
        return StowageError(issue?.errno.map(StowageError.Code.init(errno:)) ?? .ioFailure, operation: .measureUsage,
                            path: root.path, errno: issue?.errno, reason: issue?.errno == nil ? issue?.message : nil)
    }

    /// The rows the breakdown shows without `--limit`: what fits the terminal standard output
    /// is on (its height less the other lines), or a fixed number when it is not a terminal.
    static func defaultRows(for report: UsageReport, style: ByteCountStyle) -> Int {
        guard Terminal.standardOutputIsTerminal else { return UsageSelection.defaultRowsOffTerminal }
        return max(UsageSelection.fewestDefaultRows,
                   Terminal.standardOutputRows - UsageView.linesBesideRows(of: report, style: style, width: width) - report.roots.count)
    }

    /// The columns text output fits: the terminal's, or none (`nil`) when standard output is
    /// not a terminal (a file or a pipe gets whole names).
    static var width: Int? { Terminal.standardOutputIsTerminal ? Terminal.standardOutputColumns : nil }
}

extension StowageError.Operation {
    /// Measuring the space files and folders take (`stowage usage`).
    static let measureUsage = StowageError.Operation("measure usage")
}
