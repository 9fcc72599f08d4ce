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
    /// Pinned items left in place: files the operation would have removed, and pinned folders
    /// (each counts once; nothing under a pinned folder is removed).
    public var pinnedFiles: Int
    /// Problems met: files changed since they were chosen (kept), folders that could not be
    /// read, mount points left alone, a record that could not be written.
    public var issues: [UsageIssue]
}

/// One file a sweep removed.
///
/// Names are bytes on disk and need not be UTF-8. ``path`` is text, with U+FFFD for bytes that
/// are not UTF-8; ``pathBytes`` is exact. In JSON, `path` is that text and, only when it is not
/// exact, `pathBase64` holds the exact bytes in Base64, so a reader can always act on the name.
public struct SweptFile: Sendable, Hashable, Codable {
    /// The path below the swept folder, as text (see ``pathBytes`` for the exact bytes).
    public var path: String
    /// The path below the swept folder, byte for byte.
    public var pathBytes: [UInt8]
    /// Its logical size (0 for a hard link whose data another name keeps).
    public var logicalBytes: Int64
    /// The allocated bytes its removal freed (0 for a hard link whose data another name keeps).
    public var allocatedBytes: Int64
    /// Its last recorded access.
    public var lastAccess: Date
    /// Its last modification.
    public var lastModification: Date
    /// Why it was removed.
    public var reason: SweepReason

    init(_ candidate: SweepEngine.Candidate) {
        path = candidate.path.description
        pathBytes = candidate.path.bytes
        logicalBytes = candidate.freedLogical
        allocatedBytes = candidate.freedAllocated
        lastAccess = Date(timeIntervalSince1970: candidate.access)
        lastModification = Date(timeIntervalSince1970: candidate.modification)
        reason = candidate.reason
    }

    private enum CodingKeys: String, CodingKey {
        case path, pathBase64, logicalBytes, allocatedBytes, lastAccess, lastModification, reason
    }

    /// Encodes `path`, and `pathBase64` only when the path is not valid UTF-8.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        if !RawPath.isUTF8(pathBytes) {
            try container.encode(Data(pathBytes).base64EncodedString(), forKey: .pathBase64)
        }
        try container.encode(logicalBytes, forKey: .logicalBytes)
        try container.encode(allocatedBytes, forKey: .allocatedBytes)
        try container.encode(lastAccess, forKey: .lastAccess)
        try container.encode(lastModification, forKey: .lastModification)
        try container.encode(reason, forKey: .reason)
    }

    /// Decodes what ``encode(to:)`` wrote.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        path = try container.decode(String.self, forKey: .path)
        if let base64 = try container.decodeIfPresent(String.self, forKey: .pathBase64) {
            guard let bytes = Data(base64Encoded: base64) else {
                throw DecodingError.dataCorruptedError(forKey: .pathBase64, in: container, debugDescription: "not Base64")
            }
            pathBytes = Array(bytes)
        } else {
            pathBytes = Array(path.utf8)
        }
        logicalBytes = try container.decode(Int64.self, forKey: .logicalBytes)
        allocatedBytes = try container.decode(Int64.self, forKey: .allocatedBytes)
        lastAccess = try container.decode(Date.self, forKey: .lastAccess)
        lastModification = try container.decode(Date.self, forKey: .lastModification)
        reason = try container.decode(SweepReason.self, forKey: .reason)
    }
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
