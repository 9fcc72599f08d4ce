import Foundation

/// Keeps a folder within a ``SweepPolicy``: removes the files that must go, and reports them.
///
/// A sweep never follows a symbolic link, never leaves its folder, never enters another mount
/// (bind mounts included), never removes a file or folder marked ``Marker/pinned``, removes
/// only the folders it empties (never one that was empty already), and reclaims the
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
    /// let report = try await Sweeper(policy: SweepPolicy(maximumAllocatedSize: 200_000_000)).sweep(cachesURL) { progress in
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
        guard policy.lowWatermark > 0, policy.lowWatermark <= 1 else {
            throw StowageError(.invalidArgument, operation: .sweep, path: path,
                               reason: "the low watermark must be more than 0 and at most 1")
        }
        let root = try ProtectedFolders.openNamedFolder(path, operation: .sweep, allowingSystemFolders: allowingSystemFolders)
        return try Self.run(root: root, path: path, policy: policy, goal: .limits, dryRun: dryRun, now: now,
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

    /// Runs the removal walk (``SweepEngine``) over the folder `root`, already opened without
    /// following a link (as a container opens its folders, or ``ProtectedFolders`` a named
    /// one); `path` names it in the report and errors.
    ///
    /// Space is freed before anything is written: a limits sweep records itself afterwards,
    /// and a record that cannot be written (a full disk) is an issue in the report.
    ///
    /// With `reporter`, progress goes there from the walking and removing threads, naming
    /// `location` when the folder is a container's; with `cancellation`, a cancelled sweep stops
    /// before its next file and reports what it did until then (``SweepReport/wasCancelled``),
    /// writing no record.
    static func run(root: OpenFile, path: String, policy: SweepPolicy, goal: SweepEngine.Goal, dryRun: Bool,
                    now: Date, operation: StowageError.Operation = .sweep, reporter: ProgressReporter? = nil,
                    cancellation: CancellationFlag? = nil, location: Location? = nil) throws -> SweepReport {
        do {
            try root.lock(exclusive: true)
            defer { root.unlock() }
            let engine = SweepEngine(rootPath: path, root: root, policy: policy, goal: goal, now: now)
            // A pinned folder protects everything under it, also when it is the folder named.
            if try isPinned(root, goal: goal) {
                return SweepReport(folder: path, dryRun: dryRun, removed: [], removedFolders: [], freedLogicalBytes: 0,
                                   freedAllocatedBytes: 0, keptFiles: 0, keptAllocatedBytes: 0, pinnedFiles: 1, issues: [])
            }
            let watched = reporter != nil || cancellation != nil
            let selection: SweepEngine.Selection
            do {
                selection = try engine.select(progress: !watched ? nil : { files, bytes in
                    reporter?.report(.scanning, items: files, bytes: bytes, location: location)
                    return !(cancellation?.isCancelled ?? false)
                })
            } catch is CancellationError {
                return SweepReport(folder: path, dryRun: dryRun, removed: [], removedFolders: [], freedLogicalBytes: 0,
                                   freedAllocatedBytes: 0, keptFiles: 0, keptAllocatedBytes: 0, pinnedFiles: 0,
                                   issues: engine.issues, wasCancelled: true)
            }
            let expected = selection.victims.reduce(0) { $0 + $1.freedAllocated }
            try FaultPoint.sweepChosen.reach()
            let removed = dryRun ? selection.victims : engine.remove(selection.victims, progress: !watched ? nil : { files, bytes in
                reporter?.report(.removing, items: files, bytes: bytes, expectedBytes: expected, location: location)
                return !(cancellation?.isCancelled ?? false)
            }, shouldStop: cancellation.map { flag in { flag.isCancelled } })
            // Cancelled: stopped before trying every victim (a dry run that finished choosing is
            // whole, and so is a sweep cancelled after its last removal).
            let cancelled = !dryRun && engine.stoppedEarly
            // A cancelled sweep removes only the folders that what it did remove emptied.
            let predictedFolders = engine.emptiedFolders(by: cancelled && !dryRun ? removed : selection.victims)
            let folders = dryRun ? predictedFolders : engine.removeFolders(predictedFolders)
            let files = removed.map(SweptFile.init)
            let removedPaths = Set(removed.map(\.path))
            let keptVictims = selection.victims.filter { !removedPaths.contains($0.path) && $0.reason != .leftover }
            var report = SweepReport(
                folder: path, dryRun: dryRun, removed: files, removedFolders: folders.map(\.description),
                freedLogicalBytes: files.reduce(0) { $0 + $1.logicalBytes },
                freedAllocatedBytes: files.reduce(0) { $0 + $1.allocatedBytes },
                keptFiles: selection.keptFiles + keptVictims.count,
                keptAllocatedBytes: selection.keptAllocated + keptVictims.reduce(0) { $0 + $1.allocated },
                pinnedFiles: selection.pinned, issues: engine.issues, wasCancelled: cancelled)
            if !dryRun, !cancelled, case .limits = goal {
                let record = SweepRecord(date: now, removedFiles: files.count, freedAllocatedBytes: report.freedAllocatedBytes)
                do {
                    try AtomicWrite.write(try JSONEncoder.sweepRecord.encode(record), into: root, name: recordName,
                                          durable: false, protection: nil, keepingMarkers: false)
                } catch {
                    report.issues.append(UsageIssue(path: path + "/" + recordName, error: error))
                }
            }
            return report
        } catch let error as SystemCallError {
            throw StowageError(error, operation: operation, path: path)
        }
    }
}

extension Sweeper {
    /// Whether the folder an operation starts from is pinned (never, for a tree named for
    /// removal; a file system without attributes has no pins).
    private static func isPinned(_ root: OpenFile, goal: SweepEngine.Goal) throws -> Bool {
        if case .everything(.wholeTree) = goal { return false }
        do {
            return try root.attribute(Marker.pinned.attribute) == Marker.setValue
        } catch Errno.attributesUnsupported {
            return false
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
