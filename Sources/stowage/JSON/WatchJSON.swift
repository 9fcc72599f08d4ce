import Foundation
import Stowage

/// The figures of the `started` event of `watch --json-lines` (`watch-events.json`).
struct WatchStartedJSON: Encodable {
    var folder: String
    var targetAvailableBytes: Int64
    var intervalSeconds: Double
}

/// The figures of a `relief` event of `watch --json-lines`: what was available and wanted, and
/// what each location gave (not every file: a watch runs for days; `relieve --json` lists files).
struct WatchReliefJSON: Encodable {
    struct Step: Encodable {
        /// The location's identifier, as in `relieve --json`.
        var location: String
        var removedFileCount: Int
        var freedAllocatedBytes: Int64
    }

    var availableBytesBefore: Int64
    var targetAvailableBytes: Int64
    var freedAllocatedBytes: Int64
    var isSatisfied: Bool
    var isSimulated: Bool
    var steps: [Step]

    init(_ relief: ReliefReport) {
        availableBytesBefore = relief.availableBytesBefore
        targetAvailableBytes = relief.targetAvailableBytes
        freedAllocatedBytes = relief.freedAllocatedBytes
        isSatisfied = relief.isSatisfied
        isSimulated = relief.isSimulated
        steps = relief.steps.map {
            Step(location: $0.location.identifier, removedFileCount: $0.report.removed.count, freedAllocatedBytes: $0.report.freedAllocatedBytes)
        }
    }
}
