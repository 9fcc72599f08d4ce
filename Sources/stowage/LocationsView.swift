import Foundation
import Stowage

/// What `stowage locations` (and the overview, below its capacity) prints for people: the
/// container, then a table of the locations; the JSON is ``LocationsJSON``.
struct LocationsView {
    var locations: LocationsJSON
    var style: ByteCountStyle

    func render() -> String {
        let container = locations.container
        var text = "Container: \(container.kind)"
        if let app = container.appIdentifier { text += " for \(app)" }
        if let root = container.root { text += " at \(DisplayPath.escaped(root))" }
        text += "\n\n"
        var table = TextTable(header: ["LOCATION", "SIZE", "FILES", "BACKED UP", "PURGED", "VISIBLE", "PATH"])
        for location in locations.locations {
            table.rows.append([
                location.name, location.exists ? ByteCount(location.allocatedBytes).formatted(style) : "-",
                location.exists ? String(location.fileCount) : "-",
                location.isBackedUp ? "yes" : "no", Self.purgeText(location.purgePriority),
                location.isUserVisible ? "yes" : "no", DisplayPath.escaped(location.path),
            ])
        }
        return text + table.render()
    }

    static func purgeText(_ priority: String) -> String {
        switch priority {
        case PurgePriority.anyTime.description: "any time"
        case PurgePriority.underPressure.description: "under pressure"
        default: "never"
        }
    }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension StorageOverview {
    /// A model of `container` and the shared containers of `groups`, measured.
    @MainActor
    static func refreshed(_ container: Container, groups: [String], style: ByteCountStyle) async throws -> StorageOverview {
        let overview = StorageOverview(container: container, groups: groups, style: style)
        try await overview.refresh()
        return overview
    }
}

/// The error `locations` and the overview give before macOS 14, where `StorageOverview` (built
/// on the Observation framework) is not available; the command itself runs from macOS 13.
func overviewUnavailable() -> StowageError {
    StowageError(.unsupported, operation: .locate, reason: "the overview of locations needs macOS 14 or later")
}
