import Foundation

/// How a write is carried out: durability, file protection, replacement of folders.
///
/// ```swift
/// try store.save(token, to: "session.json", in: .applicationSupport,
///                options: WriteOptions(protection: .complete))
/// try store.save(thumbnail, to: "thumbs/1.png", in: .caches, options: .durable)
/// ```
public struct WriteOptions: Sendable, Hashable {
    /// Whether the write is synced to disk. `nil` (the default) follows the location:
    /// durable for backed-up locations, atomic-only for caches and temporary files
    /// (see ``LocationPolicy/isDurableByDefault``).
    public var durability: Durability?
    /// The data-protection class of new files; `nil` keeps the platform default (and, when a
    /// file is replaced, its permissions).
    public var protection: FileProtection?
    /// Whether saving a folder of data over an existing item replaces it. Off by default:
    /// saving `[Data]` over an existing folder is an error unless you ask for this.
    public var replacesExistingFolder: Bool
    /// Whether to check before writing that the volume has room, and against which figure.
    /// `nil` (the default) writes without a check; a full disk then still fails cleanly with
    /// ``StowageError/Code/noSpace``.
    public var spaceRequirement: SpaceRequirement?

    /// Creates options; every argument has the default described on its property.
    public init(durability: Durability? = nil, protection: FileProtection? = nil, replacesExistingFolder: Bool = false,
                spaceRequirement: SpaceRequirement? = nil) {
        self.durability = durability
        self.protection = protection
        self.replacesExistingFolder = replacesExistingFolder
        self.spaceRequirement = spaceRequirement
    }

    /// The location's defaults.
    public static let `default` = WriteOptions()
    /// Synced to disk whatever the location.
    public static let durable = WriteOptions(durability: .durable)
    /// Atomic but not synced, whatever the location.
    public static let atomicOnly = WriteOptions(durability: .atomicOnly)
    /// Replace an existing folder when saving a folder of data.
    public static let replacingExistingFolder = WriteOptions(replacesExistingFolder: true)

    func isDurable(in location: Location) -> Bool {
        (durability ?? (location.policy.isDurableByDefault ? .durable : .atomicOnly)) == .durable
    }
}

/// Whether a write waits until its data is on stable storage.
///
/// Every Stowage write is atomic: a crash of the app leaves the old content or the new one,
/// never a torn file. ``durable`` also syncs the file and its folder (`fdatasync`/`fsync` on
/// Linux, `F_FULLFSYNC` on Apple platforms) so that a power loss or kernel panic cannot undo it.
public struct Durability: Sendable, Hashable, CustomStringConvertible {
    private let name: String
    private init(_ name: String) { self.name = name }

    /// Atomic and synced to stable storage before the call returns.
    public static let durable = Durability("durable")
    /// Atomic, but left to the system to write back; a power loss may lose the latest write.
    public static let atomicOnly = Durability("atomicOnly")

    /// `durable` or `atomicOnly`.
    public var description: String { name }
}

/// The data-protection class of a file.
///
/// On Apple platforms these are the system's data-protection classes (the file's key is
/// available only while the device is unlocked, and so on). Linux has no per-file encryption
/// classes: there every level except ``none`` makes files owner-only (0600) and new folders
/// owner-only (0700). That keeps other users out; it does not encrypt anything. Encrypt the
/// disk (LUKS, fscrypt) for protection at rest.
public struct FileProtection: Sendable, Hashable, CustomStringConvertible {
    let level: Int
    private let name: String
    private init(_ level: Int, _ name: String) {
        self.level = level
        self.name = name
    }

    /// No protection beyond the platform's default permissions.
    public static let none = FileProtection(4, "none")
    /// Readable only while the device is unlocked.
    public static let complete = FileProtection(1, "complete")
    /// Files open when the device locks stay readable; new ones can be created while locked.
    public static let completeUnlessOpen = FileProtection(2, "completeUnlessOpen")
    /// Readable after the first unlock following a restart (Apple's default class).
    public static let completeUntilFirstUserAuthentication = FileProtection(3, "completeUntilFirstUserAuthentication")

    /// The class's name.
    public var description: String { name }

    /// Whether Linux restricts the file to its owner for this level.
    var isOwnerOnly: Bool { self != .none }
}

extension Optional where Wrapped == FileProtection {
    /// The permissions of a new file written with this protection (owner-only for protected
    /// levels, the platform default otherwise and without one).
    var fileMode: FilePermissions { self?.isOwnerOnly == true ? .ownerOnlyFile : .defaultFile }

    /// The permissions of a new folder made with this protection.
    var folderMode: FilePermissions { self?.isOwnerOnly == true ? .ownerOnlyFolder : .defaultFolder }
}
