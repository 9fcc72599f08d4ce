import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

@Suite("PressureWatcher", .hangLimit)  // an await that never ends fails
struct PressureWatcherTests {
    /// A container on a private tmpfs (nobody else writes there, so its figures are exact),
    /// with files in tmp and Caches: what a check that scanned them would have to read.
    private static func populatedStore(in folder: TestFolder) throws -> (ScratchVolume, Store) {
        let volume = try ScratchVolume.mount(size: "16m", in: folder)
        let store = Store(container: Container(root: volume.url))
        try store.save(Data(count: 8192), to: "t1", in: .temporary)
        for index in 0..<5 { try store.save(Data(count: 4096), to: "sub/c\(index)", in: .caches) }
        try store.save(Data(count: 4096), to: "precious.doc", in: .documents)
        return (volume, store)
    }

    @Test("an event's line in either unit style: the description is the decimal one")
    func eventFormatted() {
        let fine = PressureWatcher.Event(date: Date(), availableBytes: 1_048_576, relief: nil)
        #expect(fine.formatted(.binary) == "available 1 MiB: fine")
        #expect(fine.description == "available 1 MB: fine" && fine.formatted() == fine.description)
        let relief = ReliefReport(targetAvailableBytes: 2_097_152, availableBytesBefore: 1_048_576, neededBytes: 1_048_576,
                                  freedAllocatedBytes: 4096, isSatisfied: false, isDryRun: false, isSimulated: true, steps: [])
        let short = PressureWatcher.Event(date: Date(), availableBytes: 1_048_576, relief: relief)
        #expect(short.formatted(.binary) == "available 1 MiB < 2 MiB: freed 4 KiB (not enough could be freed)")
        #expect(short.description == "available 1 MB < 2.1 MB: freed 4.1 kB (not enough could be freed)")
    }

    @Test("100 idle checks walk no tree: no scan of tmp, Caches or the other locations, no sweep")
    func idleChecksWalkNothing() throws {
        let folder = TestFolder()
        let (volume, store) = try Self.populatedStore(in: folder)
        let real = try VolumeCapacity.forVolume(containing: volume.url).availableBytes
        let watcher = PressureWatcher(container: store.container, thresholdBytes: 1, interval: .seconds(1))
        let counter = TestProbe()
        let events = try TestProbe.$installed.withValue(counter) {
            try (0..<100).map { _ in try watcher.check() }
        }
        #expect(counter.count(.usageScan) == 0)
        #expect(counter.count(.fileTreeWalk) == 0)
        #expect(events.allSatisfy { $0.relief == nil && $0.availableBytes == real })

        // Simulated figures are honoured the same way, still without a scan.
        let simulated = try SimulatedCapacity.withFigures(available: 5_000_000) {
            try TestProbe.$installed.withValue(counter) {
                try PressureWatcher(container: store.container, thresholdBytes: 4_000_000, interval: .seconds(1)).check()
            }
        }
        #expect(simulated.availableBytes == 5_000_000 && simulated.relief == nil)
        #expect(counter.count(.usageScan) + counter.count(.fileTreeWalk) == 0)
    }

    @Test("a check that relieves walks only the locations it relieves, each once")
    func relievingCheckWalksOnlyWhatItSweeps() throws {
        let folder = TestFolder()
        let (volume, store) = try Self.populatedStore(in: folder)
        defer { withExtendedLifetime(volume) {} }
        let watcher = PressureWatcher(container: store.container, thresholdBytes: 4096 + 16_384, interval: .seconds(1))
        let counter = TestProbe()
        // Pretend 4 KiB are available: 16 KiB must go, tmp's 8 KiB and then two caches.
        let event = try SimulatedCapacity.withFigures(available: 4096) {
            try TestProbe.$installed.withValue(counter) { try watcher.check() }
        }
        let relief = try #require(event.relief)
        #expect(event.availableBytes == 4096)
        #expect(relief.isSimulated && relief.availableBytesBefore == 4096 && relief.neededBytes == 16_384)
        #expect(relief.steps.map(\.location) == [.temporary, .caches])
        #expect(relief.isSatisfied)
        #expect(try store.exists("precious.doc", in: .documents))
        // Measuring is one statvfs: the only walks are the removal walks of the two locations
        // relieved, one each.
        #expect(counter.count(.usageScan) == 0)
        #expect(counter.count(.fileTreeWalk) == relief.steps.count)
    }

    @Test("available space is what capacity(of:) reports, real or simulated, without its scan")
    func availableSpaceMatchesCapacity() throws {
        let folder = TestFolder()
        let (volume, store) = try Self.populatedStore(in: folder)
        let container = store.container
        let counter = TestProbe()
        let space = try TestProbe.$installed.withValue(counter) { try container.availableSpace(of: .documents) }
        #expect(counter.count(.usageScan) + counter.count(.fileTreeWalk) == 0)
        let capacity = try container.capacity(of: .documents)
        #expect(space == AvailableSpace(availableBytes: capacity.availableBytes, isSimulated: false))
        #expect(space.availableBytes == (16 << 20) - 4096 * 9, "tmp, five caches, the document and CACHEDIR.TAG")

        // Simulated: the figures, clamped to the simulated total as capacity(of:) clamps them.
        for (available, total) in [(1_000_000, nil), (2_000_000, 3_000_000), (9_000_000, 3_000_000)] as [(Int64, Int64?)] {
            try SimulatedCapacity.withFigures(available: ByteCount(available), total: total.map { ByteCount($0) }) {
                let simulated = try container.availableSpace()
                let capacity = try container.capacity()
                #expect(simulated == AvailableSpace(availableBytes: capacity.availableBytes, isSimulated: true))
                #expect(simulated.availableBytes == min(available, total ?? .max))
            }
        }

        // A location whose folder does not exist yet: the nearest existing folder is measured.
        let fresh = Container(root: volume.url.appending(path: "not/made/yet", directoryHint: .isDirectory))
        #expect(try fresh.availableSpace(of: .caches).availableBytes == capacity.availableBytes)
    }

    @Test("relieve(toAvailableBytes:) measures without a scan too")
    func reliefMeasuresCheaply() throws {
        let folder = TestFolder()
        let (volume, store) = try Self.populatedStore(in: folder)
        defer { withExtendedLifetime(volume) {} }
        let counter = TestProbe()
        let report = try SimulatedCapacity.withFigures(available: 1_000_000) {
            try TestProbe.$installed.withValue(counter) { try store.container.relieve(toAvailableBytes: 1000) }
        }
        #expect(report.neededBytes == 0 && report.steps.isEmpty && report.isSimulated)
        #expect(counter.count(.usageScan) + counter.count(.fileTreeWalk) == 0)
    }

    @Test("the threshold is the boundary: exactly at it a check is fine, one byte below it relieves (sync, async and relieve)")
    func thresholdBoundary() async throws {
        let folder = TestFolder()
        let (volume, store) = try Self.populatedStore(in: folder)
        defer { withExtendedLifetime(volume) {} }
        let threshold: Int64 = 1_000_000
        let watcher = PressureWatcher(container: store.container, thresholdBytes: threshold, interval: .seconds(1))
        func at(_ available: Int64) -> ByteCount { ByteCount(available) }

        // Exactly at the threshold: "below the threshold" is false, nothing is needed, nothing goes.
        let fine = try SimulatedCapacity.withFigures(available: at(threshold)) { try watcher.check() }
        let fineAsync = try await SimulatedCapacity.withFigures(available: at(threshold)) { try await watcher.check() }
        let none = try SimulatedCapacity.withFigures(available: at(threshold)) { try store.container.relieve(toAvailableBytes: threshold) }
        #expect(fine.relief == nil && fine.availableBytes == threshold)
        #expect(fineAsync.relief == nil && fineAsync.availableBytes == threshold)
        #expect(none.neededBytes == 0 && none.steps.isEmpty && none.isSatisfied && none.freedAllocatedBytes == 0)
        #expect(try store.exists("t1", in: .temporary))

        // One byte below: one byte is needed; the oldest temporary file goes, and only it.
        let short = try SimulatedCapacity.withFigures(available: at(threshold - 1)) { try watcher.check() }
        let relief = try #require(short.relief, "one byte below the threshold relieves")
        #expect(relief.neededBytes == 1 && relief.isSatisfied && relief.freedAllocatedBytes == 8192)
        #expect(relief.steps.map(\.location) == [.temporary])
        #expect(relief.steps[0].report.removed.map(\.path) == ["t1"])
        #expect(try !store.exists("t1", in: .temporary))
        try store.save(Data(count: 8192), to: "t1", in: .temporary)
        let shortAsync = try await SimulatedCapacity.withFigures(available: at(threshold - 1)) { try await watcher.check() }
        #expect(shortAsync.relief?.neededBytes == 1 && shortAsync.relief?.steps.map(\.location) == [.temporary])

        // Freeing exactly what is needed satisfies it, and the relief stops there (Caches untouched);
        // one byte more and Caches are swept too.
        try store.save(Data(count: 8192), to: "t1", in: .temporary)
        let exact = try SimulatedCapacity.withFigures(available: at(threshold - 8192)) { try store.container.relieve(toAvailableBytes: threshold) }
        #expect(exact.neededBytes == 8192 && exact.freedAllocatedBytes == 8192 && exact.isSatisfied)
        #expect(exact.steps.map(\.location) == [.temporary])
        try store.save(Data(count: 8192), to: "t1", in: .temporary)
        let more = try SimulatedCapacity.withFigures(available: at(threshold - 8193)) { try store.container.relieve(toAvailableBytes: threshold) }
        #expect(more.steps.map(\.location) == [.temporary, .caches] && more.isSatisfied)
        #expect(more.steps[1].report.removed.count == 1 && more.freedAllocatedBytes == 8192 + 4096)
    }
}
