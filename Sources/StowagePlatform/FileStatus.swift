/// What `stat(2)` says about an item, in platform-neutral form.
struct FileStatus: Sendable, Equatable {
    /// The kinds of item a folder entry can be.
    enum Kind: Sendable, Equatable {
        case file, folder, symbolicLink, other
    }

    var kind: Kind

    /// The kinds of special file (``Kind/other``), for messages that name them.
    enum Special: String, Sendable, Equatable {
        case fifo = "a FIFO", socket = "a socket", characterDevice = "a character device", blockDevice = "a block device"
    }

    /// Which special file this is, when ``kind`` is ``Kind/other``.
    var special: Special?
    /// `st_size`: the logical size in bytes.
    var size: Int64
    /// `st_blocks * 512`: the bytes allocated on disk.
    var allocatedSize: Int64
    /// The permission bits (`st_mode & 0o7777`).
    var permissions: UInt32
    var userID: UInt32
    var groupID: UInt32 = 0
    var device: UInt64
    var inode: UInt64
    var linkCount: UInt64
    /// Modification time, seconds since 1970.
    var modificationTime: Double
    /// Access time, seconds since 1970.
    var accessTime: Double

    /// Whether this is an overlayfs whiteout (a character device numbered 0:0): the mark an
    /// overlay's upper folder keeps for an item removed from the folder below.
    var isWhiteout = false

    var isFolder: Bool { kind == .folder }
    var isFile: Bool { kind == .file }
}
