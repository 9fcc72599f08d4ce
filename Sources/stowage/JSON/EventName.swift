/// The name of a `--json-lines` event: every name the command prints, in one place. The schemas
/// of the event streams (`Schemas/*-events.json`) give the same names as the `event` key's
/// `const`; a test checks that the two lists agree.
struct EventName: RawRepresentable, Hashable, Sendable, Encodable, CustomStringConvertible {
    let rawValue: String

    init(rawValue: String) { self.rawValue = rawValue }

    var description: String { rawValue }

    /// A failure, by any command that prints events (`fill`, `watch`, `run` over a range).
    static let error = EventName(rawValue: "error")

    /// `fill --json-lines`: the figures so far.
    static let progress = EventName(rawValue: "progress")
    /// `fill --json-lines`: the fill's report.
    static let filled = EventName(rawValue: "filled")
    /// `fill --hold --json-lines`: the fill's report, the space now held.
    static let holding = EventName(rawValue: "holding")
    /// `fill --hold --json-lines`: the held space given back.
    static let released = EventName(rawValue: "released")

    /// `watch --json-lines`: watching began.
    static let started = EventName(rawValue: "started")
    /// `watch --json-lines`: pressure was relieved.
    static let relief = EventName(rawValue: "relief")
    /// `watch --json-lines`: watching ended.
    static let stopped = EventName(rawValue: "stopped")

    /// `run` over a range, `--json-lines`: one room's trial.
    static let room = EventName(rawValue: "room")
    /// `run` over a range: every room ran.
    static let finished = EventName(rawValue: "finished")
    /// `run --find-minimum`: the search's outcome.
    static let minimum = EventName(rawValue: "minimum")
    /// `run` over a range: a signal ended it early.
    static let interrupted = EventName(rawValue: "interrupted")

    /// Every event name.
    static let all: [EventName] = [.error, .progress, .filled, .holding, .released, .started, .relief, .stopped,
                                   .room, .finished, .minimum, .interrupted]
}
