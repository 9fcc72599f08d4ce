/// The places an app keeps files, as Apple's storage guidelines define them.
///
/// Each location has a ``policy``: whether it is backed up, when the system (or Stowage's
/// sweeper) may purge it, and whether users see it. Where a location lives on disk depends on
/// the ``Container``: the real sandbox on Apple platforms, the XDG base directories on Linux,
/// or an iOS-style tree under a folder of your choice.
///
/// This is one of the few public enums in Stowage: the sandbox locations are a closed set.
public enum Location: Hashable, Sendable, CustomStringConvertible, Codable {
    /// User data the user created or can see: backed up, never purged (`Documents`).
    case documents
    /// Files the app needs to run that the user does not manage: backed up, never purged
    /// (`Library/Application Support`).
    case applicationSupport
    /// Re-creatable data: not backed up, purged when storage runs low (`Library/Caches`).
    case caches
    /// Small settings files: backed up, never purged (`Library/Preferences`).
    case preferences
    /// Scratch files: not backed up, purged at any time (`tmp`).
    case temporary
    /// A container shared by the apps of an app group, such as `group.com.example.shared`:
    /// backed up, never purged.
    case sharedContainer(String)

    /// The five per-app locations, in a stable order (shared containers are named by group
    /// and so not listed).
    public static let standard: [Location] = [.documents, .applicationSupport, .caches, .preferences, .temporary]

    /// What the system promises about files in this location.
    public var policy: LocationPolicy {
        switch self {
        case .documents:
            LocationPolicy(isBackedUp: true, purgePriority: .never, isUserVisible: true)
        case .applicationSupport, .preferences, .sharedContainer:
            LocationPolicy(isBackedUp: true, purgePriority: .never, isUserVisible: false)
        case .caches:
            LocationPolicy(isBackedUp: false, purgePriority: .underPressure, isUserVisible: false)
        case .temporary:
            LocationPolicy(isBackedUp: false, purgePriority: .anyTime, isUserVisible: false)
        }
    }

    /// The name used in messages and output: `Documents`, `Application Support`, `Caches`,
    /// `Preferences`, `tmp`, or `Shared(group)`.
    public var displayName: String {
        switch self {
        case .documents: "Documents"
        case .applicationSupport: "Application Support"
        case .caches: "Caches"
        case .preferences: "Preferences"
        case .temporary: "tmp"
        case .sharedContainer(let group): "Shared(\(group))"
        }
    }

    /// A stable identifier for command lines and JSON: `documents`, `applicationSupport`,
    /// `caches`, `preferences`, `temporary`, or `shared:<group>`.
    public var identifier: String {
        switch self {
        case .documents: "documents"
        case .applicationSupport: "applicationSupport"
        case .caches: "caches"
        case .preferences: "preferences"
        case .temporary: "temporary"
        case .sharedContainer(let group): "shared:\(group)"
        }
    }

    /// The location with this ``identifier``, also accepting common spellings (`tmp`,
    /// `application-support`, `support`, `cache`); `nil` when none matches.
    public init?(identifier: String) {
        let lowered = identifier.lowercased()
        if lowered.hasPrefix("shared:") {
            let group = String(identifier.dropFirst("shared:".count))
            guard Container.problem(inIdentifier: group) == nil else { return nil }
            self = .sharedContainer(group)
            return
        }
        switch lowered {
        case "documents", "document": self = .documents
        case "applicationsupport", "application-support", "application support", "support": self = .applicationSupport
        case "caches", "cache": self = .caches
        case "preferences", "prefs": self = .preferences
        case "temporary", "tmp", "temp": self = .temporary
        default: return nil
        }
    }

    /// The location's ``displayName``.
    public var description: String { displayName }
}

/// What the system promises about the files in a ``Location``.
public struct LocationPolicy: Hashable, Sendable {
    /// Whether backups (iCloud, Finder, and backup tools honouring the markers) include it.
    public var isBackedUp: Bool
    /// When files here may be removed without the app asking.
    public var purgePriority: PurgePriority
    /// Whether the user sees these files (in the Files app, with file sharing enabled).
    public var isUserVisible: Bool

    /// Creates a policy.
    public init(isBackedUp: Bool, purgePriority: PurgePriority, isUserVisible: Bool) {
        self.isBackedUp = isBackedUp
        self.purgePriority = purgePriority
        self.isUserVisible = isUserVisible
    }

    /// Whether writes here are durable (synced to disk) unless a write asks otherwise.
    ///
    /// Backed-up locations hold data that cannot be re-created, so their writes are synced:
    /// a power loss leaves the old content or the new. Caches and temporary files can be
    /// re-created, so their writes are atomic (a crash of the app never leaves a torn file)
    /// but not synced: after a power loss the last write may be missing, which costs a
    /// re-download, not data.
    public var isDurableByDefault: Bool { isBackedUp }
}

/// When files in a location may be removed without the app asking.
///
/// Ordered: ``anyTime`` is purged before ``underPressure``, which is purged before ``never``.
public struct PurgePriority: Hashable, Sendable, Comparable, CustomStringConvertible {
    let rank: Int
    private let name: String

    private init(rank: Int, name: String) {
        self.rank = rank
        self.name = name
    }

    /// Purged at any time, even while the app runs (`tmp`).
    public static let anyTime = PurgePriority(rank: 0, name: "anyTime")
    /// Purged when storage runs low (`Library/Caches`).
    public static let underPressure = PurgePriority(rank: 1, name: "underPressure")
    /// Never purged, unless a file is marked purgeable.
    public static let never = PurgePriority(rank: 2, name: "never")

    /// `anyTime`, `underPressure` or `never`.
    public var description: String { name }

    /// Whether `lhs` is purged before `rhs`.
    public static func < (lhs: PurgePriority, rhs: PurgePriority) -> Bool { lhs.rank < rhs.rank }
}

extension Location {
    /// Encodes the location as its ``identifier``, as every report's JSON names a location.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(identifier)
    }

    /// Decodes a location from its ``identifier``.
    ///
    /// - Throws: `DecodingError.dataCorrupted` for a string that names no location.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let identifier = try container.decode(String.self)
        guard let location = Location(identifier: identifier) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(identifier)' names no location")
        }
        self = location
    }
}
