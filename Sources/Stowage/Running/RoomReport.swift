import Foundation

/// The room a ``RoomProcess`` made, as measured inside before the command started.
public struct Room: Sendable, Hashable, Codable {
    /// The layer's file system (`tmpfs`, `ext4`).
    public var fileSystem: String
    /// The folders covered: those the plan named (without any inside another) and the mounts
    /// found inside them, each with an overlay of its own.
    public var folders: [String]
    /// Mounts inside a covered folder that could not be covered (a file system overlayfs does
    /// not take as a lower layer, or one that vanished): inside the room the command sees the
    /// folder beneath such a mount, usually empty, and what it writes there lands in the room.
    public var hiddenMounts: [String]
    /// What `statvfs` reported available inside (`f_bavail * f_frsize`): the room, rounded up
    /// to a block.
    public var availableBytes: Int64
    /// What `statvfs` reported in all (`f_blocks * f_frsize`): the room for tmpfs; for ext4 also
    /// its metadata and the fill that takes the rest of the image.
    public var totalBytes: Int64
    /// `f_frsize`: the precision of the figures.
    public var blockSizeBytes: Int64
    /// The inodes left for the command (`f_favail`).
    public var availableInodeCount: Int64
    /// Whether the room is in a user namespace of its own (an ordinary user), rather than in a
    /// mount namespace alone (root).
    public var isUserNamespace: Bool
}

/// What happened to a command run in a room: how it ended, whether space dropped while it ran,
/// and what was kept of its writes.
public struct RoomReport: Sendable {
    /// How a process ended. A closed set: a process exits or a signal ends it.
    public enum Ending: Sendable, Hashable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// This signal ended it.
        case signalled(Signal)

        /// `exited(0)`, `signalled(SIGTERM)`.
        public var description: String {
            switch self {
            case .exited(let status): "exited(\(status))"
            case .signalled(let signal): "signalled(\(signal))"
            }
        }

        /// How the platform saw the process end.
        init(_ ending: ProcessEnding) {
            switch ending {
            case .exited(let status): self = .exited(status)
            case .signalled(let signal): self = .signalled(signal)
            }
        }
    }

    /// The room as made.
    public let room: Room
    /// How the command ended.
    public let ending: Ending
    /// The drop, when the plan had one and it happened before the command ended.
    public let drop: RoomDrop?
    /// Why the plan's drop did not happen, when it failed (the command ran on without it).
    public let dropError: StowageError?
    /// What was copied to the plan's keep folder.
    public let kept: KeptWrites?
    /// Why the copy to the keep folder failed (what was copied until then stays).
    public let keepError: StowageError?
}

/// A drop of a room's space while its command ran (``RoomPlan/Drop``).
public struct RoomDrop: Sendable, Hashable, Codable {
    /// When the drop was made.
    public var date: Date
    /// Available bytes inside just before the drop.
    public var availableBytesBefore: Int64
    /// Available bytes inside just after it: the drop's target, within a block (or less, when
    /// the command had already used more).
    public var availableBytesAfter: Int64
}

/// What the command wrote, copied from the room's layer to the keep folder after it ended.
public struct KeptWrites: Sendable, Hashable, Codable {
    /// The keep folder; each covered folder's writes are under its absolute path in it.
    public var folder: String
    /// Files copied.
    public var fileCount: Int
    /// Folders copied, including those overlayfs copied up around a written file.
    public var folderCount: Int
    /// Symbolic links copied (as links).
    public var symbolicLinkCount: Int
    /// The bytes of the files copied (`st_size`): a sparse file counts its whole length.
    public var copiedBytes: Int64
    /// The bytes the files copied take on disk (`st_blocks × 512` in the room; a sparse file is
    /// kept sparse, so its copy takes as much): what the command line reports.
    public var allocatedBytes: Int64 = 0
    /// Real items the command removed (overlayfs whiteouts), as absolute paths: nothing is
    /// copied for them.
    public var removedPaths: [String]
    /// Devices, sockets and pipes the command made, as absolute paths: not copied.
    public var skippedPaths: [String]
    /// Items the command wrote that could not be read or copied, each with the reason (the
    /// rest were copied; ``RoomReport/keepError`` then says how many).
    public var notCopied: [NotCopied] = []

    /// An item of the command's writes that is not in the keep folder.
    public struct NotCopied: Sendable, Hashable, Codable {
        /// Its absolute path in the room, exactly (it need not be UTF-8).
        public let pathBytes: [UInt8]
        /// Why, in words: `openat failed: permission denied`, or that it is a device.
        public let reason: String

        /// Its path as text (bytes that are not UTF-8 as U+FFFD; ``pathBytes`` is exact).
        public var path: String { String(decoding: pathBytes, as: UTF8.self) }

        /// Creates an entry.
        public init(pathBytes: [UInt8], reason: String) {
            self.pathBytes = pathBytes
            self.reason = reason
        }
    }
}

extension StowageError {
    /// Why a room's command could not be started, when that is what this error says.
    public enum CommandStartFailure: Sendable, Hashable {
        /// No program of that name (``Code/notFound``): shells and `env` exit with 127.
        case notFound
        /// The program was found but could not be run (no permission, not an executable): 126.
        case cannotRun
    }

    /// Why ``RoomProcess`` could not start its command (`execve` failed), or `nil` for any
    /// other failure: what a tool that passes a command's ending through maps to 127 and 126.
    public var commandStartFailure: CommandStartFailure? {
        guard systemCall == "execve" else { return nil }
        return code == .notFound ? .notFound : .cannotRun
    }
}
