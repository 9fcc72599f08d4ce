import Foundation
import StowageTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A pseudo-terminal for a full-screen program: its standard input, output and error all on the
/// terminal, keys typed into it, the screen read back as text (``ScreenText``), the terminal's
/// modes read before and after (`stty -g`'s fields: `tcgetattr` on the terminal's side).
///
/// The terminal starts in the modes a shell leaves it in (canonical input, echo, signals from
/// keys), not raw: so a program that forgets to give its modes back is seen.
final class InteractiveTerminal {
    private let master: Int32
    private var slave: Int32
    private let reader: MasterReader
    private(set) var columns: Int
    private(set) var rows: Int

    init(columns: Int, rows: Int) throws {
        var master: Int32 = -1
        var slave: Int32 = -1
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &slave, nil, nil, &size) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)
        _ = fcntl(slave, F_SETFD, FD_CLOEXEC)
        self.master = master
        self.slave = slave
        self.columns = columns
        self.rows = rows
        reader = MasterReader(master)
    }

    /// Ends the reading thread before the master's number is given up: a thread still polling
    /// it would read the terminal of the next test that gets the number.
    deinit {
        closeTerminal()
        hangUp()
        _ = reader.waitForEnd()
        close(master)
    }

    /// The terminal's modes as `stty -g` prints them: input, output, control and local flags and
    /// the control characters (speeds left out: a pseudo-terminal has none to change).
    var modes: [UInt32] {
        var settings = termios()
        tcgetattr(slave, &settings)
        return [UInt32(settings.c_iflag), UInt32(settings.c_oflag), UInt32(settings.c_cflag), UInt32(settings.c_lflag)]
            + withUnsafeBytes(of: settings.c_cc) { $0.map(UInt32.init) }
    }

    /// Starts the built `stowage` with `arguments` on this terminal (its three standard streams;
    /// its standard input on `keyboard`'s terminal instead, when given).
    func start(_ runner: CommandRunner, _ arguments: [String], environment extra: [String: String] = [:],
               keyboard: InteractiveTerminal? = nil) throws -> ChildProcess {
        var environment = runner.environment.merging(extra) { $1 }
        environment["TERM"] = extra["TERM"] ?? "xterm-256color"
        if extra["NO_COLOR"] == nil { environment.removeValue(forKey: "NO_COLOR") }
        return try ChildProcess(try CommandRunner.binary(), arguments, environment: environment, directory: runner.folder,
                                standardOutput: slave, standardError: slave, standardInput: keyboard?.slave ?? slave)
    }

    /// Types `text` (bytes as they are: `"\u{1B}[A"` is the up arrow).
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Writes `text` on the program's side of the terminal, as a program would (for the tests of
    /// this terminal itself).
    func show(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(slave, $0.baseAddress, $0.count) }
    }

    /// Everything the program wrote, as text.
    var received: String { String(decoding: reader.received, as: UTF8.self) }

    /// The screen as the terminal shows it now.
    var screen: ScreenText { ScreenText(received, columns: columns, rows: rows) }

    /// Waits until the screen satisfies `condition` (at most `limit`: past it the test fails,
    /// quoting the screen).
    ///
    /// The screen is looked at once more after the deadline, before the test fails: on a loaded
    /// machine this task may wake from its sleep only after the deadline, and what the program
    /// showed in the meantime counts (CI once failed five browser tests whose quoted screen showed
    /// exactly the text awaited). So the deadline need only cover the program's own time, which
    /// runs outside the test runner's pool: two minutes (a screen that never comes fails then,
    /// not after ``defaultAwaitLimit``).
    @discardableResult
    func waitFor(_ what: String, within limit: Duration = .seconds(120), sourceLocation: SourceLocation = #_sourceLocation,
                 _ condition: (ScreenText) -> Bool) async -> ScreenText {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let screen = self.screen
            if condition(screen) { return screen }
            do { try await Task.sleep(for: .milliseconds(20)) } catch { break }  // cancelled: waits no longer
        }
        let screen = self.screen
        if condition(screen) { return screen }
        Issue.record("the screen never showed \(what):\n\(screen.lines.joined(separator: "\n"))", sourceLocation: sourceLocation)
        return screen
    }

    /// Waits until some row of the screen contains `text`.
    @discardableResult
    func waitFor(text: String, within limit: Duration = .seconds(120), sourceLocation: SourceLocation = #_sourceLocation) async -> ScreenText {
        await waitFor("'\(text)'", within: limit, sourceLocation: sourceLocation) { $0.contains(text) }
    }

    /// Gives the terminal a new size, then tells `process` as a terminal tells its foreground
    /// process (SIGWINCH: the program is not in a session of this terminal, so the kernel does not).
    func resize(columns: Int, rows: Int, telling process: ChildProcess) {
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        self.columns = columns
        self.rows = rows
        process.signal(SIGWINCH)
    }

    /// Closes this side's copy of the terminal (the program's stays open while it runs).
    func closeTerminal() {
        if slave >= 0 {
            close(slave)
            slave = -1
        }
    }

    /// Hangs the terminal up, as closing a terminal window does: the last descriptor of the
    /// terminal's master side is closed (replaced by `/dev/null`, so that the reading thread
    /// ends on an empty read, never on a number another test reuses); the program's reads fail.
    func hangUp() {
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        _ = dup2(null, master)
        close(null)
    }
}

/// What a terminal shows after the bytes a program wrote: a grid of `rows` lines of `columns`
/// characters, for the few ECMA-48 codes the browser writes (cursor position, erase to the end
/// of the line and below, clear, the alternate screen; styles ignored).
struct ScreenText {
    private(set) var lines: [String]
    /// Whether the alternate screen is shown (entered and not left).
    private(set) var isAlternate = false
    /// Whether the cursor is hidden.
    private(set) var cursorHidden = false
    /// Colour codes met (SGR 30-37, 90-97, 38): none when colours are off.
    private(set) var colourCodes = 0

    init(_ text: String, columns: Int, rows: Int) {
        var grid = Array(repeating: Array(repeating: Character(" "), count: columns), count: rows)
        var row = 0, column = 0
        var scalars = Array(text.unicodeScalars)[...]
        func clearLine(_ line: Int, from start: Int) {
            guard line < rows, start < columns else { return }
            for index in max(0, start)..<columns { grid[line][index] = " " }
        }
        while let scalar = scalars.popFirst() {
            switch scalar {
            case "\u{1B}":
                guard scalars.first == "[" else { continue }
                scalars.removeFirst()
                var parameters = ""
                while let next = scalars.first, !(0x40...0x7E).contains(next.value) {
                    parameters.unicodeScalars.append(next)
                    scalars.removeFirst()
                }
                guard let final = scalars.popFirst() else { break }
                let numbers = parameters.split(separator: ";").map { Int($0) ?? 0 }
                switch final {
                case "H":
                    row = max(1, numbers.first ?? 1) - 1
                    column = max(1, numbers.count > 1 ? numbers[1] : 1) - 1
                case "K": clearLine(row, from: column)
                case "J":
                    if parameters == "2" {
                        for line in 0..<rows { clearLine(line, from: 0) }
                    } else {
                        clearLine(row, from: column)
                        for line in (row + 1)..<max(row + 1, rows) { clearLine(line, from: 0) }
                    }
                case "h", "l":
                    if parameters == "?1049" {
                        isAlternate = final == "h"
                        for line in 0..<rows { clearLine(line, from: 0) }
                    }
                    if parameters == "?25" { cursorHidden = final == "l" }
                case "m":
                    colourCodes += numbers.filter { (30...38).contains($0) || (90...97).contains($0) }.count
                default: break
                }
            case "\r": column = 0
            case "\n": row = min(rows - 1, row + 1)
            default:
                if row < rows && column < columns { grid[row][column] = Character(scalar) }
                column += 1
            }
        }
        lines = grid.map { String(String($0).reversed().drop { $0 == " " }.reversed()) }
    }

    func contains(_ text: String) -> Bool { lines.contains { $0.contains(text) } }

    /// The first row containing `text`, or `nil`.
    func row(containing text: String) -> Int? { lines.firstIndex { $0.contains(text) } }
}
