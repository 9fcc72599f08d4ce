import Foundation
import Testing
@testable import Stowage

/// The rule that picks a volume's important and opportunistic figures: the system's (Apple's
/// resource values) when believable, else Stowage's own. Shared by every platform, so it is
/// tested here with a real volume's `statvfs` figures standing in for `statfs`.
@Suite("VolumeCapacity.usageFigures")
struct UsageFiguresTests {
    /// The statistics of the volume holding a fresh folder, with the given system figures.
    func statistics(important: Int64?, opportunistic: Int64?, in folder: TestFolder) throws -> VolumeStatistics {
        var statistics = try VolumeStatistics.of(path: folder.path)
        try #require(statistics.available > 0, "the test needs a volume with space available")
        statistics.systemImportant = important
        statistics.systemOpportunistic = opportunistic
        return statistics
    }

    @Test("a system important figure of 0 while the volume has space available gives Stowage's own figures")
    func zeroWithSpace() throws {
        let folder = TestFolder()
        let statistics = try statistics(important: 0, opportunistic: 0, in: folder)
        let capacity = VolumeCapacity(statistics: statistics, path: folder.path, reclaimable: 4096, simulated: nil)
        #expect(capacity.availableForImportantUsageBytes == min(statistics.total, statistics.available + 4096))
        #expect(capacity.availableForOpportunisticUsageBytes
            == max(0, statistics.available - VolumeCapacity.headroom(forTotal: statistics.total)))
        #expect(capacity.availableForImportantUsageBytes > 0)
    }

    @Test("the system's figures are kept when its important figure is not 0, a 0 opportunistic figure included")
    func believableKept() throws {
        let folder = TestFolder()
        let statistics = try statistics(important: 123_456_789, opportunistic: 0, in: folder)
        let capacity = VolumeCapacity(statistics: statistics, path: folder.path, reclaimable: 4096, simulated: nil)
        #expect(capacity.availableForImportantUsageBytes == 123_456_789)
        #expect(capacity.availableForOpportunisticUsageBytes == 0)
    }

    @Test("on a full volume the system's 0 stands, even where Stowage's own figure would count reclaimable space")
    func fullVolumeZeroKept() {
        let system = VolumeCapacity.UsageFigures(important: 0, opportunistic: 0)
        let figures = VolumeCapacity.usageFigures(system: system, total: 1 << 30, available: 0, reclaimable: 500)
        #expect(figures == VolumeCapacity.UsageFigures(important: 0, opportunistic: 0))
    }

    @Test("without system figures, or with only one of the two, Stowage's own figures are used")
    func missingFigures() {
        // 15% of 1000 is 150; important is never more than the volume.
        #expect(VolumeCapacity.usageFigures(system: nil, total: 1000, available: 1000, reclaimable: 24)
            == VolumeCapacity.UsageFigures(important: 1000, opportunistic: 850))
        #expect(VolumeCapacity.usageFigures(system: nil, total: 10_000, available: 1000, reclaimable: 24)
            == VolumeCapacity.UsageFigures(important: 1024, opportunistic: 0))
        var statistics = VolumeStatistics(blockSize: 4096, total: 10_000, available: 1000, free: 1000, device: 1,
                                          mountPoint: nil, fileSystemType: nil, systemImportant: 5000, systemOpportunistic: nil)
        #expect(VolumeCapacity.UsageFigures(statistics) == nil)
        statistics.systemOpportunistic = 7
        #expect(VolumeCapacity.UsageFigures(statistics) == VolumeCapacity.UsageFigures(important: 5000, opportunistic: 7))
    }

    @Test("simulated figures never take the system's")
    func simulatedIgnoresSystem() throws {
        let folder = TestFolder()
        let statistics = try statistics(important: 123_456_789, opportunistic: 99, in: folder)
        let simulated = SimulatedCapacity.Figures(availableBytes: 1000, totalBytes: 10_000)
        let capacity = VolumeCapacity(statistics: statistics, path: folder.path, reclaimable: 24, simulated: simulated)
        #expect(capacity.availableForImportantUsageBytes == 1024)
        #expect(capacity.availableForOpportunisticUsageBytes == 0)
    }
}
