#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Stowage's Platform layer supports Darwin, Glibc and Musl systems")
#endif
import CStowageShims

/// What the `stowage` command asks of the terminals its standard streams are on: whether they
/// are terminals, and their size. For the command's use (`package`), not part of the library's
/// API: the library never prints.
package enum TerminalDevice {
    /// The standard input, output and error descriptors.
    package static let standardInput: Int32 = 0
    package static let standardOutput: Int32 = 1
    package static let standardError: Int32 = 2

    /// Opens `/dev/null` on each standard stream that is closed (`stowage ... >&-`), as careful
    /// Unix tools do at start: otherwise the next file or pipe the command opens takes that
    /// number, and what the command prints lands in it (a signal trap's pipe read a table row
    /// as a signal, and a range of rooms ended "interrupted" with no signal sent). What is then
    /// written to the stream is dropped, as a closed stream drops it.
    ///
    /// Best effort: where `/dev/null` cannot be opened (no `/dev`), the stream stays closed.
    /// An open stream is one `fstat(2)` succeeds on (on a closed one it fails with `EBADF`).
    package static func openNullDeviceOnClosedStandardStreams() {
        for stream in [standardInput, standardOutput, standardError] where (try? Sys.fstat(stream)) == nil {
            // The lowest free number is the stream's: those below it are open by now.
            guard let descriptor = try? Sys.openNullDeviceAcrossExec() else { return }
            if descriptor != stream { try? Sys.close(descriptor) }
        }
    }

    /// Whether `descriptor` is open on a terminal (`isatty(3)`).
    package static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

    /// The columns and rows of the terminal `descriptor` is open on (`ioctl(TIOCGWINSZ)`), or
    /// `nil` when it is no terminal or the terminal does not tell (a size of 0).
    package static func size(of descriptor: Int32) -> (columns: Int, rows: Int)? {
        var columns: UInt16 = 0
        var rows: UInt16 = 0
        // Any failure means "no terminal size": nil, as documented.
        guard (try? Sys.retrying("ioctl(TIOCGWINSZ)") { cstowage_terminal_size(descriptor, &columns, &rows) }) != nil else {
            return nil
        }
        return columns > 0 ? (Int(columns), Int(rows)) : nil
    }

    /// A terminal's modes as ``modes(of:)`` read them, to be given back exactly by
    /// ``setModes(_:of:)`` (the C `struct termios`, kept as bytes).
    package struct Modes: Sendable, Equatable {
        fileprivate var saved: cstowage_terminal_modes

        package static func == (lhs: Modes, rhs: Modes) -> Bool {
            withUnsafeBytes(of: lhs.saved) { left in withUnsafeBytes(of: rhs.saved) { left.elementsEqual($0) } }
        }
    }

    /// The modes of the terminal `descriptor` is open on (`tcgetattr(3)`).
    ///
    /// - Throws: a `SystemCallError` (`ENOTTY` when it is no terminal).
    package static func modes(of descriptor: Int32) throws -> Modes {
        var modes = Modes(saved: cstowage_terminal_modes())
        _ = try Sys.retrying("tcgetattr") { cstowage_terminal_get(descriptor, &modes.saved) }
        return modes
    }

    /// Sets the terminal's modes to `modes`, as ``modes(of:)`` read them (`tcsetattr(3)`, at once).
    package static func setModes(_ modes: Modes, of descriptor: Int32) throws {
        var saved = modes.saved
        _ = try Sys.retrying("tcsetattr") { cstowage_terminal_set(descriptor, &saved) }
    }

    /// Sets the terminal to raw input, from `modes` (its modes now): no echo, no line editing,
    /// keys send bytes, never signals (Ctrl-C is byte 3), and a read waits at most a tenth of a
    /// second (see ``readInput(_:into:)``). Output is processed as before.
    package static func setRawInput(from modes: Modes, of descriptor: Int32) throws {
        var saved = modes.saved
        _ = try Sys.retrying("tcsetattr") { cstowage_terminal_set_raw(descriptor, &saved) }
    }

    /// Reads what has been typed on the terminal `descriptor` (in raw input, see
    /// ``setRawInput(from:of:)``): at most `buffer.count` bytes, waiting at most a tenth of a
    /// second; 0 when nothing came.
    ///
    /// - Throws: a `SystemCallError`: `EIO` once the terminal is gone (hung up).
    package static func readInput(_ descriptor: Int32, into buffer: inout [UInt8]) throws -> Int {
        try buffer.withUnsafeMutableBytes { try Sys.read(descriptor, $0.baseAddress!, $0.count) }
    }

    /// What ``waitForInput(_:orWakeUp:timeout:)`` saw.
    package struct Readiness: OptionSet, Sendable {
        package let rawValue: Int
        package init(rawValue: Int) { self.rawValue = rawValue }
        /// The terminal is to be read: it has bytes, has hung up, or `poll` could not watch it
        /// (see ``waitForInput(_:orWakeUp:timeout:)``); its read says which.
        package static let input = Readiness(rawValue: 1)
        /// The pipe was woken (``WakeUpPipe/wakeUp()``); drain it before waiting again.
        package static let wokenUp = Readiness(rawValue: 2)
        /// The terminal hung up or failed (`POLLHUP`, `POLLERR`): once what it still holds is read,
        /// it is gone, even where writes to another terminal still succeed.
        package static let hungUp = Readiness(rawValue: 4)
    }

    /// Waits (`poll(2)`) until the terminal `descriptor` has something to read, `wakeUp` is
    /// woken, or `timeout` has passed (`nil`: no limit; a negative one is none), whichever comes
    /// first. Empty on the timeout, and when a signal interrupted the wait (the caller looks at
    /// what it caught).
    ///
    /// On Apple platforms `poll` does not watch terminals ("The poll() system call currently does
    /// not support devices", poll(2)'s BUGS): it returns at once with `POLLNVAL` for them, which
    /// is reported as ``Readiness/input``, so the caller's read, which waits at most a tenth of a
    /// second in raw input (``setRawInput(from:of:)``), paces the loop there as it did before
    /// `poll`: a wake-up is then seen within a tenth of a second, not at once.
    ///
    /// - Throws: a `SystemCallError` from `poll` (`EINVAL`, `ENOMEM`).
    package static func waitForInput(_ descriptor: Int32, orWakeUp wakeUp: WakeUpPipe, timeout: Duration?) throws -> Readiness {
        var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wakeUp.readDescriptor, events: Int16(POLLIN), revents: 0)]
        let milliseconds = timeout.map(pollMilliseconds) ?? -1
        let result = poll(&descriptors, 2, milliseconds)
        if result == -1 {
            let code = Errno.current
            if code == .interrupted { return [] }
            throw SystemCallError(errno: code, call: "poll")
        }
        var readiness: Readiness = []
        let terminal = Int32(descriptors[0].revents)
        if terminal != 0 { readiness.insert(.input) }  // POLLIN, POLLHUP, POLLERR, POLLNVAL: the read says which
        if terminal & (Int32(POLLHUP) | Int32(POLLERR)) != 0 { readiness.insert(.hungUp) }
        if descriptors[1].revents != 0 { readiness.insert(.wokenUp) }
        return readiness
    }

    /// `timeout` as `poll(2)`'s milliseconds: rounded up (a wait never ends before its time),
    /// at most `Int32.max` (24 days), and 0 for a negative one (poll's -1 would wait forever).
    package static func pollMilliseconds(_ timeout: Duration) -> Int32 {
        let (seconds, attoseconds) = timeout.components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        guard seconds < Int64(Int32.max) / 1000 else { return Int32.max }
        return Int32(seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }

    /// Until ``unguardCrashes()``: should the process be killed by a fault (a crash, a Swift
    /// runtime trap: SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE), the terminal
    /// `descriptor` gets `modes` back and `leave` (escape codes, at most 64 bytes) is written to
    /// it first; the fault then ends the process as it would have.
    ///
    /// - Throws: a `SystemCallError`: `EBUSY` while another guard is set, `EINVAL` for a
    ///   `leave` too long.
    package static func guardCrashes(restoring modes: Modes, of descriptor: Int32, leave: [UInt8]) throws {
        var saved = modes.saved
        _ = try Sys.retrying("sigaction") {
            leave.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { cstowage_terminal_guard(descriptor, &saved, $0.baseAddress, $0.count) }
            }
        }
    }

    /// Gives the fault signals their earlier actions back (see ``guardCrashes(restoring:of:leave:)``).
    package static func unguardCrashes() { cstowage_terminal_unguard() }
}
