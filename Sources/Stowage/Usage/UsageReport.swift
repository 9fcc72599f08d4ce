/// What a usage scan found: sizes, counts, the largest files, a breakdown, and the problems met.
///
/// Sizes come from `lstat`: ``logicalBytes`` sums `st_size` (what `du -b` prints) and
/// ``allocatedBytes`` sums `st_blocks * 512` (what `du -B1` prints). Folders count with their own
/// size, as in `du`. A file with several hard links counts once, under the first name met.
public struct UsageReport: Sendable, Hashable, Codable {
    /// Totals of each root, in the order given.
    public var roots: [UsageTotals]
    /// Totals of all roots together (a file hard-linked into two roots counts once).
    public var total: UsageTotals
    /// Names skipped because their file was already counted under another hard link.
    public var hardLinksCountedOnce: Int
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
    public var wasCancelled = false

    /// The logical bytes of all roots.
    public var logicalBytes: Int64 { total.logicalBytes }
    /// The allocated bytes of all roots.
    public var allocatedBytes: Int64 { total.allocatedBytes }
}

extension UsageReport {
    private enum CodingKeys: String, CodingKey {
        case roots, total, largestFiles, breakdown, issues, wasCancelled
        case hardLinksCountedOnce = "skippedHardLinkCount"
    }

    /// Decodes what ``encode(to:)`` wrote; `wasCancelled` is `false` when absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        roots = try container.decode([UsageTotals].self, forKey: .roots)
        total = try container.decode(UsageTotals.self, forKey: .total)
        hardLinksCountedOnce = try container.decode(Int.self, forKey: .hardLinksCountedOnce)
        largestFiles = try container.decode([UsageItem].self, forKey: .largestFiles)
        breakdown = try container.decode([UsageItem].self, forKey: .breakdown)
        issues = try container.decode([UsageIssue].self, forKey: .issues)
        wasCancelled = try container.decodeIfPresent(Bool.self, forKey: .wasCancelled) ?? false
    }

    /// Encodes every field, and `wasCancelled` only when it is `true`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(roots, forKey: .roots)
        try container.encode(total, forKey: .total)
        try container.encode(hardLinksCountedOnce, forKey: .hardLinksCountedOnce)
        try container.encode(largestFiles, forKey: .largestFiles)
        try container.encode(breakdown, forKey: .breakdown)
        try container.encode(issues, forKey: .issues)
        if wasCancelled { try container.encode(true, forKey: .wasCancelled) }
    }
}

/// Sizes and counts of a tree.
public struct UsageTotals: Sendable, Hashable, Codable {
    /// The root's path, or `nil` for a sum over several roots.
    public var path: String?
    /// Sum of `st_size`.
    public var logicalBytes: Int64 = 0
    /// Sum of `st_blocks * 512`.
    public var allocatedBytes: Int64 = 0
    /// Regular files.
    public var files = 0
    /// Folders, the root included.
    public var folders = 0
    /// Symbolic links (counted, never followed unless asked).
    public var symbolicLinks = 0
    /// Devices, sockets and pipes.
    public var others = 0

    /// Empty totals for `path`.
    public init(path: String? = nil) { self.path = path }

    /// The JSON names, in the vocabulary of every Stowage report: counts end in `Count`.
    private enum CodingKeys: String, CodingKey {
        case path, logicalBytes, allocatedBytes
        case files = "fileCount", folders = "folderCount", symbolicLinks = "symbolicLinkCount", others = "otherCount"
    }

    /// Encodes every field; `path` is `null` for a sum over several roots.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        try container.encode(logicalBytes, forKey: .logicalBytes)
        try container.encode(allocatedBytes, forKey: .allocatedBytes)
        try container.encode(files, forKey: .files)
        try container.encode(folders, forKey: .folders)
        try container.encode(symbolicLinks, forKey: .symbolicLinks)
        try container.encode(others, forKey: .others)
    }

    mutating func add(_ status: FileStatus) {
        logicalBytes += status.size
        allocatedBytes += status.allocatedSize
        switch status.kind {
        case .file: files += 1
        case .folder: folders += 1
        case .symbolicLink: symbolicLinks += 1
        case .other: others += 1
        }
    }

    mutating func add(_ other: UsageTotals) {
        logicalBytes += other.logicalBytes
        allocatedBytes += other.allocatedBytes
        files += other.files
        folders += other.folders
        symbolicLinks += other.symbolicLinks
        others += other.others
    }
}

/// One file or folder in a report.
public struct UsageItem: Sendable, Hashable, Codable {
    /// The full path.
    public var path: String
    /// How many levels below its root it is (1 for a root's direct children).
    public var depth: Int
    /// Whether it is a folder (with totals of its contents) or a single item.
    public var isFolder: Bool
    /// Logical bytes (of everything inside, for a folder).
    public var logicalBytes: Int64
    /// Allocated bytes (of everything inside, for a folder).
    public var allocatedBytes: Int64
    /// Files inside (1 for a file).
    public var files: Int

    /// The JSON names, in the vocabulary of every Stowage report: counts end in `Count`.
    private enum CodingKeys: String, CodingKey {
        case path, depth, isFolder, logicalBytes, allocatedBytes
        case files = "fileCount"
    }
}

/// A problem met during a scan: the path and the system's error.
public struct UsageIssue: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Where it happened.
    public var path: String
    /// The `errno` value.
    public var errno: Int32
    /// What happened, such as `permission denied; its contents were skipped`.
    public var message: String

    /// `path: message`.
    public var description: String { "\(path): \(message)" }
}

extension UsageIssue {
    /// The issue of `error` at `path`: a system call's `errno` and its description, or any
    /// other error's text with `errno` 0.
    init(path: String, error: any Error) {
        if let error = error as? SystemCallError {
            self.init(path: path, errno: error.errno.rawValue, message: error.errno.description)
        } else {
            self.init(path: path, errno: 0, message: String(describing: error))
        }
    }
}

/// How far a running scan has come, as the deprecated `scan(_:progressInterval:progress:)` with a
/// `UsageProgress` handler reports it; scans now report a ``WorkProgress``, as fills and sweeps do.
public struct UsageProgress: Sendable, Hashable {
    /// Entries examined so far.
    public var entries: Int
    /// Allocated bytes counted so far.
    public var allocatedBytes: Int64
    /// Folders waiting to be read.
    public var pendingFolders: Int
}
