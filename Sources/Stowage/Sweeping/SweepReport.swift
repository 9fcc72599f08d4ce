import Foundation

/// What a sweep removed, or would remove in a dry run. A dry run and the real run that follows
/// it report the same files.
public struct SweepReport: Sendable, Hashable, Codable {
    /// The folder swept.
    public var folder: String
    /// Whether nothing was actually removed.
    public var dryRun: Bool
    /// Every file removed (or that would be), by path below the folder.
    public var removed: [SweptFile]
    /// Folders removed because the sweep emptied them, by path below the folder.
    public var removedFolders: [String]
    /// Logical bytes freed.
    public var freedLogicalBytes: Int64
    /// Allocated bytes freed.
    public var freedAllocatedBytes: Int64
    /// Files left in place.
    public var keptFiles: Int
    /// Allocated bytes of the files left in place.
    public var keptAllocatedBytes: Int64
    /// Files a limit would have removed but that are pinned.
    public var pinnedFiles: Int
    /// Problems met: files changed since they were chosen (kept), folders that could not be read.
    public var issues: [UsageIssue]
}

/// One file a sweep removed.
public struct SweptFile: Sendable, Hashable, Codable {
    /// The path below the swept folder.
    public var path: String
    /// Its logical size.
    public var logicalBytes: Int64
    /// Its allocated size.
    public var allocatedBytes: Int64
    /// Its last recorded access.
    public var lastAccess: Date
    /// Its last modification.
    public var lastModification: Date
    /// Why it was removed.
    public var reason: SweepReason
}

/// When a folder was last swept, for callers that throttle sweeps.
public struct SweepRecord: Sendable, Hashable, Codable {
    /// When the sweep finished.
    public var date: Date
    /// Files it removed.
    public var removedFiles: Int
    /// Allocated bytes it freed.
    public var freedAllocatedBytes: Int64
}
