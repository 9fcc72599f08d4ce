import Foundation

/// What ``Container/relieve(toAvailableBytes:dryRun:now:)`` did.
public struct ReliefReport: Sendable, Hashable, Codable {
    /// The available bytes asked for.
    public var targetAvailableBytes: Int64
    /// Available bytes before (simulated figures when simulation is on).
    public var availableBytesBefore: Int64
    /// How many bytes had to be freed (0 when the target was already met).
    public var neededBytes: Int64
    /// Allocated bytes freed (or that would be, in a dry run).
    public var freedAllocatedBytes: Int64
    /// Whether enough was freed.
    public var isSatisfied: Bool
    /// Whether nothing was removed.
    public var isDryRun: Bool
    /// Whether the capacity figures were simulated.
    public var isSimulated: Bool
    /// Each location swept, in the order swept.
    public var steps: [ReliefStep]
    /// Problems met before a location could be swept: locations skipped because their folder
    /// could not be used safely (a link, a folder of another user's, no permission); relief
    /// went on with the others. What each sweep met is in its step's report.
    public var issues: [UsageIssue] = []
    /// Whether the relief was cancelled before it finished (only the `async`
    /// ``Container/relieve(toAvailableBytes:dryRun:now:progressInterval:progress:)`` can be): the
    /// steps then list exactly what was removed until then, and no later location was swept.
    /// Not part of the report's JSON.
    public var wasCancelled = false

    /// The JSON names: each property's own, ``wasCancelled`` left out (the command never cancels this work).
    private enum CodingKeys: String, CodingKey {
        case targetAvailableBytes, availableBytesBefore, neededBytes, freedAllocatedBytes, isSatisfied, isDryRun, isSimulated
        case steps, issues
    }
}

/// One location swept by pressure relief.
public struct ReliefStep: Sendable, Hashable, Codable {
    /// The location swept (its ``Location/identifier`` in JSON: `temporary`, `caches`, ...).
    public var location: Location
    /// What the sweep of that location removed.
    public var report: SweepReport
}

extension Container {
    /// The relief rule's order: what pressure relief may free, location by location, in the
    /// order it frees it, with the order of files within each and whether only files marked
    /// ``Marker/purgeable`` may go (locations that are never purged otherwise).
    ///
    /// One rule for relief, ``PressureWatcher``, ``audit(minimumBytes:)``'s pressure totals and
    /// the reclaimable part of ``capacity(of:)-8qkvy``. Within each location the removal walk's
    /// policy holds: never a pinned file or folder, never Stowage's own records, never a write
    /// in progress, never another mount.
    static let reliefPlan: [(location: Location, order: SweepOrder, purgeableOnly: Bool)] = [
        (.temporary, .oldestModified, false), (.caches, .leastRecentlyUsed, false),
        (.documents, .leastRecentlyUsed, true), (.applicationSupport, .leastRecentlyUsed, true),
        (.preferences, .leastRecentlyUsed, true),
    ]

    /// Frees space until the volume of Documents has `target` bytes available, in purge order,
    /// stopping as soon as the target is met:
    /// 1. temporary files, oldest first;
    /// 2. caches, least recently used first;
    /// 3. files marked ``Marker/purgeable`` in the other locations, least recently used first.
    ///
    /// Documents, Application Support, Preferences and shared containers lose nothing else, and
    /// files and folders marked ``Marker/pinned`` are never removed. Only locations on the same
    /// volume count. A location whose folder cannot be used safely (a link, another user's
    /// folder) is skipped and reported in ``ReliefReport/issues``. Nothing is written before
    /// space is freed, so relief works on a volume with no space left at all. The bytes needed
    /// are `target - available`, measured once (simulated figures when ``SimulatedCapacity`` is
    /// on), so tests can drive relief without filling a disk.
    ///
    /// - Throws: as ``capacity(of:)-8qkvy``; ``StowageError/Code/refused`` for a rooted container
    ///   whose root is `/`, the home folder or a folder above it. Files that cannot be removed
    ///   are issues in the steps.
    public func relieve(toAvailableBytes target: Int64, dryRun: Bool = false, now: Date = Date()) throws -> ReliefReport {
        try relieve(toAvailableBytes: target, dryRun: dryRun, now: now, reporter: nil, cancellation: nil)
    }

    /// Frees space as ``relieve(toAvailableBytes:dryRun:now:)`` does, on threads of its own,
    /// reporting progress; cancelling the task stops the relief before its next removal and
    /// returns exactly what was removed until then, marked ``ReliefReport/wasCancelled``.
    ///
    /// This is a long-running call under the one contract (see ``WorkProgress`` and
    /// "Long-running work" in the README): cancellation is not an error, progress comes from
    /// the sweeping threads, throttled to `progressInterval`.
    /// The handler is required, so that a call without one (in an `async` function too) stays
    /// the synchronous form; pass `{ _ in }` to get cancellation alone.
    ///
    /// ```swift
    /// let report = try await container.relieve(toAvailableBytes: 2_000_000_000) { progress in
    ///     print("\(progress.location?.displayName ?? ""): \(progress.phase) \(progress.items) files")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - target: The available bytes wanted.
    ///   - dryRun: Report what would be removed, and remove nothing.
    ///   - now: The time ages are measured from.
    ///   - progressInterval: The least time between two progress reports.
    ///   - progress: Called on a sweeping thread with each location's sweep's figures, the
    ///     location named in ``WorkProgress/location``: files examined while choosing
    ///     (``WorkProgress/Phase/scanning``), then files removed, the bytes they freed and the
    ///     bytes that location's victims free (``WorkProgress/Phase/removing``, not in a dry
    ///     run). Counts start afresh in each location. Keep it short: the relief waits for it.
    /// - Throws: as ``relieve(toAvailableBytes:dryRun:now:)``; cancellation is not an error.
    /// - Important: Files removed before the cancellation stay removed.
    public func relieve(toAvailableBytes target: Int64, dryRun: Bool = false, now: Date = Date(),
                        progressInterval: Duration = WorkProgress.defaultInterval,
                        progress: @escaping @Sendable (WorkProgress) -> Void) async throws -> ReliefReport {
        let cancellation = CancellationFlag()
        return try await LongRunningWork.run(progressInterval: progressInterval, progress: progress,
                                             cancel: { cancellation.cancel() }) { reporter in
            try relieve(toAvailableBytes: target, dryRun: dryRun, now: now, reporter: reporter, cancellation: cancellation)
        }
    }

    private func relieve(toAvailableBytes target: Int64, dryRun: Bool, now: Date, reporter: ProgressReporter?,
                         cancellation: CancellationFlag?) throws -> ReliefReport {
        let capacity = try availableSpace(of: .documents)
        let needed = max(0, target - capacity.availableBytes)
        var report = ReliefReport(targetAvailableBytes: target, availableBytesBefore: capacity.availableBytes,
                                  neededBytes: needed, freedAllocatedBytes: 0, isSatisfied: needed == 0,
                                  isDryRun: dryRun, isSimulated: capacity.isSimulated, steps: [])
        guard needed > 0 else { return report }
        try refuseSystemRoot(for: .sweep)
        let volume = try documentsVolume(operation: .sweep)
        for (location, order, purgeableOnly) in Self.reliefPlan {
            let remaining = needed - report.freedAllocatedBytes
            guard remaining > 0 else { break }
            if cancellation?.isCancelled == true {
                report.wasCancelled = true
                break
            }
            guard let folder = try usableFolder(of: location, onVolume: volume, skipped: &report.issues) else { continue }
            // The folder just opened (never through a link, and for tmp checked to be the user's
            // own), not its path looked up again, which a swapped-in link could lead elsewhere.
            let step = try Removal.run(root: folder, path: try url(for: location).fileSystemPath,
                                       .free(remaining, order: order, purgeableOnly: purgeableOnly), dryRun: dryRun, now: now,
                                       reporter: reporter, cancellation: cancellation, location: location)
            report.freedAllocatedBytes += step.freedAllocatedBytes
            report.steps.append(ReliefStep(location: location, report: step))
            if step.wasCancelled {
                report.wasCancelled = true
                break
            }
        }
        report.isSatisfied = report.freedAllocatedBytes >= needed
        return report
    }

    /// The device number of the volume holding Documents, measured at its nearest existing folder.
    ///
    /// - Throws: a ``StowageError`` of `operation` naming the folder measured and the cause; when
    ///   a file stands where a folder should be (a container root that is a file or a FIFO),
    ///   ``StowageError/Code/wrongKind`` naming that file.
    func documentsVolume(operation: StowageError.Operation) throws -> UInt64 {
        let path = try existingAncestor(of: url(for: .documents))
        do {
            return try VolumeStatistics.of(path: path).device
        } catch let error as SystemCallError {
            throw StowageError(error, operation: operation, path: error.errno == .notFolder ? Self.obstacle(in: path) : path)
        }
    }

    /// The nearest ancestor of `path` that exists: what is in the way when a system call said a
    /// part of `path` is not a folder (`path` itself when none is found).
    static func obstacle(in path: String) -> String {
        var current = Substring(path)
        while let slash = current.lastIndex(of: "/"), slash > current.startIndex {
            current = current[..<slash]
            if (try? Sys.lstat(String(current))) != nil { return String(current) }  // best effort: the path as given otherwise
        }
        return path
    }

    /// What relief could free now on the volume `volume` (a device number; that of Documents
    /// when `nil`), per location of the relief rule, in purge order; locations whose folder
    /// cannot be used safely go to `skipped`. `examined` is told each file met (an error it
    /// throws, a cancellation, ends the walk and is thrown). Errors name `operation`.
    func freeableUnderPressure(volume: UInt64? = nil, operation: StowageError.Operation = .sweep, skipped: inout [UsageIssue],
                               examined: ((Location, FileStatus) throws -> Void)? = nil) throws -> [LocationTotals] {
        let volume = try volume ?? documentsVolume(operation: operation)
        var totals: [LocationTotals] = []
        for (location, order, purgeableOnly) in Self.reliefPlan {
            guard let folder = try usableFolder(of: location, onVolume: volume, skipped: &skipped) else {
                if !purgeableOnly { totals.append(LocationTotals(location: location, fileCount: 0, allocatedBytes: 0)) }
                continue
            }
            let path = try url(for: location).fileSystemPath
            do {
                let (files, allocated, issues) = try Removal.freeable(root: folder, path: path, order: order,
                                                                      purgeableOnly: purgeableOnly, examined: examined.map { examined in
                    { try examined(location, $0) }
                })
                skipped += issues
                if !purgeableOnly || files > 0 {
                    totals.append(LocationTotals(location: location, fileCount: files, allocatedBytes: allocated))
                }
            } catch let error as SystemCallError {
                throw StowageError(error, operation: operation, location: location, path: "")
            }
        }
        return totals
    }

    /// The folder of `location` if it exists, is on `volume` (any, when `nil`), and can be used
    /// safely; a folder that cannot (a link, another user's, unreadable) is reported in `skipped`.
    func usableFolder(of location: Location, onVolume volume: UInt64?, operation: StowageError.Operation = .sweep,
                      skipped: inout [UsageIssue]) throws -> OpenFile? {
        do {
            guard let folder = try openFolder(of: location, create: false, operation: operation),
                  try volume.map({ try folder.status().device == $0 }) ?? true else { return nil }
            return folder
        } catch let error as StowageError where error.code != .invalidArgument {
            skipped.append(UsageIssue(path: (try? url(for: location).fileSystemPath) ?? location.identifier,
                                      errno: error.errno, message: (error.reason ?? error.description) + "; skipped"))
            return nil
        } catch let error as SystemCallError {
            skipped.append(UsageIssue(path: (try? url(for: location).fileSystemPath) ?? location.identifier, error: error))
            return nil
        }
    }
}

// MARK: Earlier spellings, kept for one release

extension Container {
    /// ``relieve(toAvailableBytes:dryRun:now:)``, in its earlier spelling.
    @available(*, deprecated, renamed: "relieve(toAvailableBytes:dryRun:now:)")
    public func relieve(toAvailable target: Int64, dryRun: Bool = false, now: Date = Date()) throws -> ReliefReport {
        try relieve(toAvailableBytes: target, dryRun: dryRun, now: now)
    }

    /// ``relieve(toAvailableBytes:dryRun:now:progressInterval:progress:)``, in its earlier spelling.
    @available(*, deprecated, renamed: "relieve(toAvailableBytes:dryRun:now:progressInterval:progress:)")
    public func relieve(toAvailable target: Int64, dryRun: Bool = false, now: Date = Date(),
                        progressInterval: Duration = WorkProgress.defaultInterval,
                        progress: @escaping @Sendable (WorkProgress) -> Void) async throws -> ReliefReport {
        try await relieve(toAvailableBytes: target, dryRun: dryRun, now: now, progressInterval: progressInterval,
                          progress: progress)
    }
}
