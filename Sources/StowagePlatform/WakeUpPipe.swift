#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CStowageShims

/// A pipe that wakes a thread waiting in `poll(2)` (``TerminalDevice/waitForInput(_:orWakeUp:timeout:)``)
/// from any other thread: ``wakeUp()`` writes a byte and never blocks, the waiter sees the pipe
/// readable and ``drain()``s it. For the `stowage` command's usage browser, whose loop waits for a
/// key, the end of its scan or a signal, whichever comes first (`package`).
///
/// `@unchecked Sendable`: its two descriptors never change, and `write(2)` and `read(2)` on a
/// pipe may be called from any thread.
package final class WakeUpPipe: @unchecked Sendable {
    /// The end a waiter polls.
    package let readDescriptor: Int32
    private let writeDescriptor: Int32

    /// A new pipe, both ends close-on-exec and non-blocking.
    ///
    /// - Throws: a `SystemCallError` when the pipe cannot be made (`EMFILE`: no descriptor left).
    package init() throws {
        var ends: [Int32] = [-1, -1]
        _ = try Sys.retrying("pipe") { cstowage_pipe(&ends) }
        for end in ends {
            // Non-blocking, or a wake-up could block on a full pipe: a failure here is the pipe's.
            let flags = fcntl(end, F_GETFL)
            guard flags != -1, fcntl(end, F_SETFL, flags | O_NONBLOCK) != -1 else {
                let error = SystemCallError(errno: .current, call: "fcntl")
                ends.forEach { try? Sys.close($0) }  // best effort: the fcntl's error is the one to report
                throw error
            }
        }
        (readDescriptor, writeDescriptor) = (ends[0], ends[1])
    }

    deinit {
        try? Sys.close(readDescriptor)  // nothing to report: the pipe was only ever ours
        try? Sys.close(writeDescriptor)
    }

    /// Wakes the waiter (now, or at its next wait). Never blocks: when the pipe is full, a
    /// wake-up is pending already. Safe from any thread.
    package func wakeUp() {
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)  // EAGAIN (full): already woken; EINTR: the waiter still sees the earlier bytes or times out
    }

    /// Reads every pending wake-up, so that the next wait waits again.
    package func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ read(readDescriptor, $0.baseAddress!, $0.count) }) == 64 {}
    }
}
