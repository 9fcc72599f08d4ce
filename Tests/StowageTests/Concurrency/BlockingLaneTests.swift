import Foundation
import Testing
import StowageTestSupport
@testable import Stowage

/// The one bridge from `async` to blocking work: a fixed number of threads, whatever the number
/// of tasks that call at once.
@Suite("BlockingLane", .hangLimit)
struct BlockingLaneTests {
    @Test("1,000 concurrent async DiskCache sets run on the cache lane's fixed threads, not on 1,000")
    func thousandConcurrentSets() async throws {
        let folder = TestFolder()
        let cache = try DiskCache(folder: folder.file("cache"), limits: DiskCache.Limits(memoryCapacityBytes: 0))
        let lane = BlockingLane.cache
        // Every set that reaches its thread stops once its entry is staged, until all 1,000 are
        // in flight: running on a thread of the lane, or queued for one.
        let gate = Gate()
        let probe = TestProbe()
        let threads = Recorder()
        probe.on(.cacheStaged) { _ in
            threads.append(ObjectIdentifier(Thread.current).hashValue)  // the thread that runs this set
            gate.wait()
        }
        let threadsBefore = ProcessThreads.count()
        let sets = Task {
            try await TestProbe.$installed.withValue(probe) {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<1_000 {
                        group.addTask { try await cache.set(Data("entry \(index)".utf8), for: "k\(index)") }
                    }
                    try await group.waitForAll()
                }
            }
        }
        // The process's thread count is printed, not asserted: tests running beside this one
        // start threads of their own. What is asserted is which threads ran the sets.
        // Steps, not timing: the sets are all in flight once `width` of them have reached the
        // fault point (each holding a thread) and the others wait in the lane's queue.
        var figures = lane.figures
        var polls = 0
        while probe.hits(of: .cacheStaged) < lane.width || figures.waiting < 1_000 - lane.width, polls < 3_000 {
            try await Task.sleep(for: .milliseconds(100))
            figures = lane.figures
            polls += 1
        }
        let running = probe.hits(of: .cacheStaged)
        let threadsDuring = ProcessThreads.count()
        gate.open()
        try await sets.value
        print("thousandConcurrentSets: lane width \(lane.width); with 1,000 sets in flight: \(running) running, "
              + "\(figures.waiting) queued; \(Set(threads.values).count) threads ran the 1,000; process threads "
              + "\(threadsBefore) before, \(threadsDuring) during, \(ProcessThreads.count()) after")
        #expect(running == lane.width, "as many sets at once as the lane has threads")
        #expect(figures.waiting >= 1_000 - lane.width)
        #expect(figures.threads == lane.width)
        #expect(Set(threads.values).count == lane.width, "every set ran on one of the lane's threads")
        #expect(probe.hits(of: .cacheStaged) == 1_000)
        #expect(cache.count == 1_000)
        for index in [0, 499, 999] {
            #expect(try await cache.data(for: "k\(index)") == Data("entry \(index)".utf8))
        }
        #expect(lane.figures.threads == lane.width, "the threads stay for the next jobs; none is added")
    }

    @Test("a lane runs its jobs in the order they came, on no more threads than its width, and passes on what they throw")
    func jobsInOrder() async throws {
        let lane = BlockingLane(name: "lane test", width: 1)
        let order = Recorder()
        let gate = Gate()
        var jobs = [Task { try await lane.run { gate.wait(); order.append(0) } }]
        while lane.figures.threads < 1 || lane.figures.waiting > 0 { try await Task.sleep(for: .milliseconds(10)) }
        // The one thread is held: each later job waits in the queue, queued one after the other.
        for index in 1..<5 {
            jobs.append(Task { try await lane.run { order.append(index) } })
            while lane.figures.waiting < index { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(order.values.isEmpty && lane.figures.threads == 1)
        gate.open()
        for job in jobs { try await job.value }
        #expect(order.values == [0, 1, 2, 3, 4])
        await #expect(throws: StowageError.self) {
            try await lane.run { throw StowageError(.refused, operation: .cache) }
        }
        #expect(lane.figures.threads == 1 && lane.figures.waiting == 0)
    }
}

/// Opened once, by the test; every `wait` before and after returns then (or after 5 minutes, so
/// that a test that never opens it fails instead of hanging).
///
/// `@unchecked Sendable`: `isOpen` is read and written only while `condition` is locked.
final class Gate: @unchecked Sendable {
    private let condition = NSCondition()
    private var isOpen = false

    func wait() {
        condition.withLock {
            let deadline = Date() + 300
            while !isOpen && condition.wait(until: deadline) {}
        }
    }

    func open() {
        condition.withLock {
            isOpen = true
            condition.broadcast()
        }
    }
}

/// Values appended from several threads.
///
/// `@unchecked Sendable`: `recorded` is read and written only while `lock` is held.
final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Int] = []

    func append(_ value: Int) { lock.withLock { recorded.append(value) } }
    var values: [Int] { lock.withLock { recorded } }
}

/// The threads of this process, as Linux lists them in `/proc/self/task`.
enum ProcessThreads {
    static func count() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).count
    }
}
