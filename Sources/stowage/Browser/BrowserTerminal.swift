import Foundation
import Stowage

/// The terminal the browser runs on, standard input and output: its modes taken over (raw
/// input) and given back exactly, the alternate screen entered and left, keys read, lines drawn.
///
/// A small layer of our own over termios and ANSI (ECMA-48) escape codes rather than ncurses:
/// the browser needs a dozen codes that every terminal of the last thirty years knows, and
/// owning them keeps the one thing that must never fail, giving the terminal back as it was,
/// in code we can see and test (and in a crash handler, which ncurses has no safe way to run);
/// no C library to link or to find at run time on each platform, no terminfo database.
final class BrowserTerminal {
    static let input = TerminalDevice.standardInput
    static let output = TerminalDevice.standardOutput

    /// Enter the alternate screen (the shell's screen comes back untouched), hide the cursor.
    static let enterCodes = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J"
    /// Plain text again, the cursor shown, the shell's screen back.
    static let leaveCodes = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"

    private let saved: TerminalDevice.Modes
    private var restored = false
    private var drawn: [String] = []

    /// Takes the terminal over: raw input, the alternate screen, and a guard that gives the
    /// modes back should the process crash.
    ///
    /// - Throws: a `SystemCallError` when the modes cannot be read or set (nothing is changed then).
    init() throws {
        saved = try TerminalDevice.modes(of: Self.input)
        try TerminalDevice.guardCrashes(restoring: saved, of: Self.input, leave: Array(Self.leaveCodes.utf8))
        do {
            try TerminalDevice.setRawInput(from: saved, of: Self.input)
        } catch {
            TerminalDevice.unguardCrashes()
            throw error
        }
        write(Self.enterCodes)
    }

    /// Gives the terminal back as it was: the screen, the cursor, the modes. Once; best effort
    /// (a terminal that has gone away takes nothing).
    func restore() {
        guard !restored else { return }
        restored = true
        write(Self.leaveCodes)
        try? TerminalDevice.setModes(saved, of: Self.input)  // best effort: a closed terminal has no modes
        TerminalDevice.unguardCrashes()
    }

    deinit { restore() }

    /// The terminal's columns and rows (80 x 24 when it does not say).
    var size: (columns: Int, rows: Int) {
        TerminalDevice.size(of: Self.output) ?? TerminalDevice.size(of: Self.input) ?? (80, 24)
    }

    /// The bytes typed, once some are typed, `wakeUp` is woken (then drained) or `timeout` has
    /// passed (`nil`: no limit), whichever comes first; empty unless keys came. (On Apple
    /// platforms, where `poll` cannot watch a terminal, a tenth of a second at most: see
    /// `TerminalDevice.waitForInput`.)
    ///
    /// - Throws: once the terminal is gone: a `SystemCallError` (`EIO`) from the read, or
    ///   ``Gone`` when it read nothing after hanging up (`POLLHUP`: standard output may be another
    ///   terminal, still open), or read nothing at once, without waiting its tenth of a second
    ///   (a terminal hung up reads as an endless end of file), and a write to it fails.
    func read(orWakeUp wakeUp: WakeUpPipe, timeout: Duration?) throws -> [UInt8] {
        let ready = try TerminalDevice.waitForInput(Self.input, orWakeUp: wakeUp, timeout: timeout)
        if ready.contains(.wokenUp) { wakeUp.drain() }
        guard ready.contains(.input) else { return [] }
        var buffer = [UInt8](repeating: 0, count: 256)
        let started = ContinuousClock.now
        let count = try TerminalDevice.readInput(Self.input, into: &buffer)
        if count == 0 {
            if ready.contains(.hungUp) { throw Gone() }
            if ContinuousClock.now - started < .milliseconds(20) {
                do {
                    try FileHandle.standardOutput.write(contentsOf: Data("\u{1B}[0m".utf8))  // changes nothing on a terminal
                } catch {
                    throw Gone()
                }
            }
        }
        return Array(buffer.prefix(count))
    }

    /// The terminal went away (hung up, closed).
    struct Gone: Error {}

    /// Draws `lines`, one a row from the top: only the rows that changed since the last drawing,
    /// or all of them after ``invalidate()``.
    func draw(_ lines: [String]) {
        var text = ""
        for (row, line) in lines.enumerated() where row >= drawn.count || drawn[row] != line {
            text += "\u{1B}[\(row + 1);1H" + line + "\u{1B}[K"
        }
        if drawn.count > lines.count { text += "\u{1B}[\(lines.count + 1);1H\u{1B}[J" }
        drawn = lines
        if !text.isEmpty { write(text) }
    }

    /// Clears the screen; the next drawing draws every row (after a resize).
    func invalidate() {
        drawn = []
        write("\u{1B}[H\u{1B}[2J")
    }

    private func write(_ text: String) {
        try? FileHandle.standardOutput.write(contentsOf: Data(text.utf8))  // a terminal gone away takes nothing; the read says so
    }
}
