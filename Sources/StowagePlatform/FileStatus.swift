#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Stowage's Platform layer supports Darwin, Glibc and Musl systems")
#endif

/// What `stat(2)` says about an item, in platform-neutral form.
package struct FileStatus: Sendable, Equatable {
    /// The kinds of item a folder entry can be.
    package enum Kind: Sendable, Equatable {
        case file, folder, symbolicLink, other
    }

    package var kind: Kind

    /// The kinds of special file (``Kind/other``), for messages that name them.
    package enum Special: String, Sendable, Equatable {
        case fifo = "a FIFO", socket = "a socket", characterDevice = "a character device", blockDevice = "a block device"
    }

    /// Which special file this is, when ``kind`` is ``Kind/other``.
    package var special: Special?
    /// `st_size`: the logical size in bytes.
    package var size: Int64
    /// `st_blocks * 512`: the bytes allocated on disk.
    package var allocatedSize: Int64
    /// The permission bits (`st_mode & 0o7777`).
    package var permissions: UInt32
    package var userID: UInt32
    package var groupID: UInt32 = 0
    package var device: UInt64
    package var inode: UInt64
    package var linkCount: UInt64
    /// Modification time, seconds since 1970.
    package var modificationTime: Double
    /// The whole seconds of the modification time (`tv_sec`), exactly: ``modificationTime``
    /// rounded down can be a second more, when the nanoseconds are below a `Double`'s precision at
    /// that many seconds (999,999,999 ns at 1.7e9 s rounds up to the next second).
    package var modificationWholeSeconds: Int64
    /// Access time, seconds since 1970.
    package var accessTime: Double

    /// Whether this is an overlayfs whiteout (a character device numbered 0:0): the mark an
    /// overlay's upper folder keeps for an item removed from the folder below.
    package var isWhiteout = false

    package var isFolder: Bool { kind == .folder }
    package var isFile: Bool { kind == .file }

    package init(kind: Kind, special: Special? = nil, size: Int64, allocatedSize: Int64, permissions: UInt32, userID: UInt32,
                 groupID: UInt32 = 0, device: UInt64, inode: UInt64, linkCount: UInt64, modificationTime: Double,
                 modificationWholeSeconds: Int64? = nil, accessTime: Double) {
        self.kind = kind
        self.special = special
        self.size = size
        self.allocatedSize = allocatedSize
        self.permissions = permissions
        self.userID = userID
        self.groupID = groupID
        self.device = device
        self.inode = inode
        self.linkCount = linkCount
        self.modificationTime = modificationTime
        self.modificationWholeSeconds = modificationWholeSeconds ?? Int64(exactly: modificationTime.rounded(.down)) ?? .min
        self.accessTime = accessTime
    }
}

extension FileStatus {
    /// The status `stat(2)` filled in: one conversion for every platform (the fields whose names
    /// or types differ come from `stat`'s extension in `FileStatus+Linux` and `+Darwin`).
    @inline(__always)
    package init(_ status: stat) {
        (kind, special) = Self.kind(ofMode: status.st_mode)
        size = Int64(status.st_size)
        allocatedSize = Int64(status.st_blocks) * 512
        permissions = UInt32(status.st_mode & 0o7777)
        userID = UInt32(status.st_uid)
        groupID = UInt32(status.st_gid)
        device = status.deviceNumber
        inode = UInt64(status.st_ino)
        linkCount = UInt64(status.st_nlink)
        modificationTime = status.modificationSeconds
        modificationWholeSeconds = status.modificationWholeSeconds
        accessTime = status.accessSeconds
        isWhiteout = status.isOverlayWhiteout
    }
}
