import Foundation
import Testing
@testable import Stowage

/// The long-running contract for the container's work and a fill's release: relief, clear,
/// audit and release report one `WorkProgress` from their own thread, ending with the report's
/// figures, and a cancellation returns what was done, marked cancelled.
@Suite("Long-running work contract: relief, clear, audit, release")
struct ContainerWorkContractTests {
    /// A container whose tmp and Caches hold `count` files of 4 KiB each.
    static func container(in folder: TestFolder, count: Int) throws -> Container {
        let container = folder.container()
        try LongRunningContractTests.makeCache(try container.url(for: .temporary).fileSystemPath, count: count)
        try LongRunningContractTests.makeCache(try container.url(for: .caches).fileSystemPath, count: count)
        return container
    }

    // MARK: Relief

    @Test("relief reports each location's sweep, naming the location, ending with the report's figures")
    func reliefProgress() async throws {
        let folder = TestFolder()
        let container = try Self.container(in: folder, count: 10)
        let log = ProgressLog()
        let report = try await SimulatedCapacity.withFigures(available: 0) {
            try await container.relieve(toAvailableBytes: 1 << 40, progressInterval: .zero) { log.record($0) }
        }
        let values = log.values
        #expect(log.allOutsideTasks, "called on sweeping threads, never on a task of the cooperative pool")
        #expect(report.steps.map(\.location) == [.temporary, .caches] && report.freedAllocatedBytes > 0)
        #expect(Set(values.compactMap(\.location)) == [.temporary, .caches] && values.allSatisfy { $0.location != nil })
        for step in report.steps {
            let location = step.location
            let last = try #require(values.last { $0.location == location && $0.phase == .removing })
            #expect(last.items == step.report.removed.count && last.bytes == step.report.freedAllocatedBytes)
        }
        let firstCaches = try #require(values.firstIndex { $0.location == .caches })
        let lastTemporary = try #require(values.lastIndex { $0.location == .temporary })
        #expect(firstCaches > lastTemporary, "the temporary folder is relieved before the caches")
        #expect(!report.wasCancelled)
    }

    @Test("relief cancelled from its first removal stops there: one file gone, no later location swept")
    func reliefCancellation() async throws {
        let folder = TestFolder()
        let container = try Self.container(in: folder, count: 10)
        let gate = FirstCallGate()
        let task = Task {
            try await SimulatedCapacity.withFigures(available: 0) {
                try await container.relieve(toAvailableBytes: 1 << 40, progressInterval: .zero) { progress in
                    if progress.phase == .removing { gate.pass() }
                }
            }
        }
        gate.cancelAtFirstCall(task)
        let report = try await task.value
        #expect(gate.wasReached)
        #expect(report.wasCancelled && !report.isSatisfied)
        #expect(report.steps.map(\.location) == [.temporary])
        #expect(report.steps.first?.report.removed.count == 1)
        #expect(LongRunningContractTests.fileCount(try container.url(for: .temporary).fileSystemPath) == 9)
        #expect(LongRunningContractTests.fileCount(try container.url(for: .caches).fileSystemPath) == 10)
    }

    @Test("the async relief sees the caller's simulated figures, as the synchronous one does")
    func reliefSimulatedOnItsThread() async throws {
        let folder = TestFolder()
        let container = try Self.container(in: folder, count: 2)
        let report = try await SimulatedCapacity.withFigures(available: 1000) {
            try await container.relieve(toAvailableBytes: 5000, dryRun: true) { _ in }
        }
        #expect(report.isSimulated && report.availableBytesBefore == 1000 && report.neededBytes == 4000)
    }

    // MARK: Clear

    @Test("clear reports reading then removing in its location, ending with the report's figures")
    func clearProgress() async throws {
        let folder = TestFolder()
        let container = try Self.container(in: folder, count: 12)
        let log = ProgressLog()
        let report = try await Store(container: container).clear(.caches, progressInterval: .zero) { log.record($0) }
        let values = log.values
        #expect(log.allOutsideTasks)
        #expect(values.allSatisfy { $0.location == .caches })
        #expect(values.last { $0.phase == .scanning }?.items == 12)
        let last = try #require(values.last)
        #expect(last.phase == .removing && last.items == report.removed.count && report.removed.count == 12)
        #expect(last.bytes == report.freedAllocatedBytes && last.expectedBytes == report.freedAllocatedBytes)
    }

    @Test("clear cancelled from its first removal returns exactly what it removed, marked cancelled")
    func clearCancellation() async throws {
        let folder = TestFolder()
        let container = try Self.container(in: folder, count: 10)
        let gate = FirstCallGate()
        let task = Task {
            try await Store(container: container).clear(.caches, progressInterval: .zero) { progress in
                if progress.phase == .removing { gate.pass() }
            }
        }
        gate.cancelAtFirstCall(task)
        let report = try await task.value
        #expect(gate.wasReached)
        #expect(report.wasCancelled && report.removed.count == 1)
        #expect(LongRunningContractTests.fileCount(try container.url(for: .caches).fileSystemPath) == 9)
    }

    // MARK: Audit

    @Test("audit counts every file its walks examine, naming the location read")
    func auditProgress() async throws {
        let folder = TestFolder()
        let container = try Self.container(in: folder, count: 5)
        try LongRunningContractTests.makeCache(try container.url(for: .documents).fileSystemPath, count: 3)
        let log = ProgressLog()
        let report = try await container.audit(progressInterval: .zero) { log.record($0) }
        let values = log.values
        #expect(log.allOutsideTasks)
        #expect(values.allSatisfy { $0.phase == .scanning && $0.location != nil })
        // What pressure would free: tmp (5), caches (5), documents (3, read for purgeable marks);
        // then the findings: caches (5) and documents (3).
        #expect(values.last?.items == 21 && values.last?.bytes == 21 * 4096)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.items <= $1.items })
        #expect(report.purgeableUnderPressure.map(\.fileCount) == [5, 5] && !report.wasCancelled)
    }

    @Test("audit cancelled from its first report returns what it found until then, marked cancelled")
    func auditCancellation() async throws {
        let folder = TestFolder()
        let container = try Self.container(in: folder, count: 5)
        let gate = FirstCallGate()
        let task = Task { try await container.audit(progressInterval: .zero) { _ in gate.pass() } }
        gate.cancelAtFirstCall(task)
        let report = try await task.value
        #expect(gate.wasReached)
        #expect(report.wasCancelled)
        #expect(report.findings.isEmpty && report.purgeableUnderPressure.isEmpty)
    }

    // MARK: Release

    @Test("release reports the files removed and the bytes given back, of what the fill holds")
    func releaseProgress() async throws {
        let folder = TestFolder()
        let volume = try ScratchVolume.mount(size: "16m", in: folder)
        let plan = FillPlan(volume: volume.url, goal: .consuming(4 << 20), method: .zeros, chunkSizeBytes: 1 << 20)
        let fill = try await Filler(plan: plan).fill { _ in }
        let log = ProgressLog()
        let report = try await FillFolder(in: volume.url).release(progressInterval: .zero) { log.record($0) }
        let values = log.values
        #expect(log.allOutsideTasks)
        #expect(values.allSatisfy { $0.phase == .removing && $0.expectedBytes == fill.filledBytes })
        #expect(values.first?.items == 0 && values.last?.items == report.removedFileCount && report.removedFileCount == fill.fileCount)
        #expect(values.last?.bytes == report.releasedBytes && !report.wasCancelled)
        #expect(try FillFolder(in: volume.url).status() == nil)
    }

    @Test("release cancelled from its first report gives back nothing more and keeps the manifest, for a later release")
    func releaseCancellation() async throws {
        let folder = TestFolder()
        let volume = try ScratchVolume.mount(size: "16m", in: folder)
        // Fill files are up to 1 GiB: this fill makes one, and the release reports before it.
        let plan = FillPlan(volume: volume.url, goal: .consuming(4 << 20), method: .zeros, chunkSizeBytes: 1 << 20)
        let fill = try await Filler(plan: plan).fill { _ in }
        let gate = FirstCallGate()
        let task = Task {
            try await FillFolder(in: volume.url).release(progressInterval: .zero) { _ in gate.pass() }
        }
        gate.cancelAtFirstCall(task)
        let report = try await task.value
        #expect(gate.wasReached)
        #expect(report.wasCancelled && report.removedFileCount == 0 && report.remainingBytes == fill.filledBytes)
        #expect(try FillFolder(in: volume.url).status()?.fileCount == fill.fileCount)
        let rest = try FillFolder(in: volume.url).release()
        #expect(rest.removedFileCount == fill.fileCount && rest.releasedBytes == fill.filledBytes && !rest.wasCancelled)
        #expect(try FillFolder(in: volume.url).status() == nil)
    }

    // MARK: One reporter, several locations

    @Test("figures of a new location are delivered even though they count from zero again")
    func newLocationStartsAfresh() {
        let log = ProgressLog()
        let reporter = ProgressReporter(interval: .zero) { log.record($0) }
        reporter.report(.scanning, items: 10, bytes: 100, location: .temporary)
        reporter.report(.scanning, items: 1, bytes: 10, location: .caches)
        reporter.report(.scanning, items: 0, bytes: 0, location: .caches)  // older figures: dropped
        #expect(log.values.map(\.items) == [10, 1])
        #expect(log.values.map(\.location) == [.temporary, .caches])
    }
}
