import Foundation
import Observation

/// The storage of a container as a settings screen shows it ("Cache: 123 MB - Clear"): each
/// location's size, the volume's capacity, and what pressure relief could free; measured and
/// cleared off the caller's actor, cancellable, with progress.
///
/// The one way Stowage measures a container: the `stowage` overview and `stowage locations`
/// print this model's figures.
///
/// ```swift
/// @State private var storage = StorageOverview(container: try .default(appIdentifier: "com.example.App"))
///
/// var body: some View {
///     Form {
///         LabeledContent("Cache", value: storage.formattedSize(of: .caches))
///         Button("Clear Cache") { Task { try await storage.clear(.caches) } }
///     }
///     .task { try? await storage.refresh() }
/// }
/// ```
///
/// All state is on the main actor, for SwiftUI; the measuring and removing run on threads of
/// their own (the long-running-work contract: see ``WorkProgress``), so a refresh of a large
/// container never holds the main thread. Cancelling the task that awaits ``refresh()`` or
/// ``clear(_:)`` stops the work before its next file: a cancelled refresh keeps the figures
/// from before, a cancelled clear keeps what it did not reach and reports what it removed.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
@Observable
public final class StorageOverview {
    /// The container measured.
    public let container: Container
    /// The app groups whose shared containers are measured too.
    public let groups: [String]
    /// The units sizes are shown in (decimal, as Finder and the Settings app show them, by default).
    public var style: ByteCountStyle

    /// Each location's usage, in the order of ``Location/standard`` then the groups; empty
    /// until the first ``refresh()``.
    public private(set) var locations: [LocationUsage] = []
    /// The capacity of the volume holding Documents, counting what relief could free as
    /// reclaimable; `nil` until the first ``refresh()``.
    public private(set) var capacity: VolumeCapacity?
    /// The work under way and its latest figures (``WorkProgress/location`` names the location),
    /// or `nil` when nothing runs.
    public private(set) var progress: WorkProgress?
    /// Whether a ``refresh()`` is running.
    public private(set) var isRefreshing = false
    /// The location a ``clear(_:)`` is emptying, or `nil`.
    public private(set) var clearing: Location?
    /// When the figures were last measured completely.
    public private(set) var refreshed: Date?

    /// Changes to the figures since ``init(container:groups:style:)``: a measurement that began
    /// before a clear ended is measured again, so a refresh never shows what a clear removed.
    private var generation = 0

    /// A model of `container` (and the shared containers of `groups`); nothing is measured
    /// until ``refresh()``.
    public init(container: Container, groups: [String] = [], style: ByteCountStyle = .decimal) {
        self.container = container
        self.groups = groups
        self.style = style
    }

    /// What pressure relief could free now on the volume of Documents (temporary files, unpinned
    /// caches, files marked purgeable), by the rule ``Container/relieve(toAvailableBytes:dryRun:now:)``
    /// follows; 0 until the first ``refresh()``.
    public var reclaimableBytes: Int64 { capacity?.reclaimableBytes ?? 0 }

    /// The usage of `location`, once measured.
    public func usage(of location: Location) -> LocationUsage? {
        locations.first { $0.location == location }
    }

    /// `bytes` in ``style``: `123 MB`.
    public func formatted(_ bytes: Int64) -> String { ByteCount(bytes).formatted(style) }

    /// The allocated size of `location` in ``style`` (`123 MB`), or `"–"` before it is measured.
    public func formattedSize(of location: Location) -> String {
        usage(of: location).map { formatted($0.totals.allocatedBytes) } ?? "–"
    }

    /// Measures every location and the volume again.
    ///
    /// The figures change at once when all is measured; a cancelled refresh changes nothing. A
    /// refresh that overlaps a ``clear(_:)`` measures again after it, so what a clear removed
    /// never reappears.
    ///
    /// - Throws: as ``Container/url(for:)`` and ``Container/capacity(of:)-8qkvy``; folders that cannot
    ///   be read are issues in the figures.
    public func refresh() async throws {
        isRefreshing = true
        defer {
            isRefreshing = false
            if clearing == nil { progress = nil }
        }
        while true {
            let started = generation
            guard let measured = try await Self.measure(container, locations: allLocations, report: report) else {
                return  // cancelled: the figures from before stay
            }
            if started == generation {
                locations = measured.locations
                capacity = measured.capacity
                refreshed = Date()
                return
            }
        }
    }

    /// Empties `location` (``Store/clear(_:dryRun:progressInterval:progress:)``: pinned files,
    /// writes in progress and Stowage's records stay), then measures it and the volume again.
    ///
    /// ``clearing`` names the location meanwhile, and ``progress`` shows the removal. A
    /// cancelled clear keeps what it did not reach; its report lists exactly what it removed
    /// (``SweepReport/wasCancelled``), and the figures are measured again all the same.
    ///
    /// Clearing user data (Documents, Application Support) removes it for good: a settings
    /// screen should offer only Caches and tmp, or ask first.
    ///
    /// - Returns: What was removed.
    /// - Throws: ``StowageError/Code/busy`` while another clear of this model runs, the errors
    ///   of ``Store/clear(_:dryRun:)``, and those of measuring again (``Container/url(for:)``,
    ///   ``Container/capacity(of:)-8qkvy``).
    @discardableResult
    public func clear(_ location: Location) async throws -> SweepReport {
        if let clearing {
            throw StowageError(.busy, operation: .clear, location: location, path: "",
                               reason: "\(clearing) is being cleared; clear one location at a time")
        }
        clearing = location
        defer {
            clearing = nil
            if !isRefreshing { progress = nil }
        }
        let store = Store(container: container)
        let report = try await store.clear(location) { [weak self] in self?.report($0) }
        generation += 1  // a refresh measuring meanwhile measures again
        // In a task of its own, which a cancelled clear's cancellation does not reach: what it
        // removed before it stopped must not stay in the figures.
        let container = container
        let measuring = Task { try await Self.measure(container, locations: [location], report: { _ in }) }
        if let measured = try await measuring.value {
            if let index = locations.firstIndex(where: { $0.location == location }), let figures = measured.locations.first {
                locations[index] = figures
            }
            capacity = measured.capacity
        }
        return report
    }

    /// The standard locations, then the shared container of each group.
    var allLocations: [Location] { Location.standard + groups.map(Location.sharedContainer) }

    /// Delivers `progress` to the main actor (from a working thread).
    private nonisolated func report(_ progress: WorkProgress) {
        Task { @MainActor in
            if self.isRefreshing || self.clearing != nil { self.progress = progress }
        }
    }

    /// What a refresh measures.
    struct Measurement: Sendable {
        var locations: [LocationUsage]
        var capacity: VolumeCapacity
    }

    /// Measures `locations` of `container` and the volume of Documents, off the main actor;
    /// `nil` when the task was cancelled.
    nonisolated static func measure(_ container: Container, locations: [Location],
                                    report: @escaping @Sendable (WorkProgress) -> Void) async throws -> Measurement? {
        var figures: [LocationUsage] = []
        for location in locations {
            let path = try container.url(for: location).fileSystemPath
            guard try container.folderExists(for: location) else {
                figures.append(LocationUsage(location: location, path: path, exists: false, totals: UsageTotals(path: path), issues: []))
                continue
            }
            let scan = try await UsageScanner(options: .totalsOnly).scan([URL(filePath: path, directoryHint: .isDirectory)]) {
                var progress = $0
                progress.location = location
                report(progress)
            }
            if scan.wasCancelled { return nil }
            figures.append(LocationUsage(location: location, path: path, exists: true, totals: scan.totals, issues: scan.issues))
        }
        if Task.isCancelled { return nil }
        try FaultPoint.overviewMeasured.reach()
        // The reclaimable walk on a thread of its own, as the scans above: never on the pool.
        return Measurement(locations: figures, capacity: try await container.capacity(of: .documents))
    }
}
