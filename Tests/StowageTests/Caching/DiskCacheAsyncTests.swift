import Foundation
import Testing
import StowageTestSupport
@testable import Stowage

/// The `async` forms: the same results as the synchronous ones, off the caller's actor,
/// cancelled before they begin (never half done), and `removeAll` stopping between removals.
@Suite("DiskCache: async")
struct DiskCacheAsyncTests {
    struct Thumbnail: Codable, Equatable {
        var width: Int
        var name: String
    }

    @Test("set, data, value, remove and removeAll from the main actor")
    @MainActor
    func fromTheMainActor() async throws {
        let folder = TestFolder()
        let cache = try DiskCache(folder: folder.file("cache"))
        try await cache.set(Data("bytes".utf8), for: "data")
        // An hour: a run that starves this task of a thread for minutes must not expire it.
        try await cache.set(Thumbnail(width: 64, name: "a"), for: "value", expiresAfter: .seconds(3_600))
        #expect(try await cache.data(for: "data") == Data("bytes".utf8))
        #expect(try await cache.value(Thumbnail.self, for: "value") == Thumbnail(width: 64, name: "a"))
        #expect(try await cache.data(for: "missing") == nil)
        try await cache.remove("data")
        #expect(try await cache.data(for: "data") == nil)
        let report = try await cache.removeAll()
        #expect(report.removed.count == 1 && !report.wasCancelled)
        #expect(cache.count == 0)
    }

    @Test("a task cancelled before a set, a read or a remove begins throws CancellationError and changes nothing")
    func cancelledBefore() async throws {
        let folder = TestFolder()
        let cache = try DiskCache(folder: folder.file("cache"), limits: DiskCache.Limits(memoryCapacityBytes: 0))
        try await cache.set(Data("kept".utf8), for: "k")
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            var outcomes: [String] = []
            for attempt in [{ try await cache.set(Data("new".utf8), for: "k") },
                            { _ = try await cache.data(for: "k") },
                            { try await cache.remove("k") }] as [@Sendable () async throws -> Void] {
                do {
                    try await attempt()
                    outcomes.append("done")
                } catch is CancellationError {
                    outcomes.append("cancelled")
                } catch {
                    outcomes.append("\(error)")
                }
            }
            return outcomes
        }
        #expect(await task.value == ["cancelled", "cancelled", "cancelled"])
        #expect(try await cache.data(for: "k") == Data("kept".utf8))
        #expect(cache.count == 1)
    }

    @Test("removeAll cancelled while removing stops between removals, reports what it removed, and the index agrees")
    func removeAllCancelled() async throws {
        let folder = TestFolder()
        let url = folder.file("cache")
        let cache = try DiskCache(folder: url, limits: DiskCache.Limits(memoryCapacityBytes: 0))
        // The removal's progress comes from its own thread, after every file (interval zero), and
        // cancels the task from there once 100 files are gone.
        try Self.fill(cache, 4_000)
        let handle = TaskHandle()
        let task = Task {
            try await cache.removeAll(progressInterval: .zero) { progress in
                if progress.phase == .removing && progress.items >= 100 { handle.cancel() }
            }
        }
        handle.set(task)
        let report = try await task.value
        let disk = try CacheFolder.entries(in: url)
        let (cancelled, removed) = (report.wasCancelled, report.removed.count)
        #expect(cancelled, "cancelled while removing")
        #expect(removed >= 100 && removed < 4_000)
        #expect(disk.files == 4_000 - removed, "exactly what it reported is gone")
        #expect(cache.count == disk.files && cache.allocatedBytes == disk.allocatedBytes)
        print("removeAll cancelled: removed \(report.removed.count) of 4,000 entries")
    }

    /// Sets `count` entries of 10 bytes, `k0`, `k1`, ..., with the synchronous form (no hop to the
    /// cache's lane for each: 4,000 this way took 2 s of CPU less than 12,000 through the async form).
    static func fill(_ cache: DiskCache, _ count: Int) throws {
        for index in 0..<count { try cache.set(Data(count: 10), for: "k\(index)") }
    }

    /// A task to cancel from another thread, once it is known.
    final class TaskHandle: @unchecked Sendable {  // `task` is read and written only while `lock` is held
        private let lock = NSLock()
        private var task: Task<SweepReport, any Error>?
        private var cancelled = false
        func set(_ task: Task<SweepReport, any Error>) {
            lock.withLock {
                self.task = task
                if cancelled { task.cancel() }
            }
        }
        func cancel() {
            lock.withLock {
                cancelled = true
                task?.cancel()
            }
        }
    }

    @Test("DiskCache(name:) puts the cache in this app's caches location of the default container")
    func defaultContainer() throws {
        let folder = TestFolder()
        let helper = try builtProduct("stowage-test-helper")
        var environment = ProcessInfo.processInfo.environment
        for name in ["XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"] { environment[name] = nil }
        environment["HOME"] = folder.path
        environment["XDG_CACHE_HOME"] = folder.path + "/cache-home"
        environment["TMPDIR"] = folder.path + "/tmp"
        let result = try runProcess(helper, ["cache-default", "thumbnails"], environment: environment)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == folder.path + "/cache-home/stowage-test-helper/thumbnails\n")
        #expect(try CacheFolder.entries(in: URL(filePath: folder.path + "/cache-home/stowage-test-helper/thumbnails")).files == 1)
    }
}
