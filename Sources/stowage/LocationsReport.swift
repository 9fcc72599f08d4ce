import Foundation
import Stowage

/// What `stowage locations` (and the overview) prints.
struct LocationsReport: Encodable {
    struct ContainerInfo: Encodable {
        var kind: String
        var appIdentifier: String?
        var root: String?

        /// Every key, `null` when not known (the JSON vocabulary: keys are never left out).
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(kind, forKey: .kind)
            try container.encode(appIdentifier, forKey: .appIdentifier)
            try container.encode(root, forKey: .root)
        }

        private enum CodingKeys: String, CodingKey { case kind, appIdentifier, root }
    }

    struct LocationInfo: Encodable {
        var identifier: String
        var name: String
        var path: String
        var backedUp: Bool
        var purgePriority: String
        var userVisible: Bool
        var exists: Bool
        /// Allocated bytes of everything in the folder (0 when it does not exist).
        var allocatedBytes: Int64
        /// Logical bytes of everything in the folder.
        var logicalBytes: Int64
        var files: Int

        private enum CodingKeys: String, CodingKey {
            case identifier, name, path, purgePriority, exists, allocatedBytes, logicalBytes
            case backedUp = "isBackedUp", userVisible = "isUserVisible", files = "fileCount"
        }
    }

    var container: ContainerInfo
    var locations: [LocationInfo]

    var style: ByteCountStyle = .decimal

    /// The figures of `overview` (refreshed), the one way Stowage measures a container.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @MainActor
    init(_ overview: StorageOverview) {
        let container = overview.container
        self.container = ContainerInfo(kind: container.kind.description, appIdentifier: container.appIdentifier,
                                       root: container.root.map(DisplayPath.of))
        style = overview.style
        locations = overview.locations.map { figures in
            let policy = figures.location.policy
            return LocationInfo(
                identifier: figures.location.identifier, name: figures.location.displayName, path: figures.path,
                backedUp: policy.isBackedUp, purgePriority: policy.purgePriority.description,
                userVisible: policy.isUserVisible, exists: figures.exists,
                allocatedBytes: figures.totals.allocatedBytes, logicalBytes: figures.totals.logicalBytes,
                files: figures.totals.files)
        }
    }

    private enum CodingKeys: String, CodingKey { case container, locations }

    func renderHuman() -> String {
        var text = "Container: \(container.kind)"
        if let app = container.appIdentifier { text += " for \(app)" }
        if let root = container.root { text += " at \(DisplayPath.escaped(root))" }
        text += "\n\n"
        var table = TextTable(header: ["LOCATION", "SIZE", "FILES", "BACKED UP", "PURGED", "VISIBLE", "PATH"])
        for location in locations {
            table.rows.append([
                location.name, location.exists ? ByteCount(location.allocatedBytes).formatted(style) : "-",
                location.exists ? String(location.files) : "-",
                location.backedUp ? "yes" : "no", Self.purgeText(location.purgePriority),
                location.userVisible ? "yes" : "no", DisplayPath.escaped(location.path),
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

/// The overview `stowage` prints with no subcommand.
struct OverviewJSON: Encodable {
    var container: LocationsReport.ContainerInfo
    var capacity: VolumeCapacity
    var locations: [LocationsReport.LocationInfo]
}

/// The error `locations` and the overview give before macOS 14, where `StorageOverview` (built
/// on the Observation framework) is not available; the command itself runs from macOS 13.
func overviewUnavailable() -> StowageError {
    StowageError(.unsupported, operation: .locate, reason: "the overview of locations needs macOS 14 or later")
}
