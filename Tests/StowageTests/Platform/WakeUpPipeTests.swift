import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

/// The usage browser's wait (`TerminalDevice.waitForInput(_:orWakeUp:timeout:)`) and the pipe that
/// wakes it: a wake-up is never lost (one sent before the wait ends it at once), never blocks (a
/// full pipe is a pending wake-up), and draining makes the next wait wait again; the terminal's
/// input, or its hang-up, ends the wait too. A pipe stands in for the terminal: `poll(2)` treats
/// both alike.
@Suite("WakeUpPipe")
struct WakeUpPipeTests {
    /// A pipe standing in for the terminal: its read end is waited on.
    final class Input {
        let read: Int32
        var write: Int32?
        init() throws { (read, write) = try RoomSpawn.pipe() }
        func type(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try Sys.writeAll(write!, $0) } }
        func hangUp() throws {
            try Sys.close(write!)
            write = nil
        }
        deinit {
            try? Sys.close(read)
            if let write { try? Sys.close(write) }
        }
    }

    @Test("nothing pending: the wait ends empty at its timeout")
    func timesOut() throws {
        let input = try Input(), pipe = try WakeUpPipe()
        #expect(try TerminalDevice.waitForInput(input.read, orWakeUp: pipe, timeout: .zero) == [])
        #expect(try TerminalDevice.waitForInput(input.read, orWakeUp: pipe, timeout: .milliseconds(20)) == [])
    }

    @Test("a timeout is poll's milliseconds rounded up; a negative one waits not at all, a huge one at most 24 days")
    func timeoutMilliseconds() throws {
        #expect(TerminalDevice.pollMilliseconds(.zero) == 0)
        #expect(TerminalDevice.pollMilliseconds(.nanoseconds(1)) == 1)
        #expect(TerminalDevice.pollMilliseconds(.milliseconds(100)) == 100)
        #expect(TerminalDevice.pollMilliseconds(.microseconds(100_001)) == 101)
        #expect(TerminalDevice.pollMilliseconds(.seconds(-1)) == 0, "poll's -1 would wait forever")
        #expect(TerminalDevice.pollMilliseconds(.nanoseconds(-1)) == 0)
        #expect(TerminalDevice.pollMilliseconds(.seconds(2_147_482)) == 2_147_482_000)
        #expect(TerminalDevice.pollMilliseconds(.seconds(2_147_484)) == Int32.max)
        #expect(TerminalDevice.pollMilliseconds(.seconds(Int64.max)) == Int32.max)
        let input = try Input(), pipe = try WakeUpPipe()
        #expect(try TerminalDevice.waitForInput(input.read, orWakeUp: pipe, timeout: .seconds(-5)) == [])
    }

    @Test("a wake-up sent before the wait ends it at once; drained, the next wait waits again")
    func wakeUpBeforeWait() throws {
        let input = try Input(), pipe = try WakeUpPipe()
        pipe.wakeUp()
        #expect(try TerminalDevice.waitForInput(input.read, orWakeUp: pipe, timeout: nil) == .wokenUp)
        #expect(try TerminalDevice.waitForInput(input.read, orWakeUp: pipe, timeout: .zero) == .wokenUp, "not drained: still pending")
        pipe.drain()
        #expect(try TerminalDevice.waitForInput(input.read, orWakeUp: pipe, timeout: .zero) == [])
    }

    @Test("keys typed end the wait as input; with a wake-up, as both")
    func input() throws {
        let input = try Input(), pipe = try WakeUpPipe()
        try input.type([0x71])
        #expect(try TerminalDevice.waitForInput(input.read, orWakeUp: pipe, timeout: nil) == .input)
        pipe.wakeUp()
        #expect(try TerminalDevice.waitForInput(input.read, orWakeUp: pipe, timeout: nil) == [.input, .wokenUp])
    }

    @Test("a terminal hung up ends the wait as input and as hung up (its read then finds the end)")
    func hangUp() throws {
        let input = try Input(), pipe = try WakeUpPipe()
        #expect(try TerminalDevice.waitForInput(input.read, orWakeUp: pipe, timeout: .zero) == [])
        try input.hangUp()
        #expect(try TerminalDevice.waitForInput(input.read, orWakeUp: pipe, timeout: nil) == [.input, .hungUp])
        var byte: UInt8 = 0
        #expect(try Sys.read(input.read, &byte, 1) == 0)
    }

    @Test("wake-ups never block, however many pile up (past the pipe's 64 KiB), and one drain takes them all")
    func manyWakeUps() throws {
        let input = try Input(), pipe = try WakeUpPipe()
        for _ in 0..<100_000 { pipe.wakeUp() }  // a blocking write would hang here, at 65,536
        #expect(try TerminalDevice.waitForInput(input.read, orWakeUp: pipe, timeout: .zero) == .wokenUp)
        pipe.drain()
        #expect(try TerminalDevice.waitForInput(input.read, orWakeUp: pipe, timeout: .zero) == [])
    }

    @Test("a wait with no limit, on one thread, ends when another wakes it", .hangLimit)
    func wakeUpFromAnotherThread() async throws {
        let input = try Input(), pipe = try WakeUpPipe()
        let readDescriptor = input.read
        let woken = try await awaiting("the wait on another thread") {
            await withCheckedContinuation { (continuation: CheckedContinuation<TerminalDevice.Readiness?, Never>) in
                let waiter = Thread {
                    continuation.resume(returning: try? TerminalDevice.waitForInput(readDescriptor, orWakeUp: pipe, timeout: nil))
                }
                waiter.start()
                Thread {
                    Thread.sleep(forTimeInterval: 0.05)  // most often the waiter waits by now; either order must wake it
                    pipe.wakeUp()
                }.start()
            }
        }
        #expect(woken == .wokenUp)
        withExtendedLifetime(input) {}
    }
}
