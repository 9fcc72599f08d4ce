import Stowage

// The events of `stowage run` over a range of rooms with `--json-lines`
// (Schemas/run-range-events.json): `room` per room, then `finished` or `minimum`, or
// `interrupted`, or `error`.

/// How a run ended: `{"exitStatus": 1, "signal": null}` or `{"exitStatus": null, "signal": "SIGKILL"}`.
struct CommandEndingJSON: Encodable {
    @NullWhenAbsent var exitStatus: Int32?
    @NullWhenAbsent var signal: String?

    init(_ ending: RoomReport.Ending) {
        switch ending {
        case .exited(let status): (exitStatus, signal) = (status, nil)
        case .signalled(let signal): (exitStatus, self.signal) = (nil, signal.description)
        }
    }
}

/// A room of the range as measured: its bytes and inodes.
struct RangeRoomJSON: Encodable {
    var availableBytes: Int64
    var availableInodeCount: Int64

    init(_ trial: RoomTrial) {
        availableBytes = trial.room.availableBytes
        availableInodeCount = trial.room.availableInodeCount
    }
}

/// `room`: one room of the range, how the command and the check ended in it.
struct RangeTrialJSON: Encodable {
    var availableBytes: Int64
    var availableInodeCount: Int64
    var command: CommandEndingJSON
    @NullWhenAbsent var check: CommandEndingJSON?
    var hasCommandSucceeded: Bool
    var isCheckPassed: Bool

    init(_ trial: RoomTrial) {
        availableBytes = trial.room.availableBytes
        availableInodeCount = trial.room.availableInodeCount
        command = CommandEndingJSON(trial.commandEnding)
        check = trial.checkEnding.map(CommandEndingJSON.init)
        hasCommandSucceeded = trial.hasCommandSucceeded
        isCheckPassed = trial.isCheckPassed
    }
}

/// `finished`: the summary of a run over every size.
struct RangeFinishedJSON: Encodable {
    var quantity: String
    var roomCount: Int
    var failedCount: Int
    var failedRooms: [RangeRoomJSON]
    var hasCommandSucceeded: Bool
    @NullWhenAbsent var keptRoom: RangeRoomJSON?
    @NullWhenAbsent var keptFolder: String?
    var exitStatus: Int32
}

/// `minimum`: the result of `--find-minimum`.
struct RangeMinimumJSON: Encodable {
    var quantity: String
    var roomCount: Int
    @NullWhenAbsent var minimumAvailableBytes: Int64?
    @NullWhenAbsent var minimumAvailableInodeCount: Int64?
    var isConfirmed: Bool
    var exitStatus: Int32
}

/// `interrupted`: SIGINT or SIGTERM stopped the range.
struct RangeInterruptedJSON: Encodable {
    var roomCount: Int
}
