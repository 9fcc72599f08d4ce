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
    public var wasCancelled = false

    /// The logical bytes of all roots.
    public var logicalBytes: Int64 { totals.logicalBytes }
    /// The allocated bytes of all roots.
    public var allocatedBytes: Int64 { totals.allocatedBytes }
}

extension UsageReport {
    /// The JSON names: the properties' own.
    private enum CodingKeys: String, CodingKey {
        case roots, totals, skippedHardLinkCount, largestFiles, breakdown, issues, wasCancelled
    }

    /// Decodes what ``encode(to:)`` wrote; `wasCancelled` is `false` when absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        roots = try container.decode([UsageTotals].self, forKey: .roots)
        totals = try container.decode(UsageTotals.self, forKey: .totals)
        skippedHardLinkCount = try container.decode(Int.self, forKey: .skippedHardLinkCount)
        largestFiles = try container.decode([UsageItem].self, forKey: .largestFiles)
        breakdown = try container.decode([UsageItem].self, forKey: .breakdown)
        issues = try container.decode([UsageIssue].self, forKey: .issues)
        wasCancelled = try container.decodeFlag(forKey: .wasCancelled)
    }

    /// Encodes every property under its own name, and `wasCancelled` only when it is `true`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(roots, forKey: .roots)
        try container.encode(totals, forKey: .totals)
        try container.encode(skippedHardLinkCount, forKey: .skippedHardLinkCount)
        try container.encode(largestFiles, forKey: .largestFiles)
        try container.encode(breakdown, forKey: .breakdown)
        try container.encode(issues, forKey: .issues)
        try container.encodeIfTrue(wasCancelled, forKey: .wasCancelled)
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
    public var alreadyCountedIn: String?

    /// Empty totals for `path`.
    public init(path: String? = nil) { self.path = path }

    /// Encodes every property under its own name; `path` is `null` for a sum over several
    /// roots, `alreadyCountedIn` `null` unless an earlier root counted this one.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        try container.encode(logicalBytes, forKey: .logicalBytes)
        try container.encode(allocatedBytes, forKey: .allocatedBytes)
        try container.encode(fileCount, forKey: .fileCount)
        try container.encode(folderCount, forKey: .folderCount)
        try container.encode(symbolicLinkCount, forKey: .symbolicLinkCount)
        try container.encode(otherCount, forKey: .otherCount)
        try container.encode(alreadyCountedIn, forKey: .alreadyCountedIn)
    }

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
    /// The full path, byte for byte.
    public var pathBytes: [UInt8]
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

    /// An item at the path spelled by the bytes `pathBytes`.
    init(pathBytes: [UInt8], depth: Int, isFolder: Bool, logicalBytes: Int64, allocatedBytes: Int64, fileCount: Int) {
        path = ReportedPath.text(pathBytes)
        self.pathBytes = pathBytes
        self.depth = depth
        self.isFolder = isFolder
        self.logicalBytes = logicalBytes
        self.allocatedBytes = allocatedBytes
        self.fileCount = fileCount
    }

    /// An item at `path` (its UTF-8 bytes).
    init(path: String, depth: Int, isFolder: Bool, logicalBytes: Int64, allocatedBytes: Int64, fileCount: Int) {
        self.init(pathBytes: Array(path.utf8), depth: depth, isFolder: isFolder, logicalBytes: logicalBytes,
                  allocatedBytes: allocatedBytes, fileCount: fileCount)
    }

    /// The JSON names: the properties' own, ``pathBytes`` written as `pathBase64` (see ``ReportedPath``).
    private enum CodingKeys: String, CodingKey {
        case path, pathBase64, depth, isFolder, logicalBytes, allocatedBytes, fileCount
    }

    /// Encodes every property under its own name, and `pathBase64` only when the path is not UTF-8.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try ReportedPath.encode(text: path, bytes: pathBytes, path: .path, base64: .pathBase64, into: &container)
        try container.encode(depth, forKey: .depth)
        try container.encode(isFolder, forKey: .isFolder)
        try container.encode(logicalBytes, forKey: .logicalBytes)
        try container.encode(allocatedBytes, forKey: .allocatedBytes)
        try container.encode(fileCount, forKey: .fileCount)
    }

    /// Decodes what ``encode(to:)`` wrote.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        (path, pathBytes) = try ReportedPath.decode(path: .path, base64: .pathBase64, from: container)
        depth = try container.decode(Int.self, forKey: .depth)
        isFolder = try container.decode(Bool.self, forKey: .isFolder)
        logicalBytes = try container.decode(Int64.self, forKey: .logicalBytes)
        allocatedBytes = try container.decode(Int64.self, forKey: .allocatedBytes)
        fileCount = try container.decode(Int.self, forKey: .fileCount)
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
