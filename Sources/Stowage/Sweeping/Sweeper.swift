import Foundation

/// Keeps a folder within a ``SweepPolicy``: removes the files that must go, and reports them.
///
/// A sweep never follows a symbolic link, never leaves its folder or its file system, never
/// removes a file marked ``Marker/pinned``, removes the folders it empties, and reclaims the
/// leftover temporary files of interrupted atomic writes (older than
/// ``SweepPolicy/leftoverGracePeriod``). Stowage's own bookkeeping files (`CACHEDIR.TAG`,
/// append journals, the last-sweep record) are never touched. A file that changed after it was
/// chosen is kept and reported. Sweeps of one folder by several processes at once take turns
/// (an exclusive `flock` on the folder).
///
/// ```swift
/// let sweeper = Sweeper(policy: SweepPolicy(maximumAllocatedSize: 200_000_000))
/// let preview = try sweeper.sweep(cachesURL, dryRun: true)
/// let report = try sweeper.sweep(cachesURL)   // removes what the preview listed
/// ```
public struct Sweeper: Sendable {
    /// The limits and order.
    public var policy: SweepPolicy

    /// A sweeper keeping `policy`.
    public init(policy: SweepPolicy) { self.policy = policy }

    /// The name of the record of the last sweep, kept in the swept folder.
    static let recordName = RelativePath.reservedPrefix + "last-sweep"

    /// Sweeps `folder` (which may be reached through a link; nothing inside it is followed).
    ///
    /// - Parameters:
    ///   - dryRun: Report what would be removed, and remove nothing.
    ///   - now: The time ages are measured from.
    /// - Throws: ``StowageError/Code/notFound`` or ``StowageError/Code/wrongKind`` for the folder,
    ///   ``StowageError/Code/invalidArgument`` for a policy whose low watermark is not in (0, 1].
    ///   Files that cannot be removed are issues in the report, not errors.
    public func sweep(_ folder: URL, dryRun: Bool = false, now: Date = Date()) throws -> SweepReport {
        guard policy.lowWatermark > 0, policy.lowWatermark <= 1 else {
            throw StowageError(.invalidArgument, operation: .sweep, path: folder.fileSystemPath,
                               reason: "the low watermark must be more than 0 and at most 1")
        }
        return try Self.run(folder.fileSystemPath, policy: policy, goal: .limits, dryRun: dryRun, now: now)
    }

    /// When `folder` was last swept (by a sweep that was not a dry run), or `nil`.
    public static func lastSweep(of folder: URL) throws -> SweepRecord? {
        let path = folder.fileSystemPath
        do {
            let root = try OpenFile.openFolder(atPath: path, followingLinks: true)
            guard try root.statusIfPresent(of: recordName) != nil else { return nil }
            let data = try root.openForReading(recordName).readAll()
            return try? JSONDecoder.sweepRecord.decode(SweepRecord.self, from: data)  // an unreadable record is no record
        } catch let error as SystemCallError {
            throw StowageError(error, operation: .sweep, path: path)
        }
    }

    static func run(_ path: String, policy: SweepPolicy, goal: SweepEngine.Goal, dryRun: Bool, now: Date) throws -> SweepReport {
        let root: OpenFile
        do {
            root = try OpenFile.openFolder(atPath: path, followingLinks: true)
        } catch let error as SystemCallError {
            throw StowageError(error, operation: .sweep, path: path)
        }
        return try run(root: root, path: path, policy: policy, goal: goal, dryRun: dryRun, now: now)
    }

    /// Sweeps the folder `root`, already opened (as a container opens its folders, never
    /// through a link); `path` names it in the report and errors.
    static func run(root: OpenFile, path: String, policy: SweepPolicy, goal: SweepEngine.Goal, dryRun: Bool,
                    now: Date) throws -> SweepReport {
        do {
            try root.lock(exclusive: true)
            defer { root.unlock() }
            let engine = SweepEngine(rootPath: path, root: root, policy: policy, goal: goal, now: now)
            let selection = try engine.select()
            let predictedFolders = engine.emptiedFolders(by: selection.victims)
            let removed = dryRun ? selection.victims : engine.remove(selection.victims)
            let folders = dryRun ? predictedFolders : engine.removeFolders(predictedFolders)
            let files = removed.map {
                SweptFile(path: $0.path, logicalBytes: $0.logical, allocatedBytes: $0.allocated,
                          lastAccess: Date(timeIntervalSince1970: $0.access),
                          lastModification: Date(timeIntervalSince1970: $0.modification), reason: $0.reason)
            }
            let removedPaths = Set(removed.map(\.path))
            let keptVictims = selection.victims.filter { !removedPaths.contains($0.path) && $0.reason != .leftover }
            let report = SweepReport(
                folder: path, dryRun: dryRun, removed: files, removedFolders: folders,
                freedLogicalBytes: files.reduce(0) { $0 + $1.logicalBytes },
                freedAllocatedBytes: files.reduce(0) { $0 + $1.allocatedBytes },
                keptFiles: selection.keptFiles + keptVictims.count,
                keptAllocatedBytes: selection.keptAllocated + keptVictims.reduce(0) { $0 + $1.allocated },
                pinnedFiles: selection.pinned, issues: engine.issues)
            if !dryRun {
                let record = SweepRecord(date: now, removedFiles: files.count, freedAllocatedBytes: report.freedAllocatedBytes)
                try AtomicWrite.write(try JSONEncoder.sweepRecord.encode(record), into: root, name: recordName,
                                      durable: false, protection: nil)
            }
            return report
        } catch let error as SystemCallError {
            throw StowageError(error, operation: .sweep, path: path)
        }
    }
}

extension StowageError.Operation {
    /// Sweeping a folder or relieving storage pressure.
    public static let sweep = StowageError.Operation("sweep")
}

extension JSONEncoder {
    static var sweepRecord: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }
}

extension JSONDecoder {
    static var sweepRecord: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}
