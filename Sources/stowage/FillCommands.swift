import ArgumentParser
import Foundation
import Stowage

/// A fill goal on the command line: `500MB`, or `1%` of the volume.
struct LeaveArgument: Sendable {
    var goal: FillPlan.Goal

    init(parsing argument: String) throws {
        let percent: Double?
        do {
            percent = try ByteCount.percentage(parsing: argument)  // the size grammar's numbers: no 0x10%, 1e1%, +5%
        } catch let error as StowageError {
            throw ValidationError(error.reason ?? error.description)
        }
        if let percent {
            goal = .leavingPercent(percent)
        } else {
            goal = .leaving(try SizeArgument(parsing: argument).bytes)
        }
    }
}

struct FillCommand: AsyncParsableCommand, StowageSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "fill",
        abstract: "Fill a volume until exactly the bytes asked for remain available, to test low storage.",
        discussion: """
            Measures the volume (statvfs) before every chunk and stops at the goal within one \
            block, whatever else writes meanwhile. The fill's files go to PATH/.stowage-fill \
            with a manifest and stay until `stowage release`, also if this command is killed; \
            with --hold the space is held until Ctrl-C or SIGTERM (by unnamed files, which the \
            system frees even if the process is killed). Ctrl-C during a fill stops it; what was \
            filled stays until released. The volume holding / or your home folder is never \
            filled below 1 GiB available without --force.
            """
    )

    @ParentCommand var parent: StowageCommand

    @Argument(help: "Any folder on the volume to fill (default: the container's Documents).",
              completion: .directory, transform: PathArgument.init(parsing:))
    var path: PathArgument?

    @Option(parsing: .unconditional, help: ArgumentHelp("Fill until this much is available: 500MB, or 1% of the volume.", valueName: "size|percent"),
            transform: LeaveArgument.init(parsing:))
    var leave: LeaveArgument?

    @Option(parsing: .unconditional, help: ArgumentHelp("Take this much of what is available now, such as 2GB.", valueName: "size"),
            transform: SizeArgument.init(parsing:))
    var consume: SizeArgument?

    @Option(help: "allocate (fallocate, the fastest), zeros, or random (incompressible).")
    var method: FillPlan.Method = .allocate

    @Option(parsing: .unconditional, help: ArgumentHelp("Bytes per step, and the memory a writing method uses (default: 4MiB; 1GiB for allocate).",
                               valueName: "size"),
            transform: SizeArgument.init(parsing:))
    var chunk: SizeArgument?

    @Flag(help: "Hold the space until Ctrl-C or SIGTERM, then give it back.")
    var hold = false

    @Flag(help: "Fill the volume holding / or your home folder below 1 GiB available.")
    var force = false

    @Flag(help: "Show what is filled in PATH instead of filling.")
    var status = false

    @OptionGroup var container: ContainerOptions
    @OptionGroup var units: UnitOptions
    @OptionGroup var output: StreamOutputOptions

    func validate() throws {
        try refuseRootOptionsNotTaken()
        try container.refuse(beside: path != nil ? "a path" : nil)
        if hold && output.json {
            throw ValidationError("--hold reports two events (holding, then released): use --json-lines.")
        }
        if status {
            if leave != nil || consume != nil || hold { throw ValidationError("--status takes no goal and no --hold.") }
        } else if (leave == nil) == (consume == nil) {
            throw ValidationError("Give --leave or --consume (one of them), or --status.")
        }
    }

    mutating func run() async throws {
        let style = units.style
        let output = output
        let document = output.document
        let folder: URL
        do {
            folder = try FillPaths.folder(path, container: container, creating: !status, operation: .fill)
        } catch let error as StowageError {
            output.report(error)
            throw ExitCode(ExitStatus.status(for: error))
        }
        if status {
            try document.run {
                let status = try FillFolder(in: folder).status()
                return Rendered(json: FillStatusJSON(folder: DisplayPath.of(FillFolder(in: folder).url), status: status)) {
                    FillView.render(status, in: folder, style: style)
                }
            }
            return
        }
        let plan: FillPlan
        let goal = leave?.goal ?? .consuming(consume?.bytes ?? 0)
        plan = FillPlan(volume: folder, goal: goal, method: method, chunkSizeBytes: chunk?.bytes, isForced: force)
        let events = FillEvents(output: output, style: style, folder: DisplayPath.of(plan.volume))
        do {
            if hold {
                try await runHolding(plan, events: events)
            } else {
                let filler = Filler(plan: plan)
                let stopping = Cancellation()  // set up before the fill starts, so no signal is missed
                let stop = try SignalTrap(signals: [Signal.interrupt, .terminate]) { stopping.cancel() }
                defer { stop.cancel() }
                let task = Task {
                    try await filler.fill(progressInterval: ProgressLine.interval) { progress in
                        if let figures = FillProgress(progress) { events.progress(figures) }
                    }
                }
                stopping.attach(task)
                let report = try await task.value
                try events.filled(report, holding: false)
                if !Self.isGoalMet(report) { throw ExitCode(ExitStatus.goalNotMet) }
            }
        } catch let error as StowageError {
            events.clearProgress()
            output.report(error)
            throw ExitCode(ExitStatus.status(for: error))
        }
    }

    /// Whether the fill met its goal: not when stopped by a signal, the volume full before the
    /// goal, or the goal missed (ran, goal not met: status 3, held or not).
    static func isGoalMet(_ report: FillReport) -> Bool {
        report.ending == .goalReached || report.ending == .alreadyAtGoal
    }

    /// Fills with unnamed files, waits for Ctrl-C or SIGTERM, then gives the space back; exits
    /// 3 afterwards when the fill missed its goal, as a fill that does not hold does.
    private func runHolding(_ plan: FillPlan, events: FillEvents) async throws {
        let stopped = AsyncStream<Void>.makeStream()
        let trap = try SignalTrap(signals: [Signal.interrupt, .terminate]) { stopped.continuation.finish() }
        defer { trap.cancel() }
        let hold = try Filler(plan: plan).hold { events.progress($0) }
        try events.filled(hold.report, holding: true)
        for await _ in stopped.stream {}
        _ = try hold.release()  // the command reports the volume's available bytes, not the files
        events.released(availableAfter: try VolumeCapacity.forVolume(containing: plan.volume).availableBytes)
        if !Self.isGoalMet(hold.report) { throw ExitCode(ExitStatus.goalNotMet) }
    }
}

struct ReleaseCommand: AsyncParsableCommand, StowageSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "release",
        abstract: "Give back the space `stowage fill` took in a folder: all of it, or an amount.",
        discussion: """
            Removes only the files the fill's manifest names and that are still the files it \
            made; anything else in PATH/.stowage-fill is left alone. Works after a fill was killed.
            """
    )

    @ParentCommand var parent: StowageCommand

    func validate() throws {
        try refuseRootOptionsNotTaken()
        try container.refuse(beside: path != nil ? "a path" : nil)
    }

    @Argument(help: "The folder that was filled (default: the container's Documents).",
              completion: .directory, transform: PathArgument.init(parsing:))
    var path: PathArgument?

    @Option(parsing: .unconditional, help: ArgumentHelp("Give back at least this much, newest files first, such as 1GB.", valueName: "size"),
            transform: SizeArgument.init(parsing:))
    var amount: SizeArgument?

    @OptionGroup var container: ContainerOptions
    @OptionGroup var units: UnitOptions
    @OptionGroup var output: OutputOptions

    mutating func run() async throws {
        let style = units.style
        let container = container
        let path = path
        let amount = amount?.bytes
        let progress = ProgressLine(style: style)
        try await output.run {
            let folder = try FillPaths.folder(path, container: container, creating: false, operation: .release)
            let report = try await progress.during {
                try await FillFolder(in: folder).release(bytes: amount, progressInterval: ProgressLine.interval) {
                    progress.show(ProgressStatus($0, activity: "Releasing", subject: DisplayPath.of(folder)))
                }
            }
            return Rendered(json: report) { FillView.render(report, style: style) }
        }
    }
}

enum FillPaths {
    /// PATH relative to the working folder, or the container's Documents: created when
    /// `creating` (a fill needs it), looked at as it is otherwise (a status or a release has
    /// nothing to do where nothing was ever filled, and must not make the folder).
    ///
    /// - Throws: For a status or a release (`creating` false), ``StowageError/Code/notFound``
    ///   when PATH is not there and ``StowageError/Code/wrongKind`` when it is not a folder, as
    ///   `du` and `df` fail on a typo (the container's Documents not made yet is "nothing filled").
    static func folder(_ path: PathArgument?, container: ContainerOptions, creating: Bool,
                       operation: StowageError.Operation) throws -> URL {
        if let path {
            let url = path.url(directoryHint: .isDirectory).absoluteURL
            var isFolder: ObjCBool = false
            if !creating, !FileManager.default.fileExists(atPath: DisplayPath.of(url), isDirectory: &isFolder) {
                throw StowageError(.notFound, operation: operation, path: DisplayPath.of(url), errno: .noSuchEntry,
                                   reason: "there is no such folder")
            }
            if !creating, !isFolder.boolValue {
                throw StowageError(.wrongKind, operation: operation, path: DisplayPath.of(url), errno: .notFolder,
                                   reason: "it is not a folder")
            }
            return url
        }
        let resolved = try container.resolve()
        guard creating else { return try resolved.url(for: .documents) }
        return try FillPlan(container: resolved, goal: .leaving(0)).volume
    }
}

/// What `fill` prints: the progress line on standard error when it is a terminal, and the
/// result as text; or the result as one JSON document (`--json`); or each event as a line of
/// JSON as it happens (`--json-lines`: `progress` at most twice a second, `filled` or
/// `holding`, `released`).
final class FillEvents: @unchecked Sendable {
    let output: StreamOutputOptions
    let style: ByteCountStyle
    let folder: String
    private let line: ProgressLine
    private let lock = NSLock()
    private var lastLine = ContinuousClock.now - .seconds(1)

    init(output: StreamOutputOptions, style: ByteCountStyle, folder: String) {
        self.output = output
        self.style = style
        self.folder = folder
        line = ProgressLine(style: style)
    }

    func progress(_ progress: FillProgress) {
        line.show(ProgressStatus(progress, folder: folder, style: style))
        guard output.jsonLines else { return }
        let now = ContinuousClock.now
        let due: Bool = lock.withLock {
            guard now - lastLine >= .milliseconds(500) else { return false }
            lastLine = now
            return true
        }
        guard due else { return }
        line.clear()  // standard output may be the same terminal: the next figures redraw the line
        output.emit(.progress, progress)
    }

    func filled(_ report: FillReport, holding: Bool) throws {
        clearProgress()
        if output.jsonLines {
            output.emit(holding ? .holding : .filled, report)
        } else if output.json {
            do {
                print(try JSONOutput.encode(report))
            } catch {
                // Reported as any error is: on stderr and as the JSON error document.
                throw StowageError(.encodingFailed, operation: .fill, underlying: error, reason: "the fill's report could not be written as JSON")
            }
        } else {
            print(FillView.render(report, style: style), terminator: "")
            if holding { print("Holding the space: press Ctrl-C (or send SIGTERM) to give it back.") }
        }
    }

    func released(availableAfter: Int64) {
        if output.jsonLines {
            output.emit(.released, ReleasedJSON(availableBytes: availableAfter))
        } else {
            print("Released: \(ByteCount(availableAfter).formatted(style)) available now.")
        }
    }

    func clearProgress() { line.clear() }
}

enum FillView {
    static func render(_ report: FillReport, style: ByteCountStyle) -> String {
        let verb: String
        switch report.ending {
        case .goalReached: verb = "Filled"
        case .volumeFull: verb = "The volume is full: filled"
        case .cancelled: verb = "Stopped: filled"
        case .alreadyAtGoal: verb = "Already at the goal: filled"
        case .goalMissed: verb = "Missed the goal: filled"
        }
        let seconds = report.elapsedSeconds.formatted(.number.precision(.fractionLength(1)))
        return "\(verb) \(ByteCount(report.filledBytes).formatted(style)) (\(report.method.rawValue), \(report.goal)) "
            + "in \(DisplayPath.escaped(DisplayPath.of(URL(filePath: report.folder)))) in \(seconds) s\n"
            + "Available: \(ByteCount(report.availableBytesBefore).formatted(style)) before, "
            + "\(ByteCount(report.availableBytesAfter).formatted(style)) after (\(report.availableBytesAfter) bytes; "
            + "goal \(report.targetAvailableBytes), block \(report.blockSizeBytes))\n"
    }

    static func render(_ status: FillStatus?, in folder: URL, style: ByteCountStyle) -> String {
        guard let status else { return "Nothing is filled in \(DisplayPath.escaped(DisplayPath.of(folder))).\n" }
        var text = "\(DisplayPath.escaped(DisplayPath.of(URL(filePath: status.folder)))): \(Noun("fill file").counted(status.fileCount)), "
            + "\(ByteCount(status.allocatedBytes).formatted(style))\(status.isFilling ? " (a fill is running)" : "")\n"
            + "Available: \(ByteCount(status.availableBytes).formatted(style)) now, "
            + "\(ByteCount(status.availableBytesBefore).formatted(style)) before the fill\n"
        if !status.foreignEntries.isEmpty {
            text += "Not made by a fill (left alone): \(status.foreignEntries.map(DisplayPath.escaped).joined(separator: ", "))\n"
        }
        return text
    }

    static func render(_ report: FillReleaseReport, style: ByteCountStyle) -> String {
        "Released \(ByteCount(report.releasedBytes).formatted(style)) from \(DisplayPath.escaped(DisplayPath.of(URL(filePath: report.folder)))) "
            + "(\(Noun.file.counted(report.removedFileCount)) removed\(report.shrunkFileCount > 0 ? ", \(report.shrunkFileCount) shrunk" : ""))\n"
            + "Available: \(ByteCount(report.availableBytesBefore).formatted(style)) before, \(ByteCount(report.availableBytesAfter).formatted(style)) after"
            + (report.remainingBytes > 0 ? "; \(ByteCount(report.remainingBytes).formatted(style)) still filled" : "") + "\n"
    }
}

extension FillPlan.Method: ExpressibleByArgument {}
