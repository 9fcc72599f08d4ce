import Foundation
import Testing
@testable import Stowage

/// Many writers on one file, and sweepers racing a writer on one folder.
@Suite("Reliability: contention", .long("16 processes make 4,000 durable appends, each waiting for fsync: 137 s with the machine loaded"))
struct ConcurrencyReliabilityTests {
    static let writers = 8
    static let appends = 250

    /// Exactly `writers x appends` values, each writer's 0..<appends once and in order.
    static func expectComplete(_ values: [Tagged], tags: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(values.count == tags.count * appends, sourceLocation: sourceLocation)
        for tag in tags {
            #expect(values.filter { $0.tag == tag }.map(\.index) == Array(0..<appends),
                    "\(tag)'s appends: each once, in its order", sourceLocation: sourceLocation)
        }
    }

    @Test("8 threads x 250 appends to one array lose nothing")
    func threads() async throws {
        let folder = TestFolder()
        let store = folder.store()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for thread in 0..<Self.writers {
                group.addTask {
                    for index in 0..<Self.appends {
                        try store.append(Tagged(tag: "t\(thread)", index: index), to: "a.json", in: .documents)
                    }
                }
            }
            try await group.waitForAll()
        }
        Self.expectComplete(try store.retrieve([Tagged].self, from: "a.json", in: .documents),
                            tags: (0..<Self.writers).map { "t\($0)" })
        #expect(folder.leftoverTemporaryItems().isEmpty)
    }

    @Test("8 processes x 250 appends to one array, and 8 x 250 to one numbered folder, lose nothing")
    func processes() throws {
        let folder = TestFolder()
        let helper = try builtProduct("stowage-test-helper")
        let root = folder.path + "/container"
        let started = Date()
        let processes = try (0..<Self.writers).flatMap { index in
            try [("append-values", "shared.json"), ("append-data", "shared-folder")].map { command, path in
                try ChildProcess(helper, [command, root, path, String(Self.appends), "p\(index)"])
            }
        }
        for process in processes {
            let result = try process.finish()
            #expect(result.status == 0, "\(result.error)")
        }
        let seconds = Date().timeIntervalSince(started)
        let store = folder.store()
        Self.expectComplete(try store.retrieve([Tagged].self, from: "shared.json", in: .documents),
                            tags: (0..<Self.writers).map { "p\($0)" })
        let files = try store.retrieveFolder(from: "shared-folder", in: .documents)
        let expected = (0..<Self.writers).flatMap { writer in (0..<Self.appends).map { Data("p\(writer)-\($0)".utf8) } }
        #expect(files.count == expected.count)
        #expect(Set(files) == Set(expected), "every file once")
        #expect(folder.leftoverTemporaryItems().isEmpty)
        print("contention: \(2 * Self.writers) processes made \(2 * Self.writers * Self.appends) durable appends "
            + "(\(Self.writers * Self.appends) to one array, as many to one folder) in \(String(format: "%.1f", seconds)) s; none lost")
    }

    @Test("two sweeper processes and a cache writer on one folder leave it consistent and within its limit")
    func sweepersAndWriter() throws {
        let folder = TestFolder()
        let helper = try builtProduct("stowage-test-helper")
        let cache = folder.file("cache")
        let limit = 150 * 4096
        let stop = folder.path + "/stop"
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        // The sweepers stop when this file appears, also when the test fails on the way.
        defer { _ = FileManager.default.createFile(atPath: stop, contents: nil) }
        let sweepers = try (0..<2).map { _ in
            try ChildProcess(helper, ["sweep-until", cache.fileSystemPath, String(limit), stop])
        }
        let writerCount = 1500
        let writer = try ChildProcess(helper, ["cache-write", cache.fileSystemPath, String(limit), String(writerCount), "w"])
        let written = try writer.finish()
        try Data().write(to: URL(filePath: stop))
        #expect(written.status == 0, "the writer: \(written.error)")
        for sweeper in sweepers {
            let result = try sweeper.finish()
            #expect(result.status == 0, "a sweeper: \(result.error)")
            #expect(result.output.isEmpty, "a sweeper met issues: \(result.output)")
        }

        let final = try Sweeper(policy: SweepPolicy(maximumAllocatedBytes: Int64(limit), lowWatermark: 1)).sweep(cache)
        #expect(final.issues.isEmpty, "\(final.issues)")
        #expect(final.keptAllocatedBytes <= Int64(limit), "within the limit after a final sweep")
        #expect(folder.leftoverTemporaryItems(prefixes: [TemporaryItem.prefix, ".stowage-append-"]).isEmpty, "no stray temporary files")
        // Every entry left is whole: it reads back as exactly what was written under its key.
        let reopened = try DiskCache(folder: cache)
        var present = 0
        for index in 0..<writerCount {
            let key = "w-\(index)"
            guard let data = try reopened.data(for: key) else { continue }
            present += 1
            #expect(data == CacheWorkload.data(for: key), "\(key) is damaged")
        }
        #expect(present == reopened.count, "no entry files other than the keys written")
        #expect(present > 0)
        print("sweepers and writer: \(writerCount) cache writes against 2 sweeping processes; \(present) entries left, all intact, "
            + "\(final.keptAllocatedBytes) of \(limit) bytes")
    }

    @Test("saves, folder saves and appends into Caches succeed while sweeps empty and remove their folders")
    func storeAndSweeps() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data(), to: "first", in: .caches)  // the sweeps need the folder
        let caches = try store.container.url(for: .caches)
        // A thread of its own (not a task, which a busy cooperative pool may hold back) sweeps
        // every file away, so the folders the store writes into are emptied and removed over and
        // over; a write that finds or makes a folder just before a sweep removes it must make it
        // again, not fail.
        let tally = SweepTally()
        let sweeper = Thread {
            while !tally.isStopped {
                do {
                    tally.add(try Sweeper(policy: SweepPolicy(maximumCount: 0)).sweep(caches))
                } catch {
                    tally.fail(error)
                }
            }
            tally.finish()
        }
        sweeper.start()
        defer { tally.stopAndWait() }
        // At least 600 rounds, and on until the sweeps have removed 200 folders however the
        // two threads get scheduled.
        var round = 0
        while round < 600 || (tally.removedFolders < 200 && round < 100_000) {
            try store.save(Tagged(tag: "v", index: round), to: "values/\(round % 3)/v.json", in: .caches)
            try store.save(Data([UInt8(round % 256)]), to: "data/\(round % 3)", in: .caches)
            try store.saveFolder([Data("a".utf8), Data("b".utf8)], to: "frames/\(round % 3)", in: .caches,
                           options: WriteOptions(replacesExistingFolder: true))
            try store.append(Tagged(tag: "a", index: round), to: "arrays/\(round % 3)/a.json", in: .caches)
            try store.appendToFolder(Data([1]), to: "appended/\(round % 3)", in: .caches)
            round += 1
        }
        tally.stopAndWait()
        #expect(tally.errors.isEmpty, "the sweeps: \(tally.errors)")
        #expect(tally.removedFolders >= 200, "the sweeps removed folders the store wrote into")
        print("store and sweeps: \(5 * round) writes into Caches during \(tally.sweeps) sweeps that removed "
            + "\(tally.removedFolders) emptied folders; none failed")
    }
}

/// What a sweeping thread did, read by the test while it runs and after it stopped.
///
/// `@unchecked Sendable`: every property is read and written under `lock`.
final class SweepTally: @unchecked Sendable {
    private let lock = NSCondition()
    private var stopped = false
    private var finished = false
    private var count = 0
    private var folders = 0
    private var failures: [String] = []

    var isStopped: Bool { lock.withLock { stopped } }
    var sweeps: Int { lock.withLock { count } }
    var removedFolders: Int { lock.withLock { folders } }
    var errors: [String] { lock.withLock { failures } }

    func add(_ report: SweepReport) {
        lock.withLock {
            count += 1
            folders += report.removedFolders.count
        }
    }

    func fail(_ error: any Error) { lock.withLock { failures.append(String(describing: error)) } }

    func finish() {
        lock.withLock {
            finished = true
            lock.broadcast()
        }
    }

    /// Asks the thread to stop and waits until it has (at most a minute: a test fails, never hangs).
    func stopAndWait() {
        let deadline = Date() + 60
        let done = lock.withLock { () -> Bool in
            stopped = true
            while !finished { if !lock.wait(until: deadline) { return false } }
            return true
        }
        #expect(done, "the sweeping thread stopped within a minute")
    }
}
