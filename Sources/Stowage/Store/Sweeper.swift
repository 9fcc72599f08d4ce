import Foundation

/// Keeps a folder within a ``SweepPolicy``: removes the files that must go, and reports them.
///
/// A sweep never follows a symbolic link, never leaves its folder, never enters another mount
/// (bind mounts included), never removes a file or folder marked ``Marker/pinned``, removes
/// only the folders it empties (never one that was empty already), and reclaims the
/// leftover temporary files of interrupted atomic writes (older than
/// ``SweepPolicy/leftoverMinimumAge``, or at once for a ``DiskCache`` set's staged file whose
/// writer is gone). Stowage's own bookkeeping files (`CACHEDIR.TAG`,
/// append journals, the last-sweep record) are never touched. A file that changed after it was
/// chosen is kept and reported. Sweeps of one folder by several processes at once take turns
/// (an exclusive `flock` on the folder).
///
/// ```swift
/// let sweeper = Sweeper(policy: SweepPolicy(maximumAllocatedBytes: 200_000_000))
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

    /// Sweeps `folder`.
    ///
    /// The folder itself must not be a symbolic link (the folders above it may be), and nothing
    /// inside it is followed. `/`, the home folder and the folders above the home folder are
    /// refused unless `allowingSystemFolders` is set, as `rm --preserve-root` refuses `/`.
    ///
    /// - Parameters:
    ///   - folder: The folder to keep within the policy.
    ///   - dryRun: Report what would be removed, and remove nothing.
    ///   - now: The time ages are measured from.
    ///   - allowingSystemFolders: Sweep `/`, the home folder or a folder above it too.
    /// - Throws: ``StowageError/Code/notFound`` or ``StowageError/Code/wrongKind`` for the folder,
    ///   ``StowageError/Code/invalidPath`` for an empty path or a folder that is a link,
    ///   ``StowageError/Code/refused`` for a system folder,
    ///   ``StowageError/Code/invalidArgument`` for a policy whose low watermark is not in (0, 1].
    ///   Files that cannot be removed are issues in the report, not errors.
    public func sweep(_ folder: URL, dryRun: Bool = false, now: Date = Date(),
                      allowingSystemFolders: Bool = false) throws -> SweepReport {
        try sweep(folder, dryRun: dryRun, now: now, allowingSystemFolders: allowingSystemFolders, reporter: nil, cancellation: nil)
    }

    /// Sweeps `folder` on threads of its own, reporting progress; cancelling the task stops the
    /// sweep before its next removal and returns exactly what was removed until then, marked
    /// ``SweepReport/wasCancelled``.
    ///
    /// This is a long-running call under the one contract of scans, fills and sweeps (see
    /// ``WorkProgress`` and "Long-running work" in the README): cancellation is not an error,
    /// progress comes from the sweeping threads, throttled to `progressInterval`. Otherwise it
    /// is ``sweep(_:dryRun:now:allowingSystemFolders:)``: the same rules, refusals and report.
    ///
    /// ```swift
    /// let report = try await Sweeper(policy: SweepPolicy(maximumAllocatedBytes: 200_000_000)).sweep(cachesURL) { progress in
    ///     print("\(progress.phase): \(progress.items) files, \(ByteCount(progress.bytes).formatted())")
    /// }
    /// print("freed \(ByteCount(report.freedAllocatedBytes).formatted())" + (report.wasCancelled ? " (cancelled)" : ""))
    /// ```
    ///
    /// - Parameters:
    ///   - folder: The folder to keep within the policy.
    ///   - dryRun: Report what would be removed, and remove nothing.
    ///   - now: The time ages are measured from.
    ///   - allowingSystemFolders: Sweep `/`, the home folder or a folder above it too.
    ///   - progressInterval: The least time between two progress reports.
    ///   - progress: Called on a sweeping thread (never on a task of the cooperative pool): while
    ///     choosing (``WorkProgress/Phase/scanning``), with the files examined and their
    ///     allocated bytes (a sweep with size or count limits reads the folder twice, and counts
    ///     both readings); while removing (``WorkProgress/Phase/removing``, not in a dry run),
    ///     with the files removed, the bytes they freed and the bytes all victims free
    ///     (``WorkProgress/expectedBytes``). First at once, then at most once per interval, and
    ///     once more with the final figures. Keep it short: the sweep waits for it. Cancelling
    ///     the task from inside it stops the sweep before the next file.
    /// - Returns: What was removed; when cancelled, exactly what was removed until then (nothing
    ///   when cancelled while choosing), with ``SweepReport/wasCancelled`` set and no record of
    ///   the sweep written.
    /// - Throws: as ``sweep(_:dryRun:now:allowingSystemFolders:)``; cancellation is not an error.
    /// - Important: Files removed before the cancellation stay removed.
    public func sweep(_ folder: URL, dryRun: Bool = false, now: Date = Date(), allowingSystemFolders: Bool = false,
                      progressInterval: Duration = WorkProgress.defaultInterval,
                      progress: (@Sendable (WorkProgress) -> Void)? = nil) async throws -> SweepReport {
        let cancellation = CancellationFlag()
        return try await LongRunningWork.run(progressInterval: progressInterval, progress: progress,
                                             cancel: { cancellation.cancel() }) { reporter in
            try sweep(folder, dryRun: dryRun, now: now, allowingSystemFolders: allowingSystemFolders,
                      reporter: reporter, cancellation: cancellation)
        }
    }

    private func sweep(_ folder: URL, dryRun: Bool, now: Date, allowingSystemFolders: Bool, reporter: ProgressReporter?,
                       cancellation: CancellationFlag?) throws -> SweepReport {
        // `URL(filePath: "")` is the current folder: an empty path must never mean that.
        let path = folder.relativePath.isEmpty ? "" : folder.fileSystemPath
        if let problem = policy.problem {
            throw StowageError(.invalidArgument, operation: .sweep, path: path, reason: problem)
        }
        let root = try ProtectedFolders.openNamedFolder(path, operation: .sweep, allowingSystemFolders: allowingSystemFolders)
        return try Self.run(root: root, path: path, policy: policy, dryRun: dryRun, now: now,
                            reporter: reporter, cancellation: cancellation)
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

    /// Sweeps the folder `root` (opened as ``Removal/run(root:path:_:dryRun:now:operation:reporter:cancellation:location:expectedBytes:)``
    /// says) to `policy`, and records the sweep in it once space is freed: a record that cannot be
    /// written (a full disk) is an issue in the report. A dry run or a cancelled sweep records nothing.
    /// Only a sweep asked for by name records itself: a ``DiskCache``'s evictions call the removal
    /// walk directly and leave no record (DESIGN, decision 21).
    static func run(root: OpenFile, path: String, policy: SweepPolicy, dryRun: Bool, now: Date,
                    reporter: ProgressReporter? = nil, cancellation: CancellationFlag? = nil) throws -> SweepReport {
        var report = try Removal.run(root: root, path: path, .limits(policy), dryRun: dryRun, now: now,
                                     reporter: reporter, cancellation: cancellation)
        if !dryRun, !report.wasCancelled {
            let record = SweepRecord(date: now, removedFileCount: report.removed.count, freedAllocatedBytes: report.freedAllocatedBytes)
            do {
                try AtomicWrite.write(try JSONEncoder.sweepRecord.encode(record), into: root, name: recordName,
                                      durable: false, protection: nil, keepingMarkers: false)
            } catch {
                report.issues.append(UsageIssue(path: path + "/" + recordName, error: error))
            }
        }
        return report
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
