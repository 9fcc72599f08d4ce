import Foundation
import Testing
@testable import Stowage

/// The `stowage` command's signal trap: a signal sent once the trap is made reaches its handler,
/// one trap at a time, and cancelling gives the signal its earlier action back. (SIGUSR1 stands
/// in for SIGTERM, which would end the test process were the trap broken.)
@Suite("SignalTrap", .serialized)
struct SignalTrapTests {
    /// Counts handler calls.
    final class Calls: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func record() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }

    /// The current action for `number`: ignored, default, or caught by a handler.
    static func action(of number: Int32) -> String {
        var current = sigaction()
        sigaction(number, nil, &current)
        let handler = unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self)
        return handler == 1 ? "ignored" : handler == 0 ? "default" : "caught"
    }

    @Test("a signal sent as soon as the trap is made reaches the handler, every time")
    func signalReachesHandler() throws {
        let previous = signal(SIGUSR1, SIG_IGN)
        defer { signal(SIGUSR1, previous) }
        for round in 0..<50 {
            let calls = Calls()
            let trap = try SignalTrap(signals: [SIGUSR1]) { calls.record() }
            kill(getpid(), SIGUSR1)
            let deadline = ContinuousClock.now + .seconds(60)
            while calls.value == 0, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.001) }
            trap.cancel()
            try #require(calls.value == 1, "round \(round): \(calls.value) calls")
        }
    }

    @Test("cancelling gives the signal its earlier action back; one trap at a time")
    func cancelRestoresAndOneAtATime() throws {
        let previous = signal(SIGUSR1, SIG_IGN)
        defer { signal(SIGUSR1, previous) }
        let trap = try SignalTrap(signals: [SIGUSR1]) {}
        #expect(Self.action(of: SIGUSR1) == "caught")
        #expect(throws: SystemCallError.self, "a second trap while the first holds the signals") {
            try SignalTrap(signals: [SIGUSR1]) {}
        }
        trap.cancel()
        #expect(Self.action(of: SIGUSR1) == "ignored", "the action from before the trap")
        trap.cancel()  // again: nothing more
        let next = try SignalTrap(signals: [SIGUSR1]) {}
        #expect(Self.action(of: SIGUSR1) == "caught", "a new trap once the first is cancelled")
        next.cancel()
        #expect(Self.action(of: SIGUSR1) == "ignored")
    }
}
