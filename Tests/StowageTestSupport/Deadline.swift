import Foundation
import Testing

/// What ``awaiting(_:within:_:)`` throws when the work it awaited did not end in time.
public struct DeadlineExceeded: Error, CustomStringConvertible {
    /// What was awaited.
    public let what: String
    public let limit: Duration
    public var description: String { "\(what) did not end within \(limit): it hangs (a test waits no longer)" }
}

/// The default deadline of an `await` in a test: ten minutes. It only fails a test that would
/// otherwise hang; it never decides how fast something was.
///
/// It is this long because, in a full run, every test takes about as long as the whole run. Swift
/// Testing starts all 700-odd tests at once on a pool two threads wide (on this 2-core machine),
/// and each `await` of a test queues behind the other tests' work. Measured
/// (`--event-stream-output-path`, `STOWAGE_LONG_TESTS=1`, idle): all tests started within the first
/// second, none ended before 203 s, and all ended between 203 and 275 s. A deadline shorter than
/// a run (CI's browser waits of 60 s) fails tests whose program had long since done its part.
public let defaultAwaitLimit = Duration.seconds(600)

/// The time limit of a suite or test that could hang (an `await` that never resumes, a wait on a
/// process that never ends): fifteen minutes, longer than a whole loaded run (see
/// ``defaultAwaitLimit``: a test's time counts from the run's start, not from when its work
/// gets a thread). It turns a hang into a failure; it never decides how fast something was.
extension Trait where Self == TimeLimitTrait {
    public static var hangLimit: Self { .timeLimit(.minutes(15)) }
}

/// Awaits `body`, or throws ``DeadlineExceeded`` naming `what` once `limit` has passed: an
/// `await` in a test that cannot hang, XCTest's included (which has no time limit of its own on
/// Linux).
///
/// The work runs in a task of its own, which inherits the caller's task-local values (a
/// simulated volume among them). Past the deadline it is cancelled and left behind: work that
/// ignores cancellation (a thread stuck in a loop) cannot be stopped from outside, but the test
/// goes on and fails, saying what it waited for, instead of hanging the run.
public func awaiting<T: Sendable>(_ what: String, within limit: Duration = defaultAwaitLimit,
                                  _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let outcome = Outcome<T>()
    let work = Task {
        do {
            outcome.finish(with: .success(try await body()))
        } catch {
            outcome.finish(with: .failure(error))
        }
    }
    let timer = Task {
        try? await Task.sleep(for: limit)
        outcome.finish(with: .failure(DeadlineExceeded(what: what, limit: limit)))
    }
    defer { timer.cancel() }
    do {
        return try await outcome.value
    } catch let error as DeadlineExceeded {
        work.cancel()
        throw error
    }
}

/// The first result given to it, for whoever awaits it (once).
///
/// `@unchecked Sendable`: `result` and `waiter` are read and written only while `lock` is held.
private final class Outcome<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<T, any Error>?
    private var waiter: CheckedContinuation<T, any Error>?

    func finish(with result: Result<T, any Error>) {
        let waiting: CheckedContinuation<T, any Error>? = lock.withLock {
            guard self.result == nil else { return nil }
            self.result = result
            defer { waiter = nil }
            return waiter
        }
        waiting?.resume(with: result)
    }

    var value: T {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<T, any Error>? = lock.withLock {
                    if result == nil { waiter = continuation }
                    return result
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }
}

/// Runs `wait`, a blocking wait that has a deadline of its own (``ChildProcess/finish(within:)``,
/// a semaphore with a timeout), on a thread of its own, and resumes the caller when it returns.
///
/// This is how a test waits: with `await`, never blocking a thread of Swift's cooperative pool,
/// which is as wide as the machine has cores (two here) and runs every test of the suite. A test
/// blocked there keeps the others from starting while the CPU idles; one that awaits this lets
/// them run meanwhile.
public func onOwnThread<T: Sendable, Failure: Error>(_ wait: @escaping @Sendable () throws(Failure) -> T) async throws(Failure) -> T {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, Failure>, Never>) in
        Thread.detachNewThread { continuation.resume(returning: Result { () throws(Failure) -> T in try wait() }) }
    }
    return try result.get()
}
