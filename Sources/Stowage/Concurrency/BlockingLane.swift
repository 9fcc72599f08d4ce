import Foundation

/// The one bridge from `async` callers to blocking work: a fixed number of threads that take
/// jobs in the order they come, while the calling tasks wait without holding a thread of the
/// cooperative pool.
///
/// However many tasks call at once, a lane never runs more than ``width`` threads: 1,000
/// concurrent `DiskCache` sets wait their turn in its queue, they do not make 1,000 threads
/// (Dispatch's concurrent queue, used before, started a thread for each call that blocked). A
/// thread is started when a job finds every thread busy and the lane below its width, and then
/// stays for the next jobs.
///
/// Two lanes, so that a long job cannot hold up a short one: ``longRunning`` for scans, fills,
/// sweeps, relief and a room's wait (``LongRunningWork``), and ``cache`` for `DiskCache`'s
/// `async` forms.
///
/// - Important: A job must not wait for another job of the same lane: with every thread busy,
///   the one it waits for would never start. Work on a lane only ever waits for the file system,
///   a child process or a lock another process holds.
///
/// `@unchecked Sendable`: `jobs`, `head`, `threadCount` and `idleCount` are read and written only
/// while `condition` is locked; the rest is immutable.
final class BlockingLane: @unchecked Sendable {
    /// The lane of scans, fills, sweeps, relief and a room's wait: work that may take minutes,
    /// or hours (a room's command, a held fill). Wide, since its threads start only as jobs come:
    /// at 32, rooms waiting for their commands held every thread, and a scan waited behind them
    /// past its test's minute (the test suite's full run, which runs many rooms at once).
    static let longRunning = BlockingLane(name: "Stowage work", width: 256)
    /// The lane of `DiskCache`'s `async` forms: short file work, as wide as the processors
    /// (at least 4, for the calls that wait on the disk rather than a processor).
    static let cache = BlockingLane(name: "Stowage cache",
                                    width: max(4, min(16, ProcessInfo.processInfo.activeProcessorCount)))

    /// The name of the lane's threads, as debuggers show it.
    let name: String
    /// The most threads the lane runs.
    let width: Int

    private let condition = NSCondition()
    private var jobs: [(@Sendable () -> Void)?] = []
    private var head = 0
    private var threadCount = 0
    private var idleCount = 0

    init(name: String, width: Int) {
        precondition(width > 0)
        self.name = name
        self.width = width
    }

    /// Runs `body` on one of the lane's threads and returns what it returns or throws.
    ///
    /// Waiting is not cancelled with the task: the caller's cancellation reaches the work its own
    /// way (``LongRunningWork``'s flag), or is checked before the job is queued.
    func run<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, any Error>, Never>) in
            enqueue { continuation.resume(returning: Result { try body() }) }
        }
        return try outcome.get()
    }

    /// The threads the lane has started, and the jobs waiting for one (for tests and figures).
    var figures: (threads: Int, waiting: Int) {
        condition.withLock { (threadCount, jobs.count - head) }
    }

    private func enqueue(_ job: @escaping @Sendable () -> Void) {
        condition.withLock {
            jobs.append(job)
            if jobs.count - head > idleCount && threadCount < width {
                threadCount += 1
                let thread = Thread { [self] in serve() }
                thread.name = name
                // The walks recurse once per folder level, and a tree can be as deep as PATH_MAX
                // allows (about 2,000 levels): 1 MiB crashed at 1,500. Only the pages used are
                // committed, so a generous reservation costs nothing.
                thread.stackSize = 64 << 20
                thread.start()
            }
            condition.signal()
        }
    }

    /// A thread's life: the next job, forever.
    private func serve() {
        while true {
            condition.lock()
            while head == jobs.count {
                idleCount += 1
                condition.wait()
                idleCount -= 1
            }
            let job = jobs[head]
            jobs[head] = nil
            head += 1
            if head == jobs.count || head >= 1024 {
                jobs.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job?()
        }
    }
}
