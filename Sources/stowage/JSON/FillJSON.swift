import Stowage

/// `fill --status --json` (`fill-status.json`): the fill folder, and what it holds (`null` when
/// nothing was filled).
struct FillStatusJSON: Encodable {
    var folder: String
    @NullWhenAbsent var status: FillStatus?
}

/// The figures of a `released` event of `fill --hold --json-lines`: the volume's available bytes
/// once the held space is back.
struct ReleasedJSON: Encodable {
    var availableBytes: Int64
}
