import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A pseudo-terminal of a chosen size (`openpty(3)`), for running `stowage` with its standard
/// error on a real terminal: the child sees a terminal (`isatty`, `TIOCGWINSZ`) and the test
/// reads every byte it writes there, from the master side, in raw mode (no `\n` to `\r\n`).
final class PseudoTerminal {
    /// What a child wrote to its terminal and to its standard output, and how it ended.
    struct Run {
        var status: Int32
        /// Everything written to the terminal (standard error), byte for byte.
        var terminal: String
        var output: String
    }

    private let master: Int32
    private let slave: Int32

    /// A terminal of `columns` by `rows`.
    init(columns: Int, rows: Int) throws {
        var master: Int32 = -1
        var slave: Int32 = -1
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &slave, nil, nil, &size) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        // Neither side may leak into children started meanwhile (by tests running in parallel):
        // a stray copy of the slave would keep the master from seeing the end.
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)
        _ = fcntl(slave, F_SETFD, FD_CLOEXEC)
        var settings = termios()
        tcgetattr(slave, &settings)
        cfmakeraw(&settings)
        tcsetattr(slave, TCSANOW, &settings)
        self.master = master
        self.slave = slave
    }

    deinit { close(master) }

    /// Runs `executable` with its standard error on this terminal (its standard input on
    /// /dev/null, its standard output on a pipe, or on the terminal too with
    /// `outputOnTerminal`) and waits for it, at most `deadline`: past it, the child is killed
    /// and the test fails.
    func run(_ executable: URL, _ arguments: [String], environment: [String: String], directory: URL,
             outputOnTerminal: Bool = false, deadline: Duration = .seconds(120),
             sourceLocation: SourceLocation = #_sourceLocation) async throws -> Run {
        let process: ChildProcess
        do {
            process = try ChildProcess(executable, arguments, environment: environment, directory: directory,
                                       standardOutput: outputOnTerminal ? slave : nil, standardError: slave)
        } catch {
            close(slave)
            throw error
        }
        close(slave)  // the child holds it now: once the child is gone, reads of the master end
        let terminal = MasterReader(master)
        let ended: ProcessResult
        do {
            ended = try await process.finish(within: deadline)
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)  // killed at the deadline
            ended = ProcessResult(status: -1, output: "", error: "")
        }
        return Run(status: ended.status, terminal: String(decoding: await terminal.finish(sourceLocation: sourceLocation), as: UTF8.self),
                   output: ended.output)
    }
}

/// Reads the master side of a pseudo-terminal on a thread of its own until the slave side is
/// closed by everyone (then `read` fails with `EIO` on Linux, or returns 0).
///
/// `@unchecked Sendable`: `data` is guarded by `lock` (the reading thread appends to it; a
/// finish that waited in vain still reads it).
final class MasterReader: @unchecked Sendable {
    private var data = Data()
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)

    init(_ master: Int32) {
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                // Waits in poll, not in read: a read in progress would keep the terminal open
                // after its last descriptor is closed (InteractiveTerminal.hangUp).
                var ready = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                if poll(&ready, 1, 100) == 0 { continue }
                let count = read(master, &buffer, buffer.count)
                if count > 0 {
                    lock.withLock { data.append(contentsOf: buffer[0..<count]) }
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            done.signal()
        }
    }

    /// What was read until now (the terminal still open).
    var received: Data { lock.withLock { data } }

    /// What was read, once the terminal is closed (at most ten seconds after the child ended:
    /// past that the test fails, with what was read until then). Awaited: the wait holds a
    /// thread of its own, not one of the cooperative pool's.
    func finish(sourceLocation: SourceLocation = #_sourceLocation) async -> Data {
        if !(await onOwnThread { self.waitForEnd() }) {
            Issue.record("the terminal was not closed within 10 s of the child's end", sourceLocation: sourceLocation)
        }
        return lock.withLock { data }
    }

    /// Waits (blocking) at most ten seconds for the terminal to be closed and the reading thread
    /// to end; whether it ended.
    func waitForEnd() -> Bool { done.wait(timeout: .now() + 10) == .success }
}

/// What a progress line wrote to a terminal, taken apart.
struct TerminalTranscript {
    /// The erase-line code each redraw and the final clear start with, after `\r`.
    static let redraw = "\r\u{1B}[K"

    let text: String

    /// The lines drawn in place: what follows each `\r` + erase, up to the next `\r` or newline.
    var drawnLines: [String] {
        text.components(separatedBy: Self.redraw).dropFirst().map { segment in
            String(segment.prefix { $0 != "\r" && $0 != "\n" })
        }
    }

    /// The drawings that showed something (not the final clear).
    var drawings: [String] { drawnLines.filter { !$0.isEmpty } }

    /// Whether the last thing written is the erase that clears the line.
    var endsCleared: Bool { text.hasSuffix(Self.redraw) }

    /// Escape characters other than those of the erase codes (a name that reached the
    /// terminal unescaped would bring its own).
    var strayEscapes: Int {
        text.unicodeScalars.filter { $0 == "\u{1B}" }.count - text.components(separatedBy: Self.redraw).count + 1
    }

    /// The columns a line takes (every character of these test names takes one).
    static func columns(_ line: String) -> Int { line.unicodeScalars.count }
}
