import ArgumentParser
import Foundation
import Stowage

struct UsageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "usage",
        abstract: "Show where the space went: sizes, a breakdown and the largest files.",
        discussion: """
            Sizes are exact: allocated bytes (st_blocks * 512, as du -B1) and logical bytes \
            (st_size, as du -b); hard links count once and links are not followed. Unreadable \
            folders are reported on standard error and skipped.
            """
    )

    @Argument(help: "Files or folders to measure (default: the working folder, as du does).",
              transform: PathArgument.init(parsing:))
    var paths: [PathArgument] = []

    @Option(help: "How many of the largest files to list.")
    var top = 10

    @Option(help: "How many levels below each path the breakdown lists.")
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

    @Option(help: "Worker threads (default: one per core, at least two; on a cold cache more pay off).")
    var threads: Int?

    @OptionGroup var units: UnitOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if top < 0 { throw ValidationError("--top must be 0 or more.") }
        if depth < 0 { throw ValidationError("--depth must be 0 or more.") }
        if let threads, threads < 1 || threads > 256 { throw ValidationError("--threads must be from 1 to 256.") }
    }

    mutating func run() async throws {
        var options = UsageOptions()
        options.followsSymbolicLinks = follow
        options.staysOnOneFileSystem = oneFileSystem
        options.includesHiddenEntries = !noHidden
        options.excludedPatterns = exclude
        options.breakdownDepth = summarize ? 0 : depth
        options.largestFileCount = summarize ? 0 : top
        options.ranksByLogicalSize = apparent
        options.threads = threads
        let urls = (paths.isEmpty ? [try PathArgument(parsing: ".")] : paths).map { $0.url().standardizedFileURL }
        let progress = ProgressLine(enabled: !output.json && Terminal.standardErrorIsTerminal)
        let report = try await UsageScanner(options: options).scan(urls) { update in
            progress.show("Scanning: \(update.items) entries, \(ByteCount(update.bytes).formatted())")
        }
        progress.clear()
        for issue in report.issues { Terminal.standardError.problem(issue) }
        let view = UsageView(report: report, style: units.style, apparent: apparent, summarize: summarize)
        // As `du`: the figures of what could be read, then a failure status if anything could not.
        try output.run { Rendered(json: UsageJSON(report), exitStatus: report.issues.isEmpty ? ExitStatus.success : ExitStatus.failure) { view.render() } }
    }
}

/// The report as JSON: the library's report with the totals also at the top level.
struct UsageJSON: Encodable {
    var allocatedBytes: Int64
    var logicalBytes: Int64
    var fileCount: Int
    var folderCount: Int
    var symbolicLinkCount: Int
    var otherCount: Int
    var skippedHardLinkCount: Int
    var roots: [UsageTotals]
    var breakdown: [UsageItem]
    var largestFiles: [UsageItem]
    var issues: [UsageIssue]

    init(_ report: UsageReport) {
        allocatedBytes = report.total.allocatedBytes
        logicalBytes = report.total.logicalBytes
        fileCount = report.total.files
        folderCount = report.total.folders
        symbolicLinkCount = report.total.symbolicLinks
        otherCount = report.total.others
        skippedHardLinkCount = report.hardLinksCountedOnce
        roots = report.roots
        breakdown = report.breakdown
        largestFiles = report.largestFiles
        issues = report.issues
    }
}

/// The report for people.
struct UsageView {
    var report: UsageReport
    var style: ByteCountStyle
    var apparent: Bool
    var summarize: Bool

    func size(_ allocated: Int64, _ logical: Int64) -> String {
        ByteCount(apparent ? logical : allocated).formatted(style)
    }

    /// `path` below its root (`photos/2024`), or as it is when it is a root or several roots were scanned.
    func relative(_ path: String) -> String {
        guard report.roots.count == 1, let root = report.roots.first?.path else { return path }
        let prefix = root.hasSuffix("/") ? root : root + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    func render() -> String {
        if summarize {
            var table = TextTable(header: [apparent ? "LOGICAL" : "ALLOCATED", "PATH"])
            for root in report.roots {
                table.rows.append([size(root.allocatedBytes, root.logicalBytes), DisplayPath.escaped(root.path ?? "")])
            }
            if report.roots.count > 1 { table.rows.append([size(report.allocatedBytes, report.logicalBytes), "total"]) }
            return table.render()
        }
        var lines: [String] = []
        for root in report.roots + (report.roots.count > 1 ? [report.total] : []) {
            lines.append("\(root.path.map(DisplayPath.escaped) ?? "Total"): \(ByteCount(root.allocatedBytes).formatted(style)) allocated, "
                + "\(ByteCount(root.logicalBytes).formatted(style)) logical; \(root.files) files, \(root.folders) folders, "
                + "\(root.symbolicLinks) links" + (root.others > 0 ? ", \(root.others) others" : ""))
        }
        if report.hardLinksCountedOnce > 0 {
            lines.append("(\(report.hardLinksCountedOnce) extra hard links counted once)")
        }
        if !report.breakdown.isEmpty {
            lines.append("")
            var table = TextTable(header: ["SIZE", "SHARE", "", "PATH"])
            let whole = max(1, apparent ? report.logicalBytes : report.allocatedBytes)
            for item in report.breakdown {
                let bytes = apparent ? item.logicalBytes : item.allocatedBytes
                let share = Double(bytes) / Double(whole)
                table.rows.append([size(item.allocatedBytes, item.logicalBytes), Bar.render(fraction: share, width: 20),
                                   String(format: "%3.0f%%", share * 100),
                                   String(repeating: "  ", count: max(0, item.depth - 1)) + DisplayPath.escaped(relative(item.path)) + (item.isFolder ? "/" : "")])
            }
            lines.append(table.render().trimmingCharacters(in: .newlines))
        }
        if !report.largestFiles.isEmpty {
            lines.append("")
            lines.append("Largest files:")
            var table = TextTable(header: ["SIZE", "PATH"])
            for item in report.largestFiles {
                table.rows.append([size(item.allocatedBytes, item.logicalBytes), DisplayPath.escaped(item.path)])
            }
            lines.append(table.render().trimmingCharacters(in: .newlines))
        }
        if !report.issues.isEmpty {
            lines.append("")
            lines.append("\(report.issues.count) problem(s) met; see standard error.")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A single line of progress on standard error, rewritten in place; shown only on a terminal and
/// only once the work has taken more than a moment (half a second unless told otherwise).
///
/// `@unchecked Sendable`: `shown` is read and written only while `lock` is held.
final class ProgressLine: @unchecked Sendable {
    let enabled: Bool
    let started = ContinuousClock.now
    let delay: Duration
    private let lock = NSLock()
    private var shown = false

    init(enabled: Bool, after delay: Duration = .milliseconds(500)) {
        self.enabled = enabled
        self.delay = delay
    }

    func show(_ text: String) {
        guard enabled, ContinuousClock.now - started >= delay else { return }
        lock.withLock {
            shown = true
            Terminal.standardError.write("\r\u{1B}[K" + text)
        }
    }

    func clear() {
        lock.withLock {
            if shown { Terminal.standardError.write("\r\u{1B}[K") }
        }
    }
}
