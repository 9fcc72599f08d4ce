#if os(Linux)
import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

/// The `stowage` command's signal trap: a signal sent once the trap is made reaches its handler,
/// by either route (a thread that leaves it unblocked, or the waiting thread when every thread
/// blocks it); one trap at a time; cancelling handles what came before and gives the signal its
/// earlier action back. SIGURG stands in for SIGTERM in this process: its default action is to
/// be ignored, so a broken trap cannot end the test run, and no SIG_IGN reaches the child
/// processes other tests start meanwhile.
@Suite("SignalTrap", .serialized)
struct SignalTrapTests {
    /// Counts handler calls.
    final class Calls: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func record() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }

        /// Waits until at least `expected` calls were made, or a minute passed.
        func wait(for expected: Int) {
            let deadline = ContinuousClock.now + .seconds(60)
            while value < expected, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.001) }
        }
    }

    /// Sends `number` to the calling thread, unblocked there meanwhile, so that its handler has
    /// run when this returns (the kernel delivers a thread's own signal on the way back from
    /// `tgkill`). `kill(getpid(), ...)` lets the kernel choose the thread (the main thread first),
    /// which on a loaded machine may run the handler only after the test's next step.
    static func raiseHere(_ number: Int32) {
        var only = sigset_t(), old = sigset_t()
        sigemptyset(&only)
        sigaddset(&only, number)
        pthread_sigmask(SIG_UNBLOCK, &only, &old)
        pthread_kill(pthread_self(), number)
        pthread_sigmask(SIG_SETMASK, &old, nil)
    }

    /// The current action for `number`: default, ignored, or caught by a handler.
    static func action(of number: Int32) -> String {
        var current = sigaction()
        sigaction(number, nil, &current)
        let handler = unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self)
        return handler == 1 ? "ignored" : handler == 0 ? "default" : "caught"
    }

    @Test("a signal sent as soon as the trap is made reaches the handler, every time")
    func signalReachesHandler() throws {
        for round in 0..<50 {
            let calls = Calls()
            let trap = try SignalTrap(signals: [SIGURG]) { calls.record() }
            kill(getpid(), SIGURG)
            calls.wait(for: 1)
            trap.cancel()
            try #require(calls.value == 1, "round \(round): \(calls.value) calls")
        }
    }

    @Test("cancel returns once every signal caught before it is handled")
    func cancelHandlesWhatCameBefore() throws {
        let calls = Calls()
        let gate = DispatchSemaphore(value: 0)
        let trap = try SignalTrap(signals: [SIGURG]) {
            calls.record()
            gate.wait()
        }
        kill(getpid(), SIGURG)
        calls.wait(for: 1)  // the handler holds the trap's thread
        Self.raiseHere(SIGURG)  // caught, and waiting in the pipe
        let cancelled = DispatchSemaphore(value: 0)
        let seenAtReturn = Calls()
        Thread {
            trap.cancel()
            for _ in 0..<calls.value { seenAtReturn.record() }
            cancelled.signal()
        }.start()
        #expect(cancelled.wait(timeout: .now() + 0.3) == .timedOut, "cancel waits for the handler under way")
        gate.signal()
        gate.signal()
        try #require(cancelled.wait(timeout: .now() + 60) == .success)
        #expect(seenAtReturn.value == 2, "both signals handled when cancel returned")
        #expect(Self.action(of: SIGURG) == "default")
    }

    @Test("one trap at a time, each signal once; cancelling gives the earlier action back")
    func oneAtATime() throws {
        #expect(Self.action(of: SIGURG) == "default")
        #expect(throws: SystemCallError.self, "a signal named twice") { try SignalTrap(signals: [SIGURG, SIGURG]) {} }
        #expect(throws: SystemCallError.self, "no signal") { try SignalTrap(signals: [Int32]()) {} }
        #expect(Self.action(of: SIGURG) == "default", "a refused trap changes nothing")
        let trap = try SignalTrap(signals: [SIGURG]) {}
        #expect(Self.action(of: SIGURG) == "caught")
        #expect(throws: SystemCallError.self, "a second trap while the first holds signals") {
            try SignalTrap(signals: [SIGWINCH]) {}
        }
        trap.cancel()
        #expect(Self.action(of: SIGURG) == "default", "the action from before the trap")
        trap.cancel()  // again: nothing more
        let next = try SignalTrap(signals: [SIGURG, SIGWINCH]) {}
        #expect(Self.action(of: SIGURG) == "caught" && Self.action(of: SIGWINCH) == "caught")
        next.cancel()
        #expect(Self.action(of: SIGURG) == "default" && Self.action(of: SIGWINCH) == "default")
    }

    @Test("in a process whose every thread blocks SIGTERM, the trap's waiting thread catches it")
    func everyThreadBlocking() throws {
        let helper = try builtProduct("stowage-test-helper")
        let process = try ChildProcess(helper, ["trap-blocked"])
        #expect(try process.read(until: "ready", within: .seconds(120)).contains("ready"))
        // Every thread blocks SIGTERM but the trap's waiting thread, which sigtimedwait unblocks
        // it in while it waits (the kernel shows the mask of the moment; not yet, if the thread
        // has not reached its wait).
        let task = "/proc/\(process.identifier)/task"
        let term = UInt64(1) << (UInt64(SIGTERM) - 1)
        var unblocked: [String] = []
        for thread in try FileManager.default.contentsOfDirectory(atPath: task) {
            let status = try String(contentsOfFile: "\(task)/\(thread)/status", encoding: .utf8)
            let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") })
            let mask = try #require(UInt64(line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16))
            if mask & term == 0 {
                unblocked.append((try? String(contentsOfFile: "\(task)/\(thread)/wchan", encoding: .utf8)) ?? "?")
            }
        }
        #expect(unblocked.count <= 1 && unblocked.allSatisfy { $0.contains("sigtimedwait") || $0 == "0" },
                "only the waiting thread may take SIGTERM: \(unblocked)")
        process.signal(SIGTERM)
        let ended = try process.finish(within: .seconds(180))
        #expect(ended.signal == nil && ended.status == 0, "status \(ended.status): \(ended.output)")
        #expect(ended.output == "ready\ncaught\n")
    }
}
#endif
