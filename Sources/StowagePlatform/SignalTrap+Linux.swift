#if !canImport(Darwin)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CStowageShims
import Foundation

/// Linux: the C relay's handler, and its thread waiting in `sigtimedwait` for a process whose
/// threads all block the signals, write each signal's number to a pipe, which a thread reads.
/// (Dispatch's signal sources lose a signal that arrives before they are registered, which
/// happens later on another thread: seen as a `watch` that ignored a SIGTERM sent as soon as it
/// printed its first line.)
package struct SignalTrapBackend {
    /// Set by the reader when it has read the end of the trap (a 0 byte) or the pipe failed.
    private let finished = DispatchSemaphore(value: 0)
    private let reader: Thread

    package init(signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) throws {
        var ends: [Int32] = [-1, -1]
        _ = try Sys.retrying("pipe2") { cstowage_pipe(&ends) }
        do {
            _ = try Sys.retrying("sigaction") {
                signals.withUnsafeBufferPointer { cstowage_notify_signals($0.baseAddress, Int32($0.count), ends[1]) }
            }
        } catch {
            ends.forEach { try? Sys.close($0) }  // best effort: the relay's error is the one to report
            throw error
        }
        // Both ends stay open for the life of the process (two descriptors a trap): a handler
        // that was running as the trap was cancelled may still write its byte.
        let readEnd = ends[0]
        let finished = finished
        reader = Thread {
            var byte: UInt8 = 0
            // A 0 byte is the end (stop); a failed read too, as nothing more can come.
            while (try? Sys.read(readEnd, &byte, 1)) == 1, byte != 0 { handler(Int32(byte)) }
            finished.signal()
        }
        reader.name = "Stowage signal trap"
        reader.start()
    }

    /// Gives the signals their earlier actions back; what was caught before is still handled.
    package func stop() {
        _ = cstowage_notify_signals(nil, 0, -1)  // joins a thread and restores saved actions: nothing to fail
    }

    /// Returns when the handler has run for every signal caught before ``stop()`` (at once on the
    /// reader's own thread, which would wait for itself).
    package func waitForHandlers() {
        guard Thread.current !== reader else { return }
        finished.wait()
    }
}
#endif
