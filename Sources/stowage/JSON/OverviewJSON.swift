import Foundation
import Stowage

/// `stowage --json`, the overview (`overview.json`): the container, its volume's capacity, and
/// each location.
struct OverviewJSON: Encodable {
    var container: ContainerJSON
    var capacity: VolumeCapacity
    var locations: [LocationJSON]
}

/// `stowage locations --json` (`locations.json`): the container and each location.
struct LocationsJSON: Encodable {
    var container: ContainerJSON
    var locations: [LocationJSON]
}

extension LocationsJSON {
    /// The figures of `overview` (refreshed), the one way Stowage measures a container.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @MainActor
    init(_ overview: StorageOverview) {
        container = ContainerJSON(overview.container)
        locations = overview.locations.map(LocationJSON.init)
    }
}

/// Which container: `rooted` (`--root`), `xdg` (the default on Linux) or `apple-sandbox`.
struct ContainerJSON: Encodable {
    var kind: String
    @NullWhenAbsent var appIdentifier: String?
    @NullWhenAbsent var root: String?

    init(_ container: Container) {
        kind = container.kind.description
        appIdentifier = container.appIdentifier
        root = container.root.map(DisplayPath.of)
    }
}

/// A location's folder, policy and size.
struct LocationJSON: Encodable {
    /// The location's identifier (`caches`, `shared:<group>`), as every report names a location.
    var location: String
    /// The name people read (`Caches`, `Application Support`).
    var name: String
    var path: String
    var isBackedUp: Bool
    var purgePriority: String
    var isUserVisible: Bool
    var exists: Bool
    /// Allocated bytes of everything in the folder (0 when it does not exist).
    var allocatedBytes: Int64
    /// Logical bytes of everything in the folder.
    var logicalBytes: Int64
    var fileCount: Int

    init(_ usage: LocationUsage) {
        let policy = usage.location.policy
        location = usage.location.identifier
        name = usage.location.displayName
        path = usage.path
        isBackedUp = policy.isBackedUp
        purgePriority = policy.purgePriority.description
        isUserVisible = policy.isUserVisible
        exists = usage.exists
        allocatedBytes = usage.totals.allocatedBytes
        logicalBytes = usage.totals.logicalBytes
        fileCount = usage.totals.fileCount
    }
}

/// One volume of `info --all --json` (`info-all.json`, an array of them): the capacity figures,
/// as `info --json` gives them for one volume, with what is mounted (`source`), its `kind` and
/// its `otherMountPoints`.
struct MountedVolumeJSON: Encodable {
    var volume: MountedVolume

    init(_ volume: MountedVolume) { self.volume = volume }

    private enum CodingKeys: String, CodingKey {
        case mountPointBase64, source, kind, otherMountPoints
    }

    /// The capacity's keys and the mount's in one object (flat, as `info --json` prints one
    /// volume), with `mountPointBase64` (the exact bytes) where the mount point is not UTF-8.
    func encode(to encoder: any Encoder) throws {
        try volume.capacity.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Base64WhenNotUTF8(wrappedValue: volume.mountPointBytes), forKey: .mountPointBase64)
        try container.encode(volume.source, forKey: .source)
        try container.encode(volume.kind.name, forKey: .kind)
        try container.encode(volume.otherMountPoints, forKey: .otherMountPoints)
    }
}
