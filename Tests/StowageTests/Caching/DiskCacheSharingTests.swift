import Foundation
import Testing
import StowageTestSupport
@testable import Stowage

/// The limits hold whoever writes: several instances, processes and threads on one folder, and
/// processes killed at every step of a write and of an eviction.
@Suite("DiskCache: limits shared by every writer")
struct DiskCacheSharingTests {
    @Test("two instances on one folder, each with a 1,000,000-byte limit, keep it together after every set")
    func twoInstances() throws {
        let folder = TestFolder()
        let url = folder.file("cache")
        let limits = DiskCache.Limits(maximumAllocatedBytes: 1_000_000, memoryCapacityBytes: 0)
        let first = try DiskCache(folder: url, limits: limits)
        let second = try DiskCache(folder: url, limits: limits)
        var peak: Int64 = 0
        for index in 0..<80 {
            for (name, cache) in [("first", first), ("second", second)] {
                try cache.set(Data(repeating: 7, count: 10_000), for: "\(name)-\(index)")
                let disk = try CacheFolder.entries(in: url)
                peak = max(peak, disk.allocatedBytes)
                #expect(disk.allocatedBytes <= 1_000_000, "after \(name)'s set \(index): \(disk.allocatedBytes) bytes")
                try expectIndexAgrees(cache, url, "after \(name)'s set \(index)")
            }
        }
        try expectIndexAgrees(first, url, "the first instance at the end")
        #expect(first.sweepCount + second.sweepCount > 0)
        print("two instances: 160 sets of 10 kB under a 1,000,000-byte limit; the folder peaked at \(peak) bytes, "
            + "\(first.sweepCount + second.sweepCount) evictions")
    }

    @Test("three processes on one folder keep its limit: within it, plus the one entry being written, at every moment")
    func threeProcesses() throws {
        let folder = TestFolder()
        let helper = try builtProduct("stowage-test-helper")
        let url = folder.file("cache")
        let limit = 1_000_000
        let writers = try (0..<3).map { index in
            try ChildProcess(helper, ["cache-set", url.fileSystemPath, String(limit), "0", "80", "p\(index)", "10000"])
        }
        var peaks: [String] = []
        for writer in writers {
            let result = try writer.finish(within: .seconds(120))
            #expect(result.status == 0, "a writer: \(result.error)")
            peaks.append(result.output.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let disk = try CacheFolder.entries(in: url)
        #expect(disk.allocatedBytes <= Int64(limit), "within the limit once every set returned: \(disk.allocatedBytes)")
        try expectIndexAgrees(try DiskCache(folder: url), url, "reopened")
        print("three processes: 240 sets of 10 kB under a \(limit)-byte limit; peaks seen by each (bytes files): \(peaks)")
    }

    @Test("sixteen threads setting the same 300 keys: the index counts 300 entries, as on disk, and no needless eviction",
          .long("contention: 16 threads x 300 sets, 15.2 s alone at load 5, 2026-11-28"))
    func sixteenThreads() throws {
        let folder = TestFolder()
        let url = folder.file("cache")
        let cache = try DiskCache(folder: url, limits: DiskCache.Limits(maximumCount: 310))
        // Sixteen threads of their own (not tasks: the cooperative pool has as many threads as
        // cores), started together; every size differs, so a lost update shows in the bytes.
        let start = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let failures = FailureList()
        for thread in 0..<16 {
            done.enter()
            Thread {
                start.wait()
                for round in 0..<2 {
                    for key in 0..<300 {
                        do {
                            try cache.set(Data(repeating: UInt8(thread), count: 1000 + (key * 37 + thread * 101 + round * 11) % 6000),
                                          for: "key-\((key + thread * 19) % 300)")
                        } catch {
                            failures.append("\(error)")
                        }
                    }
                }
                done.leave()
            }.start()
        }
        for _ in 0..<16 { start.signal() }
        done.wait()
        #expect(failures.all.isEmpty, "\(failures.all.prefix(3))")
        #expect(cache.count == 300)
        #expect(cache.sweepCount == 0, "300 entries never pass a limit of 310")
        try expectIndexAgrees(cache, url, "after 9,600 sets by 16 threads")
    }

    /// One instance's threads share the index file's descriptor, which `flock` cannot tell apart:
    /// the instance's own lock must keep a second thread's change out while a first one is in
    /// the middle of its change. Held there by a fault point, not by timing.
    @Test("a change of one thread keeps the instance's other threads out until it ends")
    func threadsOfOneInstanceTakeTurns() throws {
        let folder = TestFolder()
        let url = folder.file("cache")
        let cache = try DiskCache(folder: url, limits: DiskCache.Limits(maximumAllocatedBytes: 1_000_000, memoryCapacityBytes: 0))
        let inside = DispatchSemaphore(value: 0), leave = DispatchSemaphore(value: 0)
        let firstDone = DispatchSemaphore(value: 0), secondDone = DispatchSemaphore(value: 0)
        let failures = FailureList()
        let probe = TestProbe()
        probe.on(.cacheChanging) { hit in
            guard hit == 1 else { return }  // held once: a later change of the first set goes on
            inside.signal()
            leave.wait()
        }
        Thread {
            defer { firstDone.signal() }
            do {
                try TestProbe.$installed.withValue(probe) { try cache.set(Data(count: 5000), for: "first") }
            } catch { failures.append("first: \(error)") }
        }.start()
        // Every wait has a deadline: a wrong lock must fail this test, not hang it.
        try #require(inside.wait(timeout: .now() + .seconds(60)) == .success, "the first set never reached its change")
        Thread {
            defer { secondDone.signal() }
            do { try cache.set(Data(count: 7000), for: "second") } catch { failures.append("second: \(error)") }
        }.start()
        // With the first change held in the middle, the second may not end; a second that ends
        // here changed the index at the same time (waiting longer only makes a wrong lock likelier to show).
        #expect(secondDone.wait(timeout: .now() + .milliseconds(500)) == .timedOut,
                "another thread's set ended while the first one was in the middle of its change")
        leave.signal()
        try #require(firstDone.wait(timeout: .now() + .seconds(60)) == .success, "the first set never ended")
        try #require(secondDone.wait(timeout: .now() + .seconds(60)) == .success, "the second set never ended")
        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(cache.count == 2)
        try expectIndexAgrees(cache, url, "after both sets")
    }

    /// Errors met on other threads. `@unchecked Sendable`: `list` is used only while `lock` is held.
    final class FailureList: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [String] = []
        func append(_ failure: String) { lock.withLock { list.append(failure) } }
        var all: [String] { lock.withLock { list } }
    }

    /// A helper process killed at `point` (its `hit`th time there) while it sets entries over a
    /// limit; afterwards, an instance that was open all along and a reopened one agree with the folder.
    @Test("a writer killed at every step of a set and of an eviction leaves an index that the next change or a reopening makes right",
          arguments: [(FaultPoint.cacheChanging, 5), (.atomicWriteBeforeRename, 5), (.atomicWriteRenamed, 5), (.cacheWritten, 5),
                      (.sweepChosen, 1), (.cacheEvicted, 1), (.cacheWritten, 13)])
    func killed(point: FaultPoint, hit: Int) throws {
        let folder = TestFolder()
        let helper = try builtProduct("stowage-test-helper")
        let url = folder.file("cache")
        let limit: Int64 = 100_000
        let limits = DiskCache.Limits(maximumAllocatedBytes: limit, memoryCapacityBytes: 0)
        let survivor = try DiskCache(folder: url, limits: limits)
        try survivor.set(Data(count: 10_000), for: "before")
        var environment = ProcessInfo.processInfo.environment
        environment["STOWAGE_TEST_FAULTS"] = "\(point)@\(hit)=kill"
        let child = try ChildProcess(helper, ["cache-set", url.fileSystemPath, String(limit), "0", "40", "w", "10000"],
                                     environment: environment)
        let ended = try child.finish(within: .seconds(120))
        #expect(ended.signal == SIGKILL, "the writer was to be killed at \(point)@\(hit); it ended with \(ended.status): \(ended.error)")

        let reopened = try DiskCache(folder: url, limits: limits)
        try expectIndexAgrees(reopened, url, "reopened after a kill at \(point)@\(hit)")
        try survivor.set(Data(count: 10_000), for: "after")
        try expectIndexAgrees(survivor, url, "the instance open all along, after its next set")
        #expect(try CacheFolder.entries(in: url).allocatedBytes <= limit)
        #expect(try survivor.data(for: "after") == Data(count: 10_000))
    }

    @Test("an index file that is damaged, cut short or replaced by a link is measured again, never trusted nor followed")
    func damagedIndex() throws {
        let folder = TestFolder()
        let url = folder.file("cache")
        let cache = try DiskCache(folder: url, limits: DiskCache.Limits(memoryCapacityBytes: 0))
        for index in 0..<5 { try cache.set(Data(count: 5000), for: "k\(index)") }
        let index = url.appending(path: CacheIndex.name)
        try Data(repeating: 0xAB, count: 64).write(to: index)  // a wrong magic number and wrong totals
        let reopened = try DiskCache(folder: url)
        try expectIndexAgrees(reopened, url, "after a damaged index")
        try FileManager.default.removeItem(at: index)
        try Data([1, 2, 3]).write(to: index)  // shorter than the index: made long enough, measured
        try expectIndexAgrees(try DiskCache(folder: url), url, "after an index cut short")
        try FileManager.default.removeItem(at: index)
        try FileManager.default.createSymbolicLink(atPath: index.path, withDestinationPath: folder.file("elsewhere").path)
        try expectIndexAgrees(try DiskCache(folder: url), url, "after a link in the index's place")  // the link removed
        #expect(!folder.exists("elsewhere"), "the link was not followed")
    }

    @Test("a cache folder removed and made again behind the cache's back: the next change uses the new folder's index")
    func folderMadeAgain() throws {
        let folder = TestFolder()
        let url = folder.file("cache")
        let limits = DiskCache.Limits(maximumCount: 3, memoryCapacityBytes: 0)
        let first = try DiskCache(folder: url, limits: limits)
        try first.set(Data(count: 100), for: "old")
        try FileManager.default.removeItem(at: url)
        let second = try DiskCache(folder: url, limits: limits)
        for index in 0..<10 {
            try (index.isMultiple(of: 2) ? first : second).set(Data(count: 100), for: "k\(index)")
            #expect(try CacheFolder.entries(in: url).files <= 3, "after set \(index)")
        }
        try expectIndexAgrees(first, url, "the first instance")
        try expectIndexAgrees(second, url, "the second instance")
    }
}
