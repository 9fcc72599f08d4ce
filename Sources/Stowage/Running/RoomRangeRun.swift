import Foundation

/// A command run in a room of every size of a range, each time followed by a check in the same
/// room: every point where running out of space breaks it (`stowage run --available 0..2MB
/// --check ...`), or the smallest room in which it succeeds (`--find-minimum`). Linux only.
///
/// For each size: a fresh room over the plan's folders (the real folders are never changed), the
/// command run in it until every process it started has ended, then the check run in the same
/// room, seeing what the command left, with the room's limit lifted (to half the memory, as
/// tmpfs's default) so the check itself has space. The check is told how the command ended in
/// `STOWAGE_COMMAND_STATUS` (its exit status, or 128 + the signal's number).
///
/// ```swift
/// let plan = RoomPlan(available: .bytes(0), over: [URL(filePath: "/tmp/demo")])
/// let run = try RoomRangeRun(plan: plan, range: RoomRange(bytes: 0...65_536),
///                            command: RoomCommand(["./app", "--save"]),
///                            check: RoomCommand(["/bin/sh", "-c", "./verify.sh"]))
/// let report = try run.runEverySize { trial in print(trial.size, trial.commandEnding, trial.checkEnding!) }
/// print(report.failedTrials.map(\.size))  // the room sizes whose check failed
/// ```
///
/// **What is made once.** One child process makes the mount namespace (and, for an ordinary
/// user, the user namespace), opens the folders and decides which mounts inside them it covers,
/// once for the whole range. Each room is then a fresh layer: the overlays and the layer of the
/// last one are unmounted (which frees all it held: nothing is deleted) and a tmpfs of the new
/// size is mounted with fresh overlays, by that child; each run (the command, the check) gets a
/// PID namespace and a mount namespace of its own, copies of the room's, so its processes and its
/// `/proc` end with it and nothing it mounts reaches the next room. A room thus costs its mounts
/// and its processes, not a new `stowage` or a new namespace.
///
/// - Important: The command and the check run with `/dev/null` as standard input, and their
///   output is discarded unless `showsOutput` (then both go to this process's standard error).
///   Writes outside the covered folders reach the real disk, as with ``RoomProcess``, once per
///   size.
public final class RoomRangeRun: @unchecked Sendable {
    /// The range, as given.
    public let range: RoomRange
    /// The ends of the range, resolved against the layer's block (a tmpfs page): what
    /// ``findMinimum(_:)`` searches between.
    public let ends: RoomRange.Ends
    /// The rooms of the range, resolved against the layer's block (a tmpfs page): what
    /// ``runEverySize(_:)`` runs.
    ///
    /// - Throws: As ``RoomRange/rooms(blockSize:)``: more than ``RoomRange/roomLimit`` rooms, a
    ///   step larger than the range. A search by bisection takes such a range all the same.
    public var rooms: RoomRange.Rooms {
        get throws { try range.rooms(blockSize: blockSize) }  // counted when asked for, never for a search
    }
    private let blockSize: Int64

    private let plan: RoomPlan
    private let setup: RoomSetup
    private let command: RoomCommand
    private let check: RoomCommand?
    private let showsOutput: Bool
    // `@unchecked Sendable`: `isCancelled` and `series` are read and written only under `lock`;
    // everything else is immutable. A run goes on one thread at a time; `cancel()` from any.
    private let lock = NSLock()
    private var isCancelled = false
    private var series: RoomSeries?

    /// Checks the plan and the range; nothing is mounted or run yet.
    ///
    /// - Parameters:
    ///   - plan: The folders (and, for a range of inodes, the room's bytes; for a range of bytes,
    ///     a fixed inode limit if any) and the keep folder (``runEverySize(_:)`` copies the
    ///     writes of the first room whose check failed there). Its ``RoomPlan/available`` is
    ///     not used for a range of bytes.
    ///   - range: The rooms.
    ///   - command: What runs in each room.
    ///   - check: What runs after it in the same room, or `nil` (every room then passes).
    ///   - showsOutput: Whether the command's and the check's output go to this process's
    ///     standard error, rather than nowhere.
    /// - Throws: ``StowageError/Code/unsupported`` where rooms cannot be made (Apple platforms);
    ///   ``StowageError/Code/invalidArgument`` for a layer other than tmpfs, a drop, a
    ///   range ``RoomRange/ends(blockSize:)`` refuses (the rooms between are counted by
    ///   ``runEverySize(_:)``, and only there), or a plan ``RoomProcess`` would refuse (its
    ///   largest room over half the memory, a keep folder inside a covered folder; one with
    ///   something in it is ``StowageError/Code/alreadyExists``); as
    ///   ``RoomProcess/start(_:command:forwardsSignals:)`` for folders that are missing.
    public init(plan: RoomPlan, range: RoomRange, command: RoomCommand, check: RoomCommand? = nil,
                showsOutput: Bool = false) throws {
        if let reason = Sys.roomUnsupportedReason {
            throw StowageError(.unsupported, operation: .run, reason: reason)
        }
        guard plan.fileSystem == .tmpfs else {
            throw StowageError(.invalidArgument, operation: .run,
                               reason: "a range of rooms is made on tmpfs only (an ext4 layer would need an image and mkfs.ext4 for each room)")
        }
        guard plan.drop == nil else {
            throw StowageError(.invalidArgument, operation: .run, reason: "a range of rooms takes no drop: each room is a size of the range")
        }
        self.range = range
        blockSize = Sys.pageSize
        ends = try range.ends(blockSize: blockSize)
        var checked = plan
        if range.quantity == .bytes {
            checked.available = .bytes(ends.high)  // the largest room, for the memory limit
        } else {
            checked.availableInodes = ends.high
        }
        setup = try RoomSetup(plan: checked)
        self.plan = plan
        self.command = command
        self.check = check
        self.showsOutput = showsOutput
    }

    /// Runs the command, and the check, in a room of every size of the range, smallest first.
    ///
    /// - Parameter onTrial: Called after each room, on this thread, with how it went.
    /// - Returns: Every room's trial; the writes kept of the first room whose check failed.
    /// - Throws: `CancellationError` after ``cancel()``; ``StowageError`` when a room could not be
    ///   made, or the command could not be started (``StowageError/commandStartFailure``). The
    ///   rooms, their processes and their mounts are gone when it returns or throws. Before any
    ///   room: ``StowageError/Code/invalidArgument`` for a range ``rooms`` refuses.
    public func runEverySize(_ onTrial: (RoomTrial) -> Void = { _ in }) throws -> RoomRangeReport {
        let rooms = try self.rooms
        var report = RoomRangeReport(range: range, rooms: rooms, trials: [])
        try withSeries(first: rooms.sizes[0]) { series in
            for size in rooms.sizes {
                let trial = try self.trial(size, in: series)
                report.trials.append(trial)
                if check != nil, !trial.isCheckPassed, report.kept == nil, report.keepError == nil, let keep = plan.keepFolder {
                    (report.kept, report.keepError) = series.keep(to: keep)
                    report.keptSize = size
                }
                onTrial(trial)
            }
        }
        return report
    }

    /// Finds the smallest room of the range in which the command succeeds (exits 0) and the check
    /// passes: by bisection over the range to one block (or one inode), then confirmed by running
    /// at that size again and one block below it.
    ///
    /// Tries the low end first (it may succeed there already), then the high end (if it fails
    /// there, there is no minimum in the range), then halves the gap between a failing and a
    /// succeeding room, always a whole number of blocks, until they are one block apart: about
    /// log2(rooms) + 4 rooms in all, so a range of any length can be searched (`0..1GB` is 262,145
    /// rooms, 22 of them run).
    ///
    /// - Important: What is confirmed is the minimum and the room one block below it, each run
    ///   (``RoomMinimumReport/confirmation``). What is assumed, not run, is that the command's need
    ///   is monotonic: that it fails in every room smaller than one it failed in, and succeeds in
    ///   every room larger than one it succeeded in. A command that succeeds from 200 to 400 kB
    ///   and again from 900 kB may be reported as needing 900 kB; ``runEverySize(_:)`` shows
    ///   every room.
    ///
    /// - Parameter onTrial: Called after each room, on this thread, with how it went.
    /// - Throws: As ``runEverySize(_:)``, except that the range may hold any number of rooms.
    public func findMinimum(_ onTrial: (RoomTrial) -> Void = { _ in }) throws -> RoomMinimumReport {
        let (low, high, unit) = (ends.low, ends.high, ends.unit)
        var report = RoomMinimumReport(quantity: range.quantity, unit: unit, trials: [])
        try withSeries(first: low) { series in
            func attempt(_ size: Int64) throws -> RoomTrial {
                let trial = try self.trial(size, in: series)
                report.trials.append(trial)
                onTrial(trial)
                return trial
            }
            var passing: Int64
            if try attempt(low).isSuccess {
                passing = low
            } else {
                guard try attempt(high).isSuccess else { return }
                var failing = low
                passing = high
                while passing - failing > unit {
                    let middle = failing + (passing - failing) / unit / 2 * unit
                    if try attempt(middle).isSuccess { passing = middle } else { failing = middle }
                }
            }
            report.minimum = passing
            let again = try attempt(passing)
            let below = passing >= unit ? try attempt(passing - unit) : nil
            report.confirmation = RoomMinimumReport.Confirmation(atMinimum: again, belowMinimum: below)
        }
        return report
    }

    /// Stops the run from any thread: the room's processes are killed at once (`SIGKILL`), and
    /// the call under way throws `CancellationError` once its rooms are gone.
    public func cancel() {
        lock.withLock {
            isCancelled = true
            series?.kill()
        }
    }

    // MARK: - Rooms

    /// Starts a series with a first room of `first`, runs `body`, and ends the series whatever
    /// happens; an error after ``cancel()`` becomes `CancellationError`.
    private func withSeries(first: Int64, _ body: (RoomSeries) throws -> Void) throws {
        let null = try Sys.openNullDevice()
        let output = showsOutput ? Int32(2) : null.descriptor
        do {
            try lock.withLock { if isCancelled { throw CancellationError() } }
            let series = try RoomSeries(setup: setup, bytes: range.quantity == .bytes ? first : setup.availableBytes,
                                        inodes: range.quantity == .inodes ? first : plan.availableInodes,
                                        command: command, check: check, output: (null.descriptor, output, output))
            defer {
                lock.withLock { self.series = nil }
                series.finish()
            }
            try lock.withLock {
                self.series = series
                if isCancelled { throw CancellationError() }
            }
            try body(series)
        } catch {
            if lock.withLock({ isCancelled }) { throw CancellationError() }
            throw error
        }
        withExtendedLifetime(null) {}  // open until the series has ended
    }

    /// A fresh room of `size`, the command in it, and the check.
    private func trial(_ size: Int64, in series: RoomSeries) throws -> RoomTrial {
        try lock.withLock { if isCancelled { throw CancellationError() } }
        let room = try range.quantity == .bytes ? series.room(bytes: size) : series.room(inodes: size)
        let commandEnding = try series.run(check: false)
        var checkEnding: RoomReport.Ending?
        if check != nil {
            try series.liftLimit()
            checkEnding = try series.run(check: true, commandStatus: commandEnding.shellStatus)
        }
        return RoomTrial(size: size, room: room, commandEnding: commandEnding, checkEnding: checkEnding)
    }
}

/// One room of a range: its size, and how the command and the check ended in it.
public struct RoomTrial: Sendable, Hashable {
    /// The room's size in the range's quantity: bytes (a whole block) or free inodes.
    public var size: Int64
    /// The room as measured before the command started.
    public var room: Room
    /// How the command ended.
    public var commandEnding: RoomReport.Ending
    /// How the check ended, or `nil` without a check.
    public var checkEnding: RoomReport.Ending?

    /// Whether the command exited with status 0.
    public var hasCommandSucceeded: Bool { commandEnding == .exited(0) }
    /// Whether the check exited with status 0 (or there was none).
    public var isCheckPassed: Bool { checkEnding.map { $0 == .exited(0) } ?? true }
    /// Whether the command succeeded and the check passed: what ``RoomRangeRun/findMinimum(_:)`` looks for.
    public var isSuccess: Bool { hasCommandSucceeded && isCheckPassed }

    /// Creates a trial.
    public init(size: Int64, room: Room, commandEnding: RoomReport.Ending, checkEnding: RoomReport.Ending?) {
        self.size = size
        self.room = room
        self.commandEnding = commandEnding
        self.checkEnding = checkEnding
    }
}

/// What ``RoomRangeRun/runEverySize(_:)`` found.
public struct RoomRangeReport: Sendable {
    /// The range, as given.
    public var range: RoomRange
    /// Its rooms.
    public var rooms: RoomRange.Rooms
    /// Every room's trial, smallest first.
    public var trials: [RoomTrial]
    /// What was copied to the keep folder: the writes of the first room whose check failed.
    public var kept: KeptWrites?
    /// The size whose writes were kept.
    public var keptSize: Int64?
    /// Why the copy to the keep folder failed (what was copied until then stays).
    public var keepError: StowageError?

    /// The trials whose check failed.
    public var failedTrials: [RoomTrial] { trials.filter { !$0.isCheckPassed } }
    /// Whether the command succeeded in at least one room.
    public var hasCommandSucceeded: Bool { trials.contains(where: \.hasCommandSucceeded) }
}

/// What ``RoomRangeRun/findMinimum(_:)`` found.
public struct RoomMinimumReport: Sendable {
    /// The two runs that confirm a minimum.
    public struct Confirmation: Sendable, Hashable {
        /// The minimum again: it must succeed.
        public var atMinimum: RoomTrial
        /// One block (or inode) below it, or `nil` at 0: it must fail.
        public var belowMinimum: RoomTrial?
    }

    /// What the range varies.
    public var quantity: RoomRange.Quantity
    /// The search's precision: a block, in bytes, or one inode.
    public var unit: Int64
    /// Every trial, in the order run.
    public var trials: [RoomTrial]
    /// The smallest room in which the command succeeded and the check passed, or `nil` when it
    /// did not even in the largest.
    public var minimum: Int64?
    /// The confirming runs, when a minimum was found.
    public var confirmation: Confirmation?

    /// Whether the minimum held on a second run and one block (or inode) less was not enough:
    /// `false` when the outcome is not repeatable, or when a smaller room succeeds too (below
    /// the range, or where the bisection assumed failure).
    public var isConfirmed: Bool {
        guard let confirmation else { return false }
        return confirmation.atMinimum.isSuccess && !(confirmation.belowMinimum?.isSuccess ?? false)
    }
}

extension RoomReport.Ending {
    /// The status a shell would report: the exit status, or 128 + the signal's number.
    public var shellStatus: Int32 {
        switch self {
        case .exited(let status): status
        case .signalled(let signal): 128 + signal.rawValue
        }
    }
}

extension RoomSeries {
    /// ``RoomKeeper/copyReporting(to:)`` of the current room.
    func keep(to folder: URL) -> (kept: KeptWrites?, error: StowageError?) {
        RoomKeeper(layer: layerRoot, folders: covered).copyReporting(to: folder)
    }
}
