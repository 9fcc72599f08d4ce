import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

/// The settings-screen model on real folders, and a relief cancelled as a background task's
/// expiration handler cancels it.
@Suite("StorageOverview and cancelled relief", .hangLimit)
struct StorageOverviewTests {
    /// The model of the container in `folder`, which gets `caches` cache files, a document and a
    /// file in tmp.
    @MainActor func populatedModel(_ folder: TestFolder, caches: Int = 40) throws -> StorageOverview {
        for index in 0..<caches { try folder.write(String(repeating: "c", count: 3000 + index), to: "container/Library/Caches/c/\(index).bin") }
        try folder.write(String(repeating: "d", count: 70_000), to: "container/Documents/notes.txt")
        try folder.write("scratch", to: "container/tmp/scratch")
        return StorageOverview(container: folder.container())
    }

    /// What `stowage usage` counts for `url` (the synchronous scan).
    static func scanned(_ url: URL) -> UsageTotals { UsageScanner().scan([url]).totals }

    @Test("each location's figures equal a usage scan of its folder; capacity and reclaimable are the container's")
    @MainActor func figuresEqualUsage() async throws {
        let folder = TestFolder()
        let model = try populatedModel(folder)
        let container = model.container
        #expect(model.locations.isEmpty && model.capacity == nil && model.formattedSize(of: .caches) == "–")
        try await model.refresh()
        #expect(model.locations.map(\.location) == Location.standard)
        for figures in model.locations {
            let url = try container.url(for: figures.location)
            if figures.exists {
                #expect(figures.totals == Self.scanned(url), "\(figures.location)")
            } else {
                #expect(figures.totals.allocatedBytes == 0 && figures.totals.fileCount == 0)
            }
        }
        #expect(model.usage(of: .caches)?.totals.fileCount == 40)
        #expect(model.usage(of: .preferences)?.exists == false)
        let capacity = try await container.capacity(of: .documents)
        #expect(model.reclaimableBytes == capacity.reclaimableBytes && model.reclaimableBytes > 0)
        let documents = try #require(model.usage(of: .documents))
        #expect(model.formattedSize(of: .documents) == ByteCount(documents.totals.allocatedBytes).formatted(.decimal))
        #expect(!model.isRefreshing && model.progress == nil && model.refreshed != nil)
    }

    @Test("clear empties the location, keeps the others, and measures again")
    @MainActor func clear() async throws {
        let folder = TestFolder()
        let model = try populatedModel(folder)
        try await model.refresh()
        let documents = model.usage(of: .documents)
        let report = try await model.clear(.caches)
        #expect(report.removed.count == 40 && !report.wasCancelled)
        #expect(model.usage(of: .caches)?.totals.fileCount == 0)
        #expect(model.usage(of: .documents) == documents)
        #expect(folder.exists("container/Documents/notes.txt"))
        #expect(model.clearing == nil && model.progress == nil)
    }

    @Test("a clear that ends while a refresh measures: the refresh measures again, and never shows what the clear removed")
    @MainActor func clearDuringRefresh() async throws {
        let folder = TestFolder()
        let model = try populatedModel(folder, caches: 60)
        // The refresh stops once it has measured the locations (the caches with their 60 files),
        // until the clear has ended: the order a slow refresh and a quick clear can take. The
        // waits are long: the held refresh keeps a thread of the cooperative pool, and under the
        // full suite the clear may wait minutes for the other one (a short timeout let the refresh
        // go on before the clear, and the test then proved nothing).
        let probe = TestProbe()
        let reached = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        probe.on(.overviewMeasured) { hit in
            if hit == 1 {
                reached.signal()
                _ = proceed.wait(timeout: .now() + 480)
            }
        }
        try await TestProbe.$installed.withValue(probe) { @MainActor in
            let refresh = Task { @MainActor in try await model.refresh() }
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    _ = reached.wait(timeout: .now() + 480)
                    done.resume()
                }
            }
            let report = try await model.clear(.caches)
            proceed.signal()
            try await refresh.value
            #expect(report.removed.count == 60)
        }
        #expect(probe.hits(of: .overviewMeasured) == 3, "the refresh, the clear's own measurement, the refresh again")
        #expect(model.usage(of: .caches)?.totals.fileCount == 0, "\(String(describing: model.usage(of: .caches)))")
    }

    @Test("a second clear while one runs is busy, names the one under way, and removes nothing")
    @MainActor func secondClearIsBusy() async throws {
        let folder = TestFolder()
        let model = try populatedModel(folder)
        // The first clear runs on the main actor until its removal is under way (its first
        // suspension); the yield resumes this test right after that, the clear still running.
        // Nothing is held, so no thread of the cooperative pool waits.
        let first = Task { @MainActor in try await model.clear(.caches) }
        await Task.yield()
        #expect(model.clearing == .caches)
        await #expect {
            try await model.clear(.temporary)
        } throws: { error in
            let error = error as? StowageError
            return error?.code == .busy && error?.description.contains("Caches is being cleared") == true
        }
        let report = try await first.value
        #expect(report.removed.count == 40)
        #expect(folder.exists("container/tmp/scratch"), "the refused clear removed nothing")
        #expect(model.clearing == nil)
    }

    @Test("a refresh never holds the main actor: it keeps taking turns while 40,000 files are measured")
    @MainActor func refreshLeavesTheMainActorFree() async throws {
        let folder = TestFolder()
        let store = folder.store()
        try await Self.writeBulk(store)
        let model = StorageOverview(container: store.container)
        let gaps = Gaps()
        let ticker = Task { @MainActor in
            var last = ContinuousClock.now
            while gaps.refreshing {
                try? await Task.sleep(for: .milliseconds(1))
                let now = ContinuousClock.now
                gaps.longest = max(gaps.longest, now - last)
                last = now
                gaps.turns += 1
            }
        }
        let began = ContinuousClock.now
        try await model.refresh()
        let took = ContinuousClock.now - began
        gaps.refreshing = false
        await ticker.value
        #expect((model.usage(of: .caches)?.totals.fileCount ?? 0) >= 20_000)
        // A walk on the main actor would hold it for the whole refresh: no turn in between. The
        // longest gap is a figure, not an assertion (other main-actor tests share it in a full
        // run): 5.4 ms alone here, printed on every run; a frame is 16.7 ms at 60 Hz.
        #expect(gaps.turns >= 2, "the main actor ran \(gaps.turns) times during a \(took) refresh")
        print("overview refresh of 40,000 files took \(took); the main actor ran \(gaps.turns) times, the longest gap \(gaps.longest)")
    }

    /// 20,000 one-byte files in `bulk` of Caches and of Documents, written off the main actor
    /// (seconds of work: on it, every other main-actor test of a full run waited for them).
    nonisolated static func writeBulk(_ store: Store) async throws {
        for location in [Location.caches, .documents] {
            try store.save(Data(count: 1), to: "bulk/0", in: location)
            let bulk = try store.url(for: "bulk", in: location).path(percentEncoded: false)
            for index in 1..<20_000 { try RawFiles.writeFile(atPath: bulk + "/\(index)", Data(count: 1)) }
        }
    }

    /// The main actor's turns during a refresh.
    @MainActor final class Gaps {
        var refreshing = true
        var longest = Duration.zero
        var turns = 0
    }

    @Test("a cancelled clear keeps what it did not reach, and the figures are measured again all the same")
    @MainActor func cancelledClearMeasuresAgain() async throws {
        let folder = TestFolder()
        let model = try populatedModel(folder)
        try await model.refresh()
        for index in 0..<5 { try folder.write("new", to: "container/Library/Caches/new/\(index).bin") }
        let clearing = Task { @MainActor in try await model.clear(.caches) }
        clearing.cancel()  // before it starts: the clear removes nothing
        let report = try await clearing.value
        #expect(report.wasCancelled && report.removed.isEmpty)
        #expect(model.usage(of: .caches)?.totals.fileCount == 45, "the caches as they are now, not as the refresh saw them")
    }

    @Test("a cancelled refresh keeps the figures from before")
    @MainActor func cancelledRefresh() async throws {
        let folder = TestFolder()
        let model = try populatedModel(folder)
        let task = Task { @MainActor in try await model.refresh() }
        task.cancel()
        try await task.value
        #expect(model.locations.isEmpty && model.capacity == nil && model.refreshed == nil)
        #expect(!model.isRefreshing)
        try await model.refresh()
        #expect(model.usage(of: .caches)?.totals.fileCount == 40)
    }

    @Test("a relief cancelled in the middle stops before its next file and reports exactly what it removed")
    func cancelledRelief() async throws {
        let folder = TestFolder()
        for index in 0..<300 { try folder.write(String(repeating: "x", count: 4000), to: "container/Library/Caches/\(index).bin") }
        try folder.write(String(repeating: "p", count: 4000), to: "container/Documents/keep.bin")
        let container = folder.container()
        try Store(container: container).mark("keep.bin", in: .documents, .purgeable)
        let caches = folder.file("container/Library/Caches").path
        let canceller = TaskCanceller(watching: caches)
        let task = Task.detached {
            try await SimulatedCapacity.withFigures(available: 0) {
                try await container.relieve(toAvailableBytes: 1_000_000_000, progressInterval: .zero) { progress in
                    if progress.phase == .removing, progress.items >= 100 { canceller.cancel() }
                }
            }
        }
        canceller.attach(task)
        let report = try await task.value
        // When the removal walk let go of the Caches folder (its lock), seen by a thread of the
        // test's own: the walk's stop, not how soon a busy test process resumes this task.
        // How soon is a figure, printed on every run, not an assertion (a loaded machine can hold
        // any thread back): 0.4 ms here alone.
        let cancelledAt = try #require(canceller.cancelledAt, "the relief reached its 100th removal")
        let stopped = try #require(canceller.walkStopped(within: .seconds(600)))
        print("relief cancelled after 100 removals: the walk let go of the folder \(stopped - cancelledAt) later")
        #expect(report.wasCancelled && !report.isSatisfied)
        let removed = report.steps.flatMap(\.report.removed).map(\.path)
        #expect(removed.count == 100, "stopped before the next file after the 100th")
        let remaining = Set(try FileManager.default.contentsOfDirectory(atPath: folder.file("container/Library/Caches").path))
        #expect(remaining.count == 200 && remaining.isDisjoint(with: removed), "what was not reached stays; what is reported is gone")
        #expect(folder.exists("container/Documents/keep.bin"), "no later location was swept")
        #expect(report.steps.map(\.location) == [.temporary, .caches] || report.steps.map(\.location) == [.caches])
        #expect(report.freedAllocatedBytes == report.steps.flatMap(\.report.removed).reduce(0) { $0 + $1.allocatedBytes })
    }
}

/// Cancels a task from another thread (a progress handler), says when, and sees when the
/// removal walk lets go of the folder it removes from: a thread of its own waits for the walk's
/// lock on the folder (`flock`), which the walk holds until it stops.
///
/// `@unchecked Sendable`: the mutable fields are read and written only under `lock`.
final class TaskCanceller: @unchecked Sendable {
    private let folder: String
    private let lock = NSLock()
    private let released = DispatchSemaphore(value: 0)
    private var task: Task<ReliefReport, any Error>?
    private var cancelled: ContinuousClock.Instant?
    private var stopped: ContinuousClock.Instant?

    init(watching folder: String) { self.folder = folder }

    private let attached = DispatchSemaphore(value: 0)

    /// The task to cancel; attach it right after making it (a ``cancel()`` before waits for it).
    func attach(_ task: Task<ReliefReport, any Error>) {
        lock.withLock { self.task = task }
        attached.signal()
    }

    /// Cancels the task (once), then waits on a new thread for the walk's lock on the folder.
    func cancel() {
        let first: Bool = lock.withLock {
            guard cancelled == nil else { return false }
            cancelled = .now
            return true
        }
        guard first else { return }
        // A guard only: the test attaches its task right after making it.
        guard attached.wait(timeout: .now() + 600) == .success else { return }
        lock.withLock { task }?.cancel()
        let folder = folder
        Thread.detachNewThread { [self] in
            let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if descriptor >= 0 {
                _ = flock(descriptor, LOCK_SH)  // blocks while the walk holds its exclusive lock
                let now = ContinuousClock.now
                lock.withLock { stopped = now }
                close(descriptor)
            }
            released.signal()
        }
    }

    var cancelledAt: ContinuousClock.Instant? { lock.withLock { cancelled } }

    /// When the walk let go of the folder, waiting at most `limit` for it.
    func walkStopped(within limit: Duration) -> ContinuousClock.Instant? {
        guard released.wait(timeout: .now() + .milliseconds(Int(limit.components.seconds * 1000))) == .success else { return nil }
        return lock.withLock { stopped }
    }
}
