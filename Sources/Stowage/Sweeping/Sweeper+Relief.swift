import Foundation

/// What ``Container/relieve(toAvailable:dryRun:)`` did.
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
    public var dryRun: Bool
    /// Whether the capacity figures were simulated.
    public var isSimulated: Bool
    /// Each location swept, in the order swept.
    public var steps: [ReliefStep]
}

/// One location swept by pressure relief.
public struct ReliefStep: Sendable, Hashable, Codable {
    /// The location's identifier (`temporary`, `caches`, `documents`, ...).
    public var location: String
    /// What the sweep of that location removed.
    public var report: SweepReport
}

extension Container {
    /// Frees space until the volume of Documents has `target` bytes available, in purge order,
    /// stopping as soon as the target is met:
    /// 1. temporary files, oldest first;
    /// 2. caches, least recently used first;
    /// 3. files marked ``Marker/purgeable`` in the other locations, least recently used first.
    ///
    /// Documents, Application Support, Preferences and shared containers lose nothing else, and
    /// files marked ``Marker/pinned`` are never removed. Only locations on the same volume
    /// count. The bytes needed are `target - available`, measured once (simulated figures when
    /// ``SimulatedCapacity`` is on), so tests can drive relief without filling a disk.
    ///
    /// - Throws: as ``capacity(of:)``; files that cannot be removed are issues in the steps.
    public func relieve(toAvailable target: Int64, dryRun: Bool = false, now: Date = Date()) throws -> ReliefReport {
        let capacity = try capacity(of: .documents)
        let needed = max(0, target - capacity.available)
        var report = ReliefReport(targetAvailableBytes: target, availableBytesBefore: capacity.available,
                                  neededBytes: needed, freedAllocatedBytes: 0, isSatisfied: needed == 0,
                                  dryRun: dryRun, isSimulated: capacity.isSimulated, steps: [])
        guard needed > 0 else { return report }
        let volume = try VolumeStatistics.of(path: existingAncestor(of: url(for: .documents))).device
        let plan: [(Location, SweepOrder, Bool)] =
            [(.temporary, .oldestModified, false), (.caches, .leastRecentlyUsed, false)]
            + [Location.documents, .applicationSupport, .preferences].map { ($0, SweepOrder.leastRecentlyUsed, true) }
        for (location, order, purgeableOnly) in plan {
            let remaining = needed - report.freedAllocatedBytes
            guard remaining > 0 else { break }
            guard let folder = try openFolder(of: location, create: false, operation: .sweep),
                  try folder.status().device == volume else { continue }
            let policy = SweepPolicy(order: order, leftoverGracePeriod: 0)
            // The folder just opened (and, for tmp, checked to be the user's own), not its path
            // looked up again, which a swapped-in link could lead elsewhere.
            let step = try Sweeper.run(root: folder, path: try url(for: location).fileSystemPath, policy: policy,
                                       goal: .free(remaining, purgeableOnly: purgeableOnly), dryRun: dryRun, now: now)
            report.freedAllocatedBytes += step.freedAllocatedBytes
            report.steps.append(ReliefStep(location: location.identifier, report: step))
        }
        report.isSatisfied = report.freedAllocatedBytes >= needed
        return report
    }
}
