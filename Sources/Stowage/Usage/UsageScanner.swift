import Foundation

/// Measures trees: logical and allocated bytes, counts, the largest files, a breakdown per child.
///
/// The scan reads folders with `readdir` and `fstatat` through file descriptors on several
/// threads, and makes no Foundation URL or resource-value call per file. Sizes are exact (they
/// match `du -s -b` and `du -s -B1`), hard links count once, links are not followed unless
/// asked, and an unreadable folder is reported in ``UsageReport/issues`` and skipped, never fatal.
///
/// ```swift
/// let report = try UsageScanner().scan([cachesURL])
/// print(ByteCount(report.allocatedBytes).formatted())  // "123.4 MB" for the settings screen
/// ```
public struct UsageScanner: Sendable {
    /// What the scan counts and reports.
    public var options: UsageOptions

    /// A scanner with `options`.
    public init(options: UsageOptions = UsageOptions()) { self.options = options }

    /// Scans `roots` and returns the report; blocks the calling thread, so use it for small
    /// trees or off the main thread, and ``scan(_:progressInterval:progress:)`` otherwise.
    ///
    /// A root that does not exist or cannot be examined is an issue in the report, not an error.
    public func scan(_ roots: [URL]) -> UsageReport {
        ScanEngine(options: options).run(roots: roots.map(\.fileSystemPath))
    }

    /// Scans `roots` on background threads, reporting progress and stopping promptly when the
    /// calling task is cancelled.
    ///
    /// - Parameters:
    ///   - progressInterval: How often `progress` is called while the scan runs.
    ///   - progress: Called with the entries and bytes counted so far, every interval while the
    ///     scan runs and once more with the final figures.
    /// - Throws: `CancellationError` when the task is cancelled.
    public func scan(_ roots: [URL], progressInterval: Duration = .milliseconds(200),
                     progress: (@Sendable (UsageProgress) -> Void)? = nil) async throws -> UsageReport {
        let engine = ScanEngine(options: options)
        let paths = roots.map(\.fileSystemPath)
        let result = ScanResultBox()
        let finished = AsyncStream<Void>.makeStream()
        let thread = Thread {
            result.set(engine.run(roots: paths))
            finished.continuation.finish()
        }
        thread.stackSize = 1 << 20
        return try await withTaskCancellationHandler {
            thread.start()
            if let progress {
                let ticker = Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: progressInterval)  // cancellation ends the loop below
                        if Task.isCancelled { break }
                        progress(engine.progress)
                    }
                }
                for await _ in finished.stream {}
                ticker.cancel()
                if !Task.isCancelled { progress(engine.progress) }  // the final figures, however short the scan
            } else {
                for await _ in finished.stream {}
            }
            try Task.checkCancellation()
            guard let report = result.value else { throw CancellationError() }
            return report
        } onCancel: {
            engine.cancel()
        }
    }
}

extension Container {
    /// The usage of each location's folder, for a settings screen ("Cache: 123 MB") or the
    /// `stowage` overview. A location whose folder does not exist yet has zero totals.
    ///
    /// - Throws: as ``folderExists(for:)``.
    public func usage(of locations: [Location] = Location.standard, options: UsageOptions = UsageOptions()) throws
        -> [LocationUsage] {
        try locations.map { location in
            let url = try url(for: location)
            guard try folderExists(for: location) else {
                return LocationUsage(location: location, totals: UsageTotals(path: url.fileSystemPath), issues: [])
            }
            let report = UsageScanner(options: options).scan([url])
            return LocationUsage(location: location, totals: report.total, issues: report.issues)
        }
    }
}

/// Hands the report from the scanning thread to the awaiting task.
///
/// `@unchecked Sendable`: `report` is written once, under `lock`, before the stream finishes,
/// and read under `lock` after.
private final class ScanResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var report: UsageReport?
    func set(_ report: UsageReport) { lock.withLock { self.report = report } }
    var value: UsageReport? { lock.withLock { report } }
}

/// The usage of one location of a container.
public struct LocationUsage: Sendable, Hashable {
    /// The location.
    public var location: Location
    /// Sizes and counts of everything in its folder, the folder itself included.
    public var totals: UsageTotals
    /// Folders inside that could not be read.
    public var issues: [UsageIssue]
}
