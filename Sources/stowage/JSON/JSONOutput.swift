import Foundation
import Stowage

/// The command's JSON: one encoder for every document and event, keys sorted, and every date as
/// ISO 8601 in UTC (`2026-11-22T17:35:00Z`), the one time format of every command's output.
///
/// The naming rule every key follows is written once, in the library's DocC article "The JSON
/// vocabulary" (`Sources/Stowage/Stowage.docc/JSONVocabulary.md`): a key is the Swift property's
/// own name, which carries its unit (`availableBytes`, `fileCount`, `elapsedSeconds`,
/// `lastAccessDate`, `isDryRun`), `location` is a location's identifier, and nothing is left out
/// but `pathBase64` and `wasCancelled`. What each command prints, and its schema in `Schemas/`:
///
/// | Command | Type | Schema |
/// |---|---|---|
/// | `stowage` (the overview) | `OverviewJSON` | `overview.json` |
/// | `locations` | `LocationsJSON` | `locations.json` |
/// | `info` | `VolumeCapacity` (library) | `info.json` |
/// | `info --all` | `[MountedVolumeJSON]` | `info-all.json` |
/// | `usage` | `UsageJSON`, written by its `text()` (the same bytes, faster) | `usage.json` |
/// | `usage --compare` | `UsageDifference` (library), written by `UsageComparisonJSON` (the same bytes, faster) | `usage-compare.json` |
/// | `sweep`, `clear` | `SweepReport` (library) | `sweep.json` |
/// | `relieve` | `ReliefReport` (library) | `relieve.json` |
/// | `audit` | `AuditReport` (library) | `audit.json` |
/// | `fill --json` | `FillReport` (library) | `fill.json` |
/// | `fill --json-lines` | `EventLine` of `FillProgress`, `FillReport`, `ReleasedJSON`, `ErrorJSON.Body` | `fill-events.json` |
/// | `fill --status` | `FillStatusJSON` | `fill-status.json` |
/// | `release` | `FillReleaseReport` (library) | `release.json` |
/// | `watch --json-lines` | `EventLine` of `WatchStartedJSON`, `WatchReliefJSON`, `ErrorJSON.Body` | `watch-events.json` |
/// | any failure | `ErrorJSON` | `error.json` |
///
/// The shapes only the command prints live in this folder, one file per command family; the
/// library's reports encode themselves (`Codable`) under the same rule. `JSONSchemaCoverageTests`
/// encodes a value of every type above and checks it against its schema, both ways.
enum JSONOutput {
    /// `value` as one pretty-printed JSON document.
    static func encode<Value: Encodable>(_ value: Value) throws -> String {
        String(decoding: try encoder([.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]).encode(value), as: UTF8.self)
    }

    /// `value` as one line of JSON, for streams of events (JSON Lines).
    static func line<Value: Encodable>(_ value: Value) throws -> String {
        String(decoding: try encoder([.sortedKeys, .withoutEscapingSlashes]).encode(value), as: UTF8.self)
    }

    private static func encoder(_ formatting: JSONEncoder.OutputFormatting) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

/// One line of `--json-lines`: the event's name and time, then the payload's own keys.
struct EventLine<Payload: Encodable>: Encodable {
    var event: EventName
    var date: Date
    var payload: Payload

    private enum CodingKeys: String, CodingKey { case event, date }

    /// The payload's keys and `event` and `date` in one object (a payload never has those two).
    func encode(to encoder: any Encoder) throws {
        try payload.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(event, forKey: .event)
        try container.encode(date, forKey: .date)
    }
}

/// An event with no figures of its own.
struct EmptyPayload: Encodable {}

