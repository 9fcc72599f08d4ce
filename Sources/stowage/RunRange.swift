import ArgumentParser
import Foundation
import Stowage

extension RunCommand {
    /// `--inodes` when it is one count (`nil` when absent or a range).
    func inodeLimit() throws -> Int64? {
        guard let inodes, !RoomRange.isRange(inodes) else { return nil }
        guard !inodes.isEmpty, inodes.allSatisfy({ ("0"..."9").contains($0) }) else {
            throw ValidationError("--inodes takes a whole number of inodes (0 or more), or a range LOW..HIGH, not '\(inodes)'.")
        }
        guard let count = Int64(inodes), count <= RoomPlan.largestAvailableInodes else {
            throw ValidationError("--inodes is \(inodes), more than a room's layer can have free, \(RoomPlan.largestAvailableInodes).")
        }
        return count
    }

    /// The range `--available` or `--inodes` gives, with `--step`, or `nil` for one room.
    func range() throws -> RoomRange? {
        let text: String
        let quantity: RoomRange.Quantity
        if let rangeText = available.rangeText {
            (text, quantity) = (rangeText, .bytes)
        } else if let inodes, RoomRange.isRange(inodes) {
            (text, quantity) = (inodes, .inodes)
        } else {
            return nil
        }
        do {
            return try RoomRange(parsing: text, quantity: quantity, step: step)
        } catch let error as StowageError {
            throw ValidationError("\(quantity == .bytes ? "--available" : "--inodes"): \(error.reason ?? error.description)")
        }
    }

    /// The options that go only with a range, and those that do not go with one.
    func validateRange() throws {
        let isRange = available.rangeText != nil || inodes.map(RoomRange.isRange) == true
        guard isRange else {
            let rangeOnly = [("--step", step != nil), ("--check", check != nil), ("--find-minimum", findMinimum),
                             ("--json-lines", jsonLines), ("--show-output", showOutput)]
            if let (name, _) = rangeOnly.first(where: \.1) {
                throw ValidationError("\(name) goes with a range of rooms: --available LOW..HIGH (such as 0..2MB) or --inodes LOW..HIGH.")
            }
            return
        }
        if available.rangeText != nil, inodes.map(RoomRange.isRange) == true {
            throw ValidationError("One of --available and --inodes can be a range, not both.")
        }
        if dropTo != nil { throw ValidationError("A range of rooms takes no --drop-to: each room is one size of the range.") }
        if fileSystem != .tmpfs {
            throw ValidationError("A range of rooms is made on tmpfs only (--fs ext4 would need an image and mkfs.ext4 for each room).")
        }
        if findMinimum, step != nil {
            throw ValidationError("--find-minimum searches to one block (or inode) by bisection; --step is for a run over every size.")
        }
        if keep != nil, findMinimum { throw ValidationError("--keep goes with a run over every size, not with --find-minimum.") }
        if keep != nil, check == nil {
            throw ValidationError("--keep with a range keeps the room of the first failed check: give --check.")
        }
        _ = try range()
    }
}

/// `stowage run` over a range of rooms: each size in turn (or a bisection with
/// `--find-minimum`), a line per room, and a summary; the library's ``RoomRangeRun`` does the work.
struct RunRange {
    let options: RunCommand
    let range: RoomRange

    /// Exit status 1: a check failed (or, with `--find-minimum`, the minimum did not hold when confirmed).
    static let checkFailed: Int32 = 1
    /// Exit status 3: the command did not succeed in any room of the range.
    static let neverSucceeded: Int32 = 3
    /// Exit status 130: interrupted (SIGINT or SIGTERM); the rooms are gone.
    static let interrupted: Int32 = 130

    func run() throws {
        let run: RoomRangeRun
        do {
            let check = options.check.map { RoomCommand(arguments: [Array("/bin/sh".utf8), Array("-c".utf8), Array($0.utf8)]) }
            run = try RoomRangeRun(plan: try options.plan(), range: range,
                                   command: RoomCommand(arguments: try RawCommandLine.trailing(options.command)),
                                   check: check, showsOutput: options.showOutput)
        } catch let error as StowageError {
            fail(error)
        }
        // Every size: the rooms are counted (and limited) now; a bisection takes any range.
        let rooms: RoomRange.Rooms?
        do {
            rooms = options.findMinimum ? nil : try run.rooms
        } catch let error as StowageError {
            fail(error)
        }
        if let rooms, rooms.isStepRounded, let step = range.step {
            Terminal.standardError.problem("note: the step, \(ByteCount(step).formatted(options.units.style)) (\(step) bytes), is not a whole number of "
                                           + "\(rooms.unit)-byte blocks; rounded up to \(rooms.step) bytes")
        }
        let trap = try SignalTrap(signals: [Signal.interrupt, .terminate]) { run.cancel() }
        defer { trap.cancel() }
        let table = Table(quantity: range.quantity, width: String(run.ends.high).count)
        if !options.jsonLines { table.header() }
        var count = 0
        let onTrial = { (trial: RoomTrial) in
            count += 1
            if count == 1 {
                for mount in trial.room.hiddenMounts {
                    Terminal.standardError.problem("note: the mount at \(mount) cannot be covered; in the rooms the command sees the folder beneath it")
                }
            }
            if options.jsonLines { emit(.room, RangeTrialJSON(trial)) } else { table.row(trial) }
        }
        do {
            if options.findMinimum {
                try finish(try run.findMinimum(onTrial), ends: run.ends)
            } else {
                try finish(try run.runEverySize(onTrial))
            }
        } catch is CancellationError {
            trap.cancel()
            if options.jsonLines { emit(.interrupted, RangeInterruptedJSON(roomCount: count)) }
            Terminal.standardError.problem("interrupted after \(Noun.room.counted(count)); the rooms are gone, the real folders as they were")
            throw ExitCode(Self.interrupted)
        } catch let error as StowageError {
            fail(error)
        }
    }

    // MARK: - Endings

    private func finish(_ report: RoomRangeReport) throws {
        let failed = report.failedTrials
        let status = !failed.isEmpty ? Self.checkFailed : !report.hasCommandSucceeded ? Self.neverSucceeded : ExitStatus.success
        let ends = "\(report.trials.count) rooms from \(text(report.rooms.sizes.first ?? 0)) to \(text(report.rooms.sizes.last ?? 0))"
            + " in steps of \(text(report.rooms.step))"
        if let kept = report.kept, let size = report.keptSize {
            RunCommand.tell(kept, from: "of the room of \(text(size))", style: options.units.style)
        }
        if let error = report.keepError { Terminal.standardError.problem(error) }
        if options.jsonLines {
            emit(.finished, RangeFinishedJSON(quantity: range.quantity.name, roomCount: report.trials.count, failedCount: failed.count,
                                               failedRooms: failed.map(RangeRoomJSON.init), hasCommandSucceeded: report.hasCommandSucceeded,
                                               keptRoom: report.keptSize.flatMap { size in report.trials.first { $0.size == size } }
                                                   .map(RangeRoomJSON.init),
                                               keptFolder: report.kept?.folder,
                                      exitStatus: report.keepError != nil ? RunExitStatus.failure : status))
        } else if !failed.isEmpty {
            say("\(ends): the check failed in \(failed.count): \(failed.map { String($0.size) }.joined(separator: ", ")) \(unitName)")
        } else if !report.hasCommandSucceeded {
            say("\(ends): the command succeeded in none (\(options.check == nil ? "no check" : "every check passed"))")
        } else {
            say("\(ends): \(options.check == nil ? "no check; the command succeeded in \(report.trials.filter(\.hasCommandSucceeded).count)" : "every check passed")")
        }
        if report.keepError != nil { throw ExitCode(RunExitStatus.failure) }
        if status != ExitStatus.success { throw ExitCode(status) }
    }

    private func finish(_ report: RoomMinimumReport, ends: RoomRange.Ends) throws {
        // Without a minimum, the largest room tells whose failure it was: the command's, or only the check's.
        let isCheckAlone = report.minimum == nil && report.trials.last?.hasCommandSucceeded == true
        let status = report.minimum == nil ? (isCheckAlone ? Self.checkFailed : Self.neverSucceeded)
            : report.isConfirmed ? ExitStatus.success : Self.checkFailed
        if options.jsonLines {
            let isBytes = range.quantity == .bytes
            emit(.minimum, RangeMinimumJSON(quantity: range.quantity.name, roomCount: report.trials.count,
                                             minimumAvailableBytes: isBytes ? report.minimum : nil,
                                             minimumAvailableInodeCount: isBytes ? nil : report.minimum,
                                    isConfirmed: report.isConfirmed, exitStatus: status))
        } else if let minimum = report.minimum, let confirmation = report.confirmation {
            let needs = range.quantity == .bytes
                ? "needs at least \(ByteCount(minimum).formatted(options.units.style)) free (\(minimum) bytes)"
                : "needs at least \(minimum) free \(Noun.inode.form(for: minimum))"
            let below = minimum - report.unit
            if !confirmation.atMinimum.isSuccess {
                say("not confirmed: it \(needs), but on a second run there \(Self.failure(of: confirmation.atMinimum)): its outcome is not repeatable")
            } else if confirmation.belowMinimum?.isSuccess == true {
                let reason = minimum == ends.low ? ", below the range: widen it" : ": a smaller room succeeds as well"
                say("not confirmed: it \(needs), but succeeded with \(below) \(unitName) too\(reason)")
            } else if let belowTrial = confirmation.belowMinimum {
                say("\(needs); \(belowTrial.size) \(unitName) is not enough (confirmed: \(minimum) \(unitName) succeeded on a second run; "
                    + "at \(belowTrial.size) \(unitName) \(Self.failure(of: belowTrial)))")
                // The bisection ran a few rooms of the range; the rest it assumed.
                let roomCount = (ends.high - ends.low) / ends.unit + 1
                let runCount = Set(report.trials.map(\.size).filter { (ends.low...ends.high).contains($0) }).count
                if runCount < roomCount {
                    say("assumed, not run: that every room smaller than \(belowTrial.size) \(unitName) fails and every one larger than "
                        + "\(minimum) \(unitName) succeeds (\(runCount) of \(roomCount) rooms run; without --find-minimum every room is run)")
                }
            } else {
                say("needs no free \(unitName): it succeeded in an empty room, also on a second run (confirmed)")
            }
        } else if isCheckAlone, let largest = report.trials.last {
            say("the check failed even in the largest room, \(text(largest.size)), with \(largest.checkEnding.map(Table.text) ?? "-") "
                + "(the command exited 0 there)")
        } else {
            say("the command did not succeed even in the largest room, \(text(report.trials.last?.size ?? 0))")
        }
        if status != ExitStatus.success { throw ExitCode(status) }
    }

    /// What failed in a room that was not a success: the command (how it ended), or the check alone.
    private static func failure(of trial: RoomTrial) -> String {
        if !trial.hasCommandSucceeded { return "the command failed with \(Table.text(trial.commandEnding))" }
        return "the check failed with \(trial.checkEnding.map(Table.text) ?? "-")"
    }

    private func fail(_ error: StowageError) -> Never {
        Terminal.standardError.problem(error)
        if options.jsonLines { emit(.error, ErrorJSON(error)) }
        RunCommand.exit(withError: ExitCode(RunExitStatus.status(for: error, keepFolder: options.keepPath)))
    }

    /// A line on standard output, written at once, after the table's.
    private func say(_ text: String) { Terminal.standardOutput.write(text + "\n") }

    private var unitName: String { range.quantity == .bytes ? "bytes" : "inodes" }

    private func text(_ value: Int64) -> String {
        (range.quantity == .bytes ? Noun.byte : Noun.inode).counted(value)
    }

    private func emit(_ event: EventName, _ payload: some Encodable) {
        do {
            let text = try JSONOutput.line(EventLine(event: event, date: Date(), payload: payload))
            Terminal.standardOutput.write(text + "\n")
        } catch {
            Terminal.standardError.problem("the \(event) event could not be written as JSON: \(error)")
        }
    }

    /// The human table: a line per room, written as soon as the room is done.
    struct Table {
        let quantity: RoomRange.Quantity
        let width: Int

        func header() {
            line(quantity == .bytes ? "BYTES" : "INODES", "COMMAND", "CHECK")
        }

        func row(_ trial: RoomTrial) {
            line(String(trial.size), Self.text(trial.commandEnding),
                 trial.checkEnding.map { $0 == .exited(0) ? "passed" : "FAILED (\(Self.text($0)))" } ?? "-")
        }

        /// One line, written at once (standard output may be a pipe, read as the range goes).
        private func line(_ room: String, _ command: String, _ check: String) {
            let text = pad(room, max(width, 6)) + "  " + command.padding(toLength: 12, withPad: " ", startingAt: 0) + check + "\n"
            Terminal.standardOutput.write(text)
        }

        private func pad(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }

        static func text(_ ending: RoomReport.Ending) -> String {
            switch ending {
            case .exited(let status): "exit \(status)"
            case .signalled(let signal): "\(signal)"
            }
        }
    }
}
