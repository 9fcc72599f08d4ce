import Foundation

/// What a sweep removed, or would remove in a dry run. A dry run and the real run that follows
/// it report the same files.
public struct SweepReport: Sendable, Hashable, Codable {
    /// The folder swept.
    public var folder: String
    /// Whether nothing was actually removed.
    public var isDryRun: Bool
    /// Every file removed (or that would be), by path below the folder.
    public var removed: [SweptFile]
    /// Folders removed because the sweep emptied them, by path below the folder.
    public var removedFolders: [String]
    /// Logical bytes freed.
    public var freedLogicalBytes: Int64
    /// Allocated bytes freed.
    public var freedAllocatedBytes: Int64
    /// Files left in place.
    public var keptFileCount: Int
    /// Allocated bytes of the files left in place.
    public var keptAllocatedBytes: Int64
    /// Pinned items left in place: files the operation would have removed, and pinned folders
    /// (each counts once; nothing under a pinned folder is removed).
    public var pinnedItemCount: Int
    /// Problems met: files changed since they were chosen (kept), folders that could not be
    /// read, mount points left alone, a record that could not be written.
    public var issues: [UsageIssue]
    /// Whether the sweep was cancelled before it finished: ``removed`` then lists exactly what
    /// was removed until then (nothing, when it was cancelled while choosing), and no record of
    /// the sweep is written (see "Long-running work" in the README).
    ///
    /// ```swift
    /// let report = try await Sweeper(policy: policy).sweep(cachesURL)
    /// if report.wasCancelled { print("stopped after \(report.removed.count) files") }
    /// ```
    ///
    /// Encoded only when `true` (as `wasCancelled`), so a complete report's JSON is unchanged.
    @OmittedWhenFalse public var wasCancelled = false
}


/// One file a sweep removed.
///
/// Names are bytes on disk and need not be UTF-8. ``path`` is text, with U+FFFD for bytes that
/// are not UTF-8; ``pathBytes`` is exact. In JSON, `path` is that text and, only when it is not
/// exact, `pathBase64` holds the exact bytes in Base64, so a reader can always act on the name.
public struct SweptFile: Sendable, Hashable, Codable {
    /// The path below the swept folder, as text (see ``pathBytes`` for the exact bytes).
    public var path: String
    /// The path below the swept folder, byte for byte (`pathBase64` in JSON, only when it is not UTF-8).
    @Base64WhenNotUTF8 public var pathBytes: [UInt8]
    /// Its logical size (0 for a hard link whose data another name keeps).
    public var logicalBytes: Int64
    /// The allocated bytes its removal freed (0 for a hard link whose data another name keeps).
    public var allocatedBytes: Int64
    /// Its last recorded access.
    public var lastAccessDate: Date
    /// Its last modification.
    public var lastModificationDate: Date
    /// Why it was removed.
    public var reason: SweepReason

    init(_ candidate: SweepEngine.Candidate) {
        path = candidate.path.description
        pathBytes = candidate.path.bytes
        logicalBytes = candidate.freedLogical
        allocatedBytes = candidate.freedAllocated
        lastAccessDate = Date(timeIntervalSince1970: candidate.access)
        lastModificationDate = Date(timeIntervalSince1970: candidate.modification)
        reason = candidate.reason
    }

    /// The JSON names: the properties' own, ``pathBytes`` written as `pathBase64` (see ``ReportedPath``).
    private enum CodingKeys: String, CodingKey {
        case path, pathBytes = "pathBase64", logicalBytes, allocatedBytes, lastAccessDate, lastModificationDate, reason
    }

}

/// When a folder was last swept, for callers that throttle sweeps.
public struct SweepRecord: Sendable, Hashable, Codable {
    /// When the sweep finished.
    public var date: Date
    /// Files it removed.
    public var removedFileCount: Int
    /// Allocated bytes it freed.
    public var freedAllocatedBytes: Int64
}

extension SweepRecord {
    /// The name records written by earlier builds used for ``removedFileCount``: still read,
    /// since Stowage reads its own records back (the record is written under the properties'
    /// own names, by the synthesized encoder).
    private enum EarlierKeys: String, CodingKey {
        case removedFiles
    }

    /// Decodes a record, also one written under the earlier name `removedFiles`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        date = try container.decode(Date.self, forKey: .date)
        freedAllocatedBytes = try container.decode(Int64.self, forKey: .freedAllocatedBytes)
        removedFileCount = try container.decodeIfPresent(Int.self, forKey: .removedFileCount)
            ?? decoder.container(keyedBy: EarlierKeys.self).decode(Int.self, forKey: .removedFiles)
    }
}
