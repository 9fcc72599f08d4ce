import Foundation

/// Measures trees: logical and allocated bytes, counts, the largest files, a breakdown per child.
///
/// The scan reads folders with `readdir` and `fstatat` through file descriptors on several
/// threads, and makes no Foundation URL or resource-value call per file. Sizes are exact (they
/// match `du -s -b` and `du -s -B1`), hard links count once, links are not followed unless
/// asked, and an unreadable folder is reported in ``UsageReport/issues`` and skipped, never fatal.
///
/// ```swift
/// let report = UsageScanner().scan([cachesURL])
/// print(ByteCount(report.allocatedBytes).formatted())  // "123.4 MB" for the settings screen
/// ```
public struct UsageScanner: Sendable {
    /// What the scan counts and reports.
    public var options: UsageOptions

    /// A scanner with `options`.
    public init(options: UsageOptions = UsageOptions()) { self.options = options }

    /// Scans `roots` and returns the report; blocks the calling thread, so use it for small
    /// trees or off the main thread, and the `async` `scan(_:progressInterval:progress:)` otherwise.
    ///
    /// A root that does not exist or cannot be examined is an issue in the report, not an error.
    public func scan(_ roots: [URL]) -> UsageReport {
        ScanEngine(options: options).run(roots: roots.map(\.fileSystemPath))
    }

    /// Scans `roots` on threads of its own, reporting progress; cancelling the task stops the
    /// scan promptly and returns what was counted, marked ``UsageReport/wasCancelled``.
    ///
    /// This is a long-running call under the one contract of scans, fills and sweeps (see
    /// ``WorkProgress`` and "Long-running work" in the README): cancellation is not an error,
    /// progress comes from the scanning threads, throttled to `progressInterval`.
    ///
    /// ```swift
    /// let report = try await UsageScanner().scan([cachesURL]) { progress in
    ///     print("\(progress.items) entries, \(ByteCount(progress.bytes).formatted())")
    /// }
    /// if report.wasCancelled { return }   // the figures are partial
    /// ```
    ///
    /// - Parameters:
    ///   - roots: The files and folders to measure (hard links are counted once across all).
    ///   - progressInterval: The least time between two progress reports.
    ///   - progress: Called on a scanning thread (never on a task of the cooperative pool) with
    ///     the entries examined and their allocated bytes (``WorkProgress/Phase/scanning``): after
    ///     the first folder, then at most once per interval, and once more with the final
    ///     figures. Keep it short: the scan waits for it. Cancelling the task from inside it
    ///     stops the scan before the next folder.
    /// - Returns: The report; when the task was cancelled, the figures read until then, with
    ///   ``UsageReport/wasCancelled`` set.
    /// - Throws: Nothing today: a root that cannot be read is an issue in the report, and
    ///   cancellation is not an error. The call is `throws` so that it may report failures later.
    public func scan(_ roots: [URL], progressInterval: Duration = WorkProgress.defaultInterval,
                     progress: (@Sendable (WorkProgress) -> Void)? = nil) async throws -> UsageReport {
        let engine = ScanEngine(options: options)
        let paths = roots.map(\.fileSystemPath)
        return try await LongRunningWork.run(progressInterval: progressInterval, progress: progress,
                                             cancel: { engine.cancel() }) { reporter in
            engine.reporter = reporter
            return engine.run(roots: paths)
        }
    }

    /// Scans `roots` into the tree of names (``UsageNameTree``): every entry, whatever
    /// ``UsageOptions/breakdownDepth`` says, each named by its name, not its path; the report it
    /// holds has no breakdown. Blocks the calling thread, as ``scan(_:)``.
    package func scanNameTree(_ roots: [URL]) -> UsageNameTree {
        let engine = ScanEngine(options: options, buildsNameTree: true)
        return engine.takeNameTree(report: engine.run(roots: roots.map(\.fileSystemPath)))
    }

    /// ``scanNameTree(_:)`` on threads of its own, with progress and cancellation as
    /// ``scan(_:progressInterval:progress:)`` (a cancelled scan's tree holds what was read, its
    /// report marked cancelled).
    package func scanNameTree(_ roots: [URL], progressInterval: Duration = WorkProgress.defaultInterval,
                              progress: (@Sendable (WorkProgress) -> Void)? = nil) async throws -> UsageNameTree {
        let engine = ScanEngine(options: options, buildsNameTree: true)
        let paths = roots.map(\.fileSystemPath)
        return try await LongRunningWork.run(progressInterval: progressInterval, progress: progress,
                                             cancel: { engine.cancel() }) { reporter in
            engine.reporter = reporter
            return engine.takeNameTree(report: engine.run(roots: paths))
        }
    }
}

extension Container {
    /// The usage of each location's folder, for a settings screen ("Cache: 123 MB"): the same
    /// figures as ``StorageOverview/locations``, measured once, synchronously. A location whose
    /// folder does not exist yet has zero totals.
    ///
    /// - Throws: as ``folderExists(for:)``.
    public func usage(of locations: [Location] = Location.standard, options: UsageOptions = UsageOptions()) throws
        -> [LocationUsage] {
        try locations.map { location in
            let path = try url(for: location).fileSystemPath
            guard try folderExists(for: location) else {
                return LocationUsage(location: location, path: path, exists: false, totals: UsageTotals(path: path), issues: [])
            }
            let report = UsageScanner(options: options).scan([URL(filePath: path, directoryHint: .isDirectory)])
            return LocationUsage(location: location, path: path, exists: true, totals: report.totals, issues: report.issues)
        }
    }
}

/// The usage of one location of a container: what ``Container/usage(of:options:)`` measures
/// and ``StorageOverview/locations`` shows.
public struct LocationUsage: Sendable, Hashable, Identifiable {
    /// The location.
    public var location: Location
    /// Its folder.
    public var path: String
    /// Whether the folder exists yet.
    public var exists: Bool
    /// Sizes and counts of everything in its folder, the folder itself included (zero when it
    /// does not exist).
    public var totals: UsageTotals
    /// Folders inside that could not be read (their contents are not counted).
    public var issues: [UsageIssue]

    /// The location, which identifies the row.
    public var id: Location { location }
}
