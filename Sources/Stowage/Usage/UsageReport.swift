import Foundation

/// What a usage scan found: sizes, counts, the largest files, a breakdown, and the problems met.
///
/// Sizes come from `lstat`: ``logicalBytes`` sums `st_size` (what `du -b` prints) and
/// ``allocatedBytes`` sums `st_blocks * 512` (what `du -B1` prints). Folders count with their own
/// size, as in `du`. A file with several hard links counts once, under the first name met.
public struct UsageReport: Sendable, Hashable, Codable {
    /// Totals of each root, in the order given. Roots that overlap share nothing: what one
    /// holds counts under the first root that met it (as in `du`), and a root counted whole by an
    /// earlier one has zero figures and ``UsageTotals/alreadyCountedIn`` set.
    public var roots: [UsageTotals]
    /// Totals of all roots together: each folder and file once (a file hard-linked into two
    /// roots, or a folder inside two roots given, counts once). ``LocationUsage/totals`` are
    /// the same figures for one location's folder.
    public var totals: UsageTotals
    /// Names skipped because their file was already counted under another hard link.
    public var skippedHardLinkCount: Int
    /// The largest files, largest first (by allocated bytes, or by logical bytes when the scan
    /// ranked by ``UsageOptions/ranksByLogicalSize``).
    public var largestFiles: [UsageItem]
    /// Every item down to ``UsageOptions/breakdownDepth`` below the roots, with the totals of
    /// everything inside it, largest first.
    public var breakdown: [UsageItem]
    /// Folders that could not be read (skipped) and other problems; a scan never stops for them.
    public var issues: [UsageIssue]
    /// Whether the scan was cancelled before it finished: the figures then cover only what was
    /// read until then (see "Long-running work" in the README).
    ///
    /// ```swift
    /// let report = try await UsageScanner().scan([cachesURL])
    /// if !report.wasCancelled { cacheLabel = ByteCount(report.allocatedBytes).formatted() }
    /// ```
    ///
    /// Encoded only when `true` (as `wasCancelled`), so a complete report's JSON is unchanged.
    @OmittedWhenFalse public var wasCancelled = false

    /// The logical bytes of all roots.
    public var logicalBytes: Int64 { totals.logicalBytes }
    /// The allocated bytes of all roots.
    public var allocatedBytes: Int64 { totals.allocatedBytes }
}


/// Sizes and counts of a tree.
public struct UsageTotals: Sendable, Hashable, Codable {
    /// The root's path, or `nil` for a sum over several roots (`null` in JSON).
    @NullWhenAbsent public var path: String?
    /// Sum of `st_size`.
    public var logicalBytes: Int64 = 0
    /// Sum of `st_blocks * 512`.
    public var allocatedBytes: Int64 = 0
    /// Regular files.
    public var fileCount = 0
    /// Folders, the root included.
    public var folderCount = 0
    /// Symbolic links (counted, never followed unless asked).
    public var symbolicLinkCount = 0
    /// Devices, sockets and pipes.
    public var otherCount = 0
    /// For a root that an earlier root of the same scan already counted whole (it lies inside
    /// that root, or is that root given again): the earlier root's path. Its figures are then
    /// zero, and `du`, which counts everything once across its arguments, prints no line for it.
    /// `nil` otherwise, and for a sum.
    ///
    /// ```swift
    /// let report = UsageScanner().scan([photos, photos.appending(path: "2024")])
    /// report.roots[1].alreadyCountedIn  // photos' path: 2024 is counted once, under photos
    /// ```
    @NullWhenAbsent public var alreadyCountedIn: String?

    /// Empty totals for `path`.
    public init(path: String? = nil) { self.path = path }

    mutating func add(_ status: FileStatus) {
        logicalBytes += status.size
        allocatedBytes += status.allocatedSize
        switch status.kind {
        case .file: fileCount += 1
        case .folder: folderCount += 1
        case .symbolicLink: symbolicLinkCount += 1
        case .other: otherCount += 1
        }
    }

    mutating func add(_ other: UsageTotals) {
        logicalBytes += other.logicalBytes
        allocatedBytes += other.allocatedBytes
        fileCount += other.fileCount
        folderCount += other.folderCount
        symbolicLinkCount += other.symbolicLinkCount
        otherCount += other.otherCount
    }
}

/// One file or folder in a report.
///
/// Names are bytes on disk and need not be UTF-8. ``path`` is text, with U+FFFD for bytes that
/// are not UTF-8; ``pathBytes`` is exact. In JSON, `path` is that text and, only when it is not
/// exact, `pathBase64` holds the exact bytes in Base64.
public struct UsageItem: Sendable, Hashable, Codable {
    /// The full path, as text (see ``pathBytes`` for the exact bytes).
    public var path: String
    /// The full path, byte for byte (`pathBase64` in JSON, only when it is not UTF-8).
    @Base64WhenNotUTF8 public var pathBytes: [UInt8]
    /// How many levels below its root it is (1 for a root's direct children).
    public var depth: Int
    /// Whether it is a folder (with totals of its contents) or a single item.
    public var isFolder: Bool
    /// Logical bytes (of everything inside, for a folder).
    public var logicalBytes: Int64
    /// Allocated bytes (of everything inside, for a folder).
    public var allocatedBytes: Int64
    /// Files inside (1 for a file).
    public var fileCount: Int
    /// When the file or folder itself was last modified, in whole seconds (`st_mtime`; for a folder, when an entry
    /// was last added, removed or renamed in it, not the newest time inside), for the items of
    /// the breakdown; `nil` for a root's and the largest files' items, and in JSON written
    /// before it was recorded. In JSON only when known.
    public var modificationDate: Date?
    /// For a file with several hard links (`st_nlink` above 1): its identity and link count,
    /// which a saved scan carries (ncdu's `dev`, `ino`, `nlink` and `hlnkc`) so that a reader
    /// counts the file once; `nil` for everything else. In JSON only when set.
    public var hardLink: UsageHardLink?

    /// An item at the path spelled by the bytes `pathBytes`.
    init(pathBytes: [UInt8], depth: Int, isFolder: Bool, logicalBytes: Int64, allocatedBytes: Int64, fileCount: Int,
         modificationDate: Date? = nil, hardLink: UsageHardLink? = nil) {
        self.hardLink = hardLink
        path = ReportedPath.text(pathBytes)
        self.pathBytes = pathBytes
        self.depth = depth
        self.isFolder = isFolder
        self.logicalBytes = logicalBytes
        self.allocatedBytes = allocatedBytes
        self.fileCount = fileCount
        self.modificationDate = modificationDate
    }

    /// An item at `path` (its UTF-8 bytes).
    init(path: String, depth: Int, isFolder: Bool, logicalBytes: Int64, allocatedBytes: Int64, fileCount: Int) {
        self.init(pathBytes: Array(path.utf8), depth: depth, isFolder: isFolder, logicalBytes: logicalBytes,
                  allocatedBytes: allocatedBytes, fileCount: fileCount)
    }

    /// The JSON names: the properties' own, ``pathBytes`` written as `pathBase64` (see ``ReportedPath``).
    private enum CodingKeys: String, CodingKey {
        case path, pathBytes = "pathBase64", depth, isFolder, logicalBytes, allocatedBytes, fileCount, modificationDate, hardLink
    }
}

/// The identity of a file with several hard links: what tells two of its names apart from two
/// files (see ``UsageItem/hardLink``).
public struct UsageHardLink: Sendable, Hashable, Codable {
    /// The device it is on (`st_dev`).
    public var device: UInt64
    /// Its inode number (`st_ino`).
    public var inode: UInt64
    /// Its names (`st_nlink`), when the scan made knows; `nil` when a saved scan did not say.
    public var linkCount: UInt64?

    /// The identity `device` and `inode`, with `linkCount` names.
    public init(device: UInt64, inode: UInt64, linkCount: UInt64?) {
        self.device = device
        self.inode = inode
        self.linkCount = linkCount
    }
}

extension UsageIssue {
    /// The issue of `error` at `path`: a system call's `errno` and its description, or any
    /// other error's text with no `errno`.
    init(path: String, error: any Error) {
        self.init(pathBytes: Array(path.utf8), error: error)
    }

    /// The issue of `error` at the path spelled by `pathBytes`.
    init(pathBytes: [UInt8], error: any Error) {
        if let error = error as? SystemCallError {
            self.init(pathBytes: pathBytes, errno: error.errno, message: error.errno.description)
        } else {
            self.init(pathBytes: pathBytes, errno: nil, message: String(describing: error))
        }
    }
}

extension UsageHardLink {
    /// The identity of the file of `status` when it has several hard links; `nil` otherwise.
    init?(_ status: FileStatus) {
        guard status.kind == .file, status.linkCount > 1 else { return nil }
        self.init(device: status.device, inode: status.inode, linkCount: status.linkCount)
    }
}
