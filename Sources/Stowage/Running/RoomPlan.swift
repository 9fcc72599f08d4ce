import Foundation

/// How much room a command gets, over which folders, and on what kind of layer: what
/// ``RoomProcess`` makes.
///
/// A room is a private mount namespace in which the folders are covered by an overlay whose
/// writable layer is a file system of exactly the room's size. The command reads the real
/// files; what it writes lands in the layer, until the layer is full and `write(2)` fails with
/// `ENOSPC`, from the kernel; `statvfs` and `df` inside report the room. Nothing on the host
/// changes, and the layer is gone when the command's processes end.
///
/// ```swift
/// let plan = RoomPlan(available: .bytes(5_000_000), over: [URL(filePath: "/home/me/project")])
/// let report = try RoomProcess.start(plan, command: ["swift", "test"]).wait()
/// print(report.ending)  // exited(1): a test met the full disk
/// ```
public struct RoomPlan: Sendable, Hashable {
    /// A size for ``RoomPlan/available`` and ``Drop/available``: bytes, or a percentage of the
    /// total of the real volume holding the first folder.
    public struct Size: Sendable, Hashable, CustomStringConvertible {
        enum Kind: Sendable, Hashable {
            case bytes(Int64)
            case percent(Double)
        }

        let kind: Kind

        /// This many bytes (rounded up to the layer's block, 4 KiB).
        public static func bytes(_ count: Int64) -> Size { Size(kind: .bytes(count)) }

        /// This percentage (0...100) of the total of the real volume holding the first folder.
        public static func percentOfVolume(_ percent: Double) -> Size { Size(kind: .percent(percent)) }

        /// A size in the size grammar of ``ByteCount/init(parsing:percentOf:)`` (`20MB`, `1.5GiB`, `0`) or a
        /// percentage (`1%`).
        ///
        /// - Throws: ``StowageError/Code/invalidArgument`` naming what is wrong with `text`, and
        ///   for a size above ``RoomPlan/largestAvailableBytes``.
        public init(parsing text: String) throws {
            if let percent = try ByteCount.percentage(parsing: text) {
                kind = .percent(percent)
            } else {
                kind = .bytes(try RoomPlan.checkedRoom(bytes: ByteCount(parsing: text).bytes))
            }
        }

        private init(kind: Kind) { self.kind = kind }

        /// `5 MB` or `1%`.
        public var description: String {
            switch kind {
            case .bytes(let bytes): ByteCount(bytes).formatted()
            case .percent(let percent): "\(percent.formatted(.number.precision(.fractionLength(0...2))))%"
            }
        }

        /// The bytes this size stands for on a volume of `total` bytes.
        ///
        /// - Throws: ``StowageError/Code/invalidArgument`` for a percentage outside 0...100.
        func bytes(ofVolumeTotal total: () throws -> Int64) throws -> Int64 {
            switch kind {
            case .bytes(let bytes):
                return bytes
            case .percent(let percent):
                guard percent.isFinite, (0...100).contains(percent) else {
                    throw StowageError(.invalidArgument, operation: .run, reason: "a percentage must be between 0 and 100, not \(percent)")
                }
                return Int64((Double(try total()) * percent / 100).rounded(.down))
            }
        }
    }

    /// The file system of the room's layer.
    public struct FileSystem: Sendable, Hashable, CustomStringConvertible {
        /// Its name, as `mount -t` takes it.
        public let name: String

        /// tmpfs (the default): instant, held in memory, sized to the byte (rounded up to a page).
        public static let tmpfs = FileSystem(known: "tmpfs")
        /// ext4 in an image on a loop device (root only): ext4's own block allocation, metadata
        /// and `ENOSPC`, for code that depends on them. The image is an unnamed file in the
        /// temporary folder, reserved whole before the command starts and freed when it ends.
        public static let ext4 = FileSystem(known: "ext4")

        /// Every file system a room can use.
        public static let all: [FileSystem] = [.tmpfs, .ext4]

        /// The file system called `name`, or `nil`.
        public init?(name: String) {
            guard let known = Self.all.first(where: { $0.name == name }) else { return nil }
            self = known
        }

        private init(known name: String) { self.name = name }

        /// The name.
        public var description: String { name }
    }

    /// Space running out while the command runs: after ``delay``, the layer is filled (out of
    /// the command's sight) until only ``available`` remains.
    public struct Drop: Sendable, Hashable {
        /// What remains available after the drop; less than the room.
        public var available: Size
        /// How long after the command starts the drop happens.
        public var delay: Duration

        /// A drop to `available` bytes `delay` after the command starts.
        public init(to available: Size, after delay: Duration) {
            self.available = available
            self.delay = delay
        }
    }

    /// The largest room, in bytes: 1 EiB (2^60), more than any volume holds, and far enough from
    /// the end of `Int64` that what a layer adds to a room (block rounding, an ext4 image's
    /// metadata) cannot overflow. A larger room (or range end, or drop) is
    /// ``StowageError/Code/invalidArgument``.
    public static let largestAvailableBytes: Int64 = 1 << 60

    /// The most free inodes a room's layer can have: 4,000,000,000, below ext4's own limit of
    /// 2^32 - 1 inodes with the layer's own few. More is ``StowageError/Code/invalidArgument``.
    public static let largestAvailableInodes: Int64 = 4_000_000_000

    /// `bytes`, if a room can have that many (``largestAvailableBytes``).
    package static func checkedRoom(bytes: Int64) throws -> Int64 {
        guard bytes <= largestAvailableBytes else {
            throw StowageError(.invalidArgument, operation: .run,
                               reason: "\(bytes) bytes is more than the largest room, \(ByteCount(largestAvailableBytes).formatted(.binary)) "
                                   + "(\(largestAvailableBytes) bytes)")
        }
        return bytes
    }

    /// `inodes`, if a room's layer can have that many free (``largestAvailableInodes``).
    package static func checkedRoom(inodes: Int64) throws -> Int64 {
        guard inodes <= largestAvailableInodes else {
            throw StowageError(.invalidArgument, operation: .run,
                               reason: "\(inodes) inodes is more than a room's layer can have free, \(largestAvailableInodes)")
        }
        return inodes
    }

    /// The room: what `statvfs` reports available inside when the command starts (at most
    /// ``largestAvailableBytes``).
    public var available: Size
    /// The folders whose writes land in the room (and share it). A folder inside another is
    /// covered by the outer one; mounts inside a folder get overlays of their own.
    public var folders: [URL]
    /// The layer's file system.
    public var fileSystem: FileSystem
    /// When set, the layer has exactly this many free inodes (at most
    /// ``largestAvailableInodes``): creating a file, folder or link, copying one up, or removing
    /// a real one (a whiteout) takes one.
    public var availableInodes: Int64?
    /// When set, space runs out while the command runs.
    public var drop: Drop?
    /// When set, what the command wrote (the layer's upper folders) is copied here after it
    /// ends, under each folder's absolute path (`keep/home/me/...`); the folder must be empty
    /// or missing, and outside the covered folders (the copy would be written into a real one).
    public var keepFolder: URL?

    /// A plan; see the properties for each parameter.
    public init(available: Size, over folders: [URL], fileSystem: FileSystem = .tmpfs, availableInodes: Int64? = nil,
                drop: Drop? = nil, keepingWritesIn keepFolder: URL? = nil) {
        self.available = available
        self.folders = folders
        self.fileSystem = fileSystem
        self.availableInodes = availableInodes
        self.drop = drop
        self.keepFolder = keepFolder
    }

    /// The folders a room covers when none are named: with a container, the folders of its
    /// locations (Documents, Application Support, Caches, Preferences, tmp), each replaced by its
    /// nearest existing ancestor when it does not exist yet (a room lays over what exists, and
    /// the location is made inside it); without one, the home folder (`$HOME`, else the user's
    /// entry in the password database) and the temporary folder (`$TMPDIR`, else `/tmp`), as
    /// the default container finds them.
    ///
    /// ```swift
    /// let folders = try RoomPlan.defaultFolders(for: Container(root: URL(filePath: "/tmp/demo")))
    /// ```
    ///
    /// - Parameters:
    ///   - container: The app's container, or `nil` for the home and temporary folders.
    ///   - environment: The variables to read `HOME` and `TMPDIR` from; `nil` (the default)
    ///     reads this process's, as bytes.
    /// - Throws: as ``Container/url(for:)``; ``StowageError/Code/invalidArgument`` when there is
    ///   no home folder, or when `HOME` or `TMPDIR` is not UTF-8.
    public static func defaultFolders(for container: Container?, environment: [String: String]? = nil) throws -> [URL] {
        guard let container else {
            let environment = try environment ?? ProcessEnvironment.values(of: ["HOME", "TMPDIR"])
            return [URL(filePath: try Container.homeFolder(environment: environment, operation: .run), directoryHint: .isDirectory),
                    URL(filePath: Container.temporaryBase(environment: environment), directoryHint: .isDirectory)]
        }
        var folders: [URL] = []
        for location in [Location.documents, .applicationSupport, .caches, .preferences, .temporary] {
            var folder = try container.url(for: location)
            while folder.fileSystemPath != "/", (try? Sys.lstat(folder.fileSystemPath)) == nil {  // missing (or unreadable): look above
                folder = folder.deletingLastPathComponent()
            }
            if !folders.contains(folder) { folders.append(folder) }
        }
        return folders
    }
}

extension StowageError.Operation {
    /// Running a command in a room (``RoomProcess``).
    public static let run = StowageError.Operation("run")
}
