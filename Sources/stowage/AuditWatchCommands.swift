import ArgumentParser
import Dispatch
import Foundation
import Stowage

struct AuditCommand: AsyncParsableCommand, StowageSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Find large backed-up files, oversized preferences and pinned caches; total what pressure would free."
    )

    @ParentCommand var parent: StowageCommand

    func validate() throws { try refuseRootOptionsNotTaken() }

    @Option(name: .customLong("min-size"), parsing: .unconditional, help: ArgumentHelp("Report backed-up files from this size, such as 10MB.", valueName: "size"), transform: SizeArgument.init(parsing:))
    var minSize: SizeArgument?

    @OptionGroup var container: ContainerOptions
    @OptionGroup var units: UnitOptions
    @OptionGroup var output: OutputOptions

    mutating func run() async throws {
        let style = units.style
        let minimum = minSize?.bytes ?? 10_000_000
        let container = container
        let progress = ProgressLine(style: style)
        try await output.run {
            let resolved = try container.resolve()
            let report = try await progress.during {
                try await resolved.audit(minimumBytes: minimum, progressInterval: ProgressLine.interval) {
                    progress.show(ProgressStatus($0, activity: "Auditing"))
                }
            }
            for issue in report.issues { Terminal.standardError.problem(issue) }
            return Rendered(json: report) {
                var text = report.findings.isEmpty ? "No findings.\n" : "\(Noun("finding").counted(report.findings.count)):\n"
                if !report.findings.isEmpty {
                    var table = TextTable(header: ["SIZE", "WHERE", "PATH", "ADVICE"])
                    for finding in report.findings {
                        table.rows.append([ByteCount(finding.allocatedBytes).formatted(style), DisplayPath.escaped(finding.location.identifier),
                                           DisplayPath.escaped(bytes: finding.pathBytes), finding.advice])
                    }
                    text += table.render()
                }
                text += "\nUnder storage pressure these would go, in this order:\n"
                var table = TextTable(header: ["LOCATION", "FILES", "SIZE"])
                for totals in report.purgeableUnderPressure {
                    table.rows.append([DisplayPath.escaped(totals.location.identifier), String(totals.fileCount), ByteCount(totals.allocatedBytes).formatted(style)])
                }
                return text + table.render()
            }
        }
    }
}

struct WatchCommand: AsyncParsableCommand, StowageSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Relieve storage pressure whenever available space drops below a threshold, until stopped.",
        discussion: "Logs each check that acted, and stops cleanly on Ctrl-C (SIGINT) or SIGTERM."
    )

    @ParentCommand var parent: StowageCommand
    static let refusedRootOptions: [RootOption: String] = [
        .groups: groupsElsewhere,
        .json: "it runs until stopped, so it has no one result: use --json-lines (one line per event).",
    ]

    @Option(parsing: .unconditional, help: ArgumentHelp("The available space to keep, such as 1GB.", valueName: "size"), transform: SizeArgument.init(parsing:))
    var available: SizeArgument

    @Option(parsing: .unconditional, help: ArgumentHelp("How often to check: 60s, 5m, ...", valueName: "interval"))
    var interval: AgeArgument = AgeArgument(argument: "60s")!

    @OptionGroup var container: ContainerOptions
    @OptionGroup var units: UnitOptions
    @OptionGroup var output: EventLinesOutputOptions

    /// The intervals `--interval` accepts, in seconds: from 10 ms (a shorter one would spin a
    /// core to no purpose) to one year (365 days).
    static let intervalRange: ClosedRange<TimeInterval> = 0.01...AgeArgument.longest

    func validate() throws {
        try refuseRootOptionsNotTaken()
        guard Self.intervalRange.contains(interval.seconds) else {
            throw ValidationError("--interval must be from 0.01s (10 milliseconds) to 365d (one year).")
        }
    }

    mutating func run() async throws {
        let container = try resolvedContainer()
        let watcher = PressureWatcher(container: container, thresholdBytes: available.bytes,
                                      interval: Self.checkInterval(interval))
        let output = output
        let lines = output.jsonLines
        let style = units.style
        let log: @Sendable (String) -> Void = { line in
            let stamp = ISO8601DateFormatter().string(from: Date())
            Terminal.standardOutput.write("\(stamp) \(line)\n")
        }
        let folder = DisplayPath.of(try container.url(for: .documents))
        // The trap is set before the first line is written, so a SIGTERM sent as soon as a line
        // appears stops the watch cleanly instead of killing it.
        let stopping = Cancellation()
        let stop = try SignalTrap(signals: [Signal.interrupt, .terminate]) { stopping.cancel() }
        if lines {
            output.emit(.started, WatchStartedJSON(folder: folder, targetAvailableBytes: available.bytes, intervalSeconds: interval.seconds))
        } else {
            log("watching \(DisplayPath.escaped(folder)): keeping \(ByteCount(available.bytes).formatted(style)) available")
        }
        let task = Task {
            await watcher.run(onEvent: { event in
                guard let relief = event.relief else { return }
                if lines {
                    output.emit(.relief, WatchReliefJSON(relief))
                } else {
                    log(DisplayPath.escaped(event.formatted(style)))
                }
            }, onError: { error in
                if let error = error as? StowageError {
                    output.report(error)
                } else {
                    Terminal.standardError.problem("\(error)")
                }
            })
        }
        stopping.attach(task)
        await task.value
        stop.cancel()
        if lines { output.emit(.stopped) } else { log("stopped") }
    }

    /// The interval as a `Duration`; within ``intervalRange`` (which `validate()` ensures),
    /// so the conversion cannot overflow.
    static func checkInterval(_ interval: AgeArgument) -> Duration {
        .seconds(min(max(interval.seconds, intervalRange.lowerBound), intervalRange.upperBound))
    }

    private func resolvedContainer() throws -> Container {
        do {
            return try container.resolve()
        } catch let error as StowageError {
            output.report(error)
            throw ExitCode(ExitStatus.status(for: error))
        }
    }
}

/// A cancellation that may be asked for before the task it cancels exists (a signal that
/// arrives while the task is being made).
///
/// `@unchecked Sendable`: both fields are read and written only under `lock`.
final class Cancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelTask: (@Sendable () -> Void)?
    private var isCancelled = false

    /// Cancels the attached task, or the task attached later.
    func cancel() {
        lock.withLock {
            isCancelled = true
            cancelTask?()
        }
    }

    /// Attaches `task`, cancelling it at once if cancellation was asked for already.
    func attach<Success: Sendable, Failure: Error>(_ task: Task<Success, Failure>) {
        lock.withLock {
            cancelTask = { task.cancel() }
            if isCancelled { task.cancel() }
        }
    }
}
