import Dispatch
import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

/// The one contract of long-running work, rule by rule, for scans, fills and sweeps alike:
/// cancellation returns the report of what was done, marked cancelled; progress is one
/// `WorkProgress`, from the working thread (outside any task), ending with the report's
/// figures; one default interval.
@Suite("Long-running work contract", .hangLimit)  // an await that never ends fails
struct LongRunningContractTests {
    // MARK: Fixtures

    /// A tree of `folders` folders of `filesEach` one-byte files under `root`.
    static func makeTree(_ root: String, folders: Int, filesEach: Int) throws {
        for part in 0..<folders {
            try FileManager.default.createDirectory(atPath: root + "/\(part)", withIntermediateDirectories: true)
            for index in 0..<filesEach {
                _ = FileManager.default.createFile(atPath: root + "/\(part)/\(index)", contents: Data("x".utf8))
            }
        }
    }

    /// `count` files of 4 KiB in one folder (so a sweep removes them with one thread, in order).
    static func makeCache(_ root: String, count: Int) throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for index in 0..<count {
            _ = FileManager.default.createFile(atPath: root + "/file\(index)", contents: Data(count: 4096))
        }
    }

    static func fileCount(_ path: String) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).count
    }

    // MARK: Cancellation: the report of what was done, marked cancelled

    @Test("a scan cancelled from its first progress report returns what it read, marked cancelled")
    func scanCancellationReturnsPartialReport() async throws {
        let folder = TestFolder()
        try Self.makeTree(folder.path + "/tree", folders: 50, filesEach: 20)
        var options = UsageOptions()
        options.threads = 1  // one worker: it waits in the handler, so nothing is read meanwhile
        let gate = FirstCallGate()
        let task = Task {
            try await UsageScanner(options: options).scan([folder.file("tree")], progressInterval: .zero) { _ in gate.pass() }
        }
        gate.cancelAtFirstCall(task)
        let report = try await task.value
        #expect(gate.wasReached, "progress was reported after the first folder")
        #expect(report.wasCancelled)
        #expect(report.totals.folderCount == 51, "the root and its 50 folders, read before the cancellation")
        #expect(report.totals.fileCount == 0, "no folder was read after it")
    }

    @Test("a fill cancelled from its first progress report returns what it filled, marked cancelled and releasable")
    func fillCancellationReturnsPartialReport() async throws {
        let folder = TestFolder()
        let volume = try ScratchVolume.mount(size: "64m", in: folder)
        let before = try VolumeCapacity.forVolume(containing: volume.url).availableBytes
        let plan = FillPlan(volume: volume.url, goal: .leaving(0), method: .zeros, chunkSizeBytes: 64 << 10)
        let gate = FirstCallGate()
        let task = Task { try await Filler(plan: plan).fill(progressInterval: .zero) { _ in gate.pass() } }
        gate.cancelAtFirstCall(task)
        let report = try await task.value
        #expect(gate.wasReached, "progress was reported after the first chunk")
        #expect(report.wasCancelled && report.ending == .cancelled)
        #expect(report.filledBytes == 64 << 10, "one chunk, then the cancellation")
        let status = try #require(try FillFolder(in: volume.url).status())
        #expect(status.fileCount == report.fileCount)
        try FillFolder(in: volume.url).release()
        #expect(try FillFolder(in: volume.url).status() == nil)
        #expect(try VolumeCapacity.forVolume(containing: volume.url).availableBytes <= before)
    }

    @Test("a sweep cancelled from its first removal returns exactly what it removed, marked cancelled, and records nothing")
    func sweepCancellationReturnsPartialReport() async throws {
        let folder = TestFolder()
        let cache = folder.path + "/cache"
        try Self.makeCache(cache, count: 20)
        let gate = FirstCallGate()
        let task = Task {
            try await Sweeper(policy: SweepPolicy(maximumCount: 0)).sweep(folder.file("cache"), progressInterval: .zero) { progress in
                if progress.phase == .removing { gate.pass() }
            }
        }
        gate.cancelAtFirstCall(task)
        let report = try await task.value
        #expect(gate.wasReached, "progress was reported after the first removal")
        #expect(report.wasCancelled)
        #expect(report.removed.count == 1, "one file, then the cancellation")
        #expect(report.keptFileCount == 19)
        #expect(Self.fileCount(cache) == 19)
        #expect(!FileManager.default.fileExists(atPath: cache + "/" + report.removed[0].path))
        #expect(try Sweeper.lastSweep(of: folder.file("cache")) == nil, "a cancelled sweep writes no record")
    }

    @Test("a sweep cancelled before it starts removes nothing and says so")
    func sweepCancelledBeforeStarting() async throws {
        let folder = TestFolder()
        try Self.makeCache(folder.path + "/cache", count: 5)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await Sweeper(policy: SweepPolicy(maximumCount: 0)).sweep(folder.file("cache"))
        }
        let report = try await task.value
        #expect(report.wasCancelled && report.removed.isEmpty)
        #expect(Self.fileCount(folder.path + "/cache") == 5)
    }

    @Test("only a cancelled report carries wasCancelled in JSON")
    func cancellationEncodedOnlyWhenTrue() throws {
        let folder = TestFolder()
        let report = UsageScanner().scan([folder.url])
        let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        #expect(!json.contains("wasCancelled"))
        var cancelled = report
        cancelled.wasCancelled = true
        let decoded = try JSONDecoder().decode(UsageReport.self, from: try JSONEncoder().encode(cancelled))
        #expect(decoded == cancelled)
        let sweep = try Sweeper(policy: SweepPolicy(maximumCount: 0)).sweep(folder.url, dryRun: true)
        #expect(!String(decoding: try JSONEncoder().encode(sweep), as: UTF8.self).contains("wasCancelled"))
    }

    // MARK: Progress: one WorkProgress, from the working thread, ending with the report's figures

    @Test("a scan reports WorkProgress from its own threads, counting up to the report's figures")
    func scanProgress() async throws {
        let folder = TestFolder()
        try Self.makeTree(folder.path + "/tree", folders: 30, filesEach: 40)
        let log = ProgressLog()
        let report = try await UsageScanner().scan([folder.file("tree")], progressInterval: .zero) { log.record($0) }
        let values = log.values
        let last = try #require(values.last)
        #expect(log.allOutsideTasks, "called on a scanning thread, never on a task of the cooperative pool")
        #expect(values.allSatisfy { $0.phase == .scanning })
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.items <= $1.items && $0.elapsed <= $1.elapsed })
        #expect(last.items == report.totals.fileCount + report.totals.folderCount - 1, "every entry below the root")
        var root = stat()
        lstat(folder.path + "/tree", &root)
        #expect(last.bytes == report.allocatedBytes - Int64(root.st_blocks) * 512)
        #expect(!report.wasCancelled)
    }

    @Test("a fill reports WorkProgress from its thread, ending with the report's figures")
    func fillProgress() async throws {
        let folder = TestFolder()
        let volume = try ScratchVolume.mount(size: "16m", in: folder)
        let plan = FillPlan(volume: volume.url, goal: .leaving(8 << 20), method: .zeros, chunkSizeBytes: 1 << 20)
        let log = ProgressLog()
        let report = try await Filler(plan: plan).fill(progressInterval: .zero) { log.record($0) }
        let values = log.values
        let last = try #require(values.last)
        #expect(log.allOutsideTasks, "called on the filling thread, never on a task of the cooperative pool")
        #expect(values.count >= 2, "after the first chunk, and with the report's figures")
        #expect(values.allSatisfy { $0.phase == .filling && $0.availableBytes != nil && $0.expectedBytes != nil })
        #expect(last.bytes == report.filledBytes && last.items == report.fileCount)
        #expect(last.availableBytes == report.availableBytesAfter)
        let figures = try #require(FillProgress(last))
        #expect(figures.targetAvailableBytes == report.targetAvailableBytes)
        #expect(figures.filledBytes == report.filledBytes)
        try FillFolder(in: volume.url).release()
    }

    @Test("a sweep reports WorkProgress from its threads: choosing, then removing, ending with the report's figures")
    func sweepProgress() async throws {
        let folder = TestFolder()
        for part in 0..<4 { try Self.makeCache(folder.path + "/cache/\(part)", count: 10) }
        let log = ProgressLog()
        let report = try await Sweeper(policy: SweepPolicy(maximumCount: 10)).sweep(folder.file("cache"), progressInterval: .zero) {
            log.record($0)
        }
        let values = log.values
        #expect(log.allOutsideTasks, "called on sweeping threads, never on a task of the cooperative pool")
        let scanning = values.filter { $0.phase == .scanning }
        let removing = values.filter { $0.phase == .removing }
        #expect(!scanning.isEmpty && !removing.isEmpty)
        let firstRemoving = try #require(values.firstIndex { $0.phase == .removing })
        let lastScanning = try #require(values.lastIndex { $0.phase == .scanning })
        #expect(firstRemoving > lastScanning, "every choice is made before the first removal")
        #expect(scanning.last?.items == 80, "40 files, read twice: once to total them, once to choose")
        let last = try #require(removing.last)
        #expect(report.removed.count == 32 && !report.wasCancelled)
        #expect(last.items == report.removed.count)
        #expect(last.bytes == report.freedAllocatedBytes && last.expectedBytes == report.freedAllocatedBytes)
        #expect(zip(removing, removing.dropFirst()).allSatisfy { $0.items <= $1.items })
    }

    // MARK: One default interval

    @Test("scans, fills and sweeps share one default progress interval, 200 ms")
    func oneDefaultInterval() async throws {
        let folder = TestFolder()
        let volume = try ScratchVolume.mount(size: "8m", in: folder)
        try Self.makeCache(folder.path + "/cache", count: 2)
        let probe = TestProbe()
        try await TestProbe.$installed.withValue(probe) {
            _ = try await UsageScanner().scan([folder.file("cache")]) { _ in }
            _ = try await Filler(plan: FillPlan(volume: volume.url, goal: .consuming(1 << 20))).fill { _ in }
            _ = try await Sweeper(policy: SweepPolicy(maximumCount: 0)).sweep(folder.file("cache"), dryRun: true) { _ in }
        }
        #expect(WorkProgress.defaultInterval == .milliseconds(200))
        #expect(probe.intervals == Array(repeating: WorkProgress.defaultInterval, count: 3))
        try FillFolder(in: volume.url).release()
    }
}

/// Cancels a task from the first call of ``pass()``, on the working thread, inside its first
/// progress report: the cancellation point is exact, and the test never races the work (a test
/// that waited for the report, then cancelled, depended on the cooperative pool running it
/// within a limit, which a loaded machine need not do). Cancelling from the progress handler
/// is also what an app's "Stop" button does.
final class FirstCallGate: @unchecked Sendable {  // `calls` and `cancel` are read and written only while `lock` is held
    private let lock = NSLock()
    private let attached = DispatchSemaphore(value: 0)
    private var calls = 0
    private var cancel: (@Sendable () -> Void)?

    /// Cancels `task` at the first ``pass()``. Call it right after making the task, with no
    /// suspension in between: the first call waits for it.
    func cancelAtFirstCall<Success: Sendable, Failure: Error>(_ task: Task<Success, Failure>) {
        lock.withLock { cancel = { task.cancel() } }
        attached.signal()
    }

    func pass() {
        let first = lock.withLock { () -> Bool in
            calls += 1
            return calls == 1
        }
        guard first else { return }
        // A guard only: the test attaches its task right after making it.
        guard attached.wait(timeout: .now() + 600) == .success else { return }
        lock.withLock { cancel }?()
    }

    /// Whether ``pass()`` was called: the work reported progress.
    var wasReached: Bool { lock.withLock { calls > 0 } }
}

/// Every progress value reported, and whether each came from outside any task.
final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [WorkProgress] = []
    private var insideTask = false

    func record(_ progress: WorkProgress) {
        let inTask = withUnsafeCurrentTask { $0 != nil }
        lock.withLock {
            recorded.append(progress)
            insideTask = insideTask || inTask
        }
    }

    var values: [WorkProgress] { lock.withLock { recorded } }
    var allOutsideTasks: Bool { lock.withLock { !insideTask } }

    @Test("scans and sweeps on their own thread reach the bottom of a tree 2,000 folders deep",
          .long("a tree 2,000 folders deep, made, scanned, swept and removed: 16.8 s alone at load 5, 2026-11-28"))
    func deepTree() async throws {
        let folder = TestFolder("deep")
        let root = folder.path + "/tree"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        // Made one level at a time with openat: the whole path is longer than PATH_MAX.
        var fd = open(root, O_RDONLY | O_DIRECTORY)
        var depth = 0
        while depth < 2000 {
            if mkdirat(fd, "d", 0o700) != 0 && errno != EEXIST { break }
            let next = openat(fd, "d", O_RDONLY | O_DIRECTORY)
            close(fd)
            fd = next
            depth += 1
        }
        let file = openat(fd, "f", O_CREAT | O_WRONLY, 0o600)
        close(file)
        close(fd)
        #expect(depth == 2000)
        let report = try await Sweeper(policy: SweepPolicy(maximumCount: 0)).sweep(URL(filePath: root), dryRun: true) { _ in }
        #expect(report.removed.count == 1 && report.removed.first?.path.hasSuffix("/d/f") == true)
        let usage = try await UsageScanner().scan([URL(filePath: root)]) { _ in }
        #expect(usage.totals.fileCount == 1)
    }
}
