import ArgumentParser
import Foundation
import Stowage

/// `--json`, and the one place that prints results and errors.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print JSON on standard output instead of text.")
    var json = false

    /// Runs `body` and prints what it returns; a `StowageError` is printed to standard error
    /// (and as JSON on standard output with `--json`) and exits with status 1 (64 for a value
    /// that cannot be used: ``ExitStatus/status(for:)``).
    func run(_ body: () throws -> Rendered) throws {
        let rendered: Rendered
        do {
            rendered = try body()
        } catch let error as StowageError {
            report(error)
            throw ExitCode(ExitStatus.status(for: error))
        } catch let refusal as UsageRefusal {
            report(refusal.error)
            throw ExitCode(ExitStatus.usage)
        }
        try emit(rendered)
    }

    /// ``run(_:)`` for work that waits (the long-running commands, which show progress); `body`
    /// runs in the caller's isolation (the main actor, for the commands that use the
    /// `StorageOverview` model).
    func run(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Rendered) async throws {
        let rendered: Rendered
        do {
            rendered = try await body()
        } catch let error as StowageError {
            report(error)
            throw ExitCode(ExitStatus.status(for: error))
        } catch let refusal as UsageRefusal {
            report(refusal.error)
            throw ExitCode(ExitStatus.usage)
        }
        try emit(rendered)
    }

    /// Prints `rendered` as JSON or text, then exits with its status unless that is success.
    private func emit(_ rendered: Rendered) throws {
        if json {
            print(try rendered.jsonText())
        } else {
            print(rendered.human(), terminator: "")
        }
        if rendered.exitStatus != ExitStatus.success { throw ExitCode(rendered.exitStatus) }
    }

    func report(_ error: StowageError) {
        Terminal.standardError.problem(error)
        // The error is on standard error already; its JSON form only fails to encode if a
        // message cannot be a JSON string, and then there is nothing better to print.
        if json, let text = try? JSONOutput.encode(ErrorJSON(error)) { print(text) }
    }
}

/// `--json` and `--json-lines`, for `fill`, whose work is a stream of events: one JSON
/// document at the end, or one line of JSON per event as it happens.
struct StreamOutputOptions: ParsableArguments, EventOutput {
    /// `--json`, as every command has it. (The same option group type as the root command's:
    /// ArgumentParser hands a parent's parsed group to a child of the same type, whereas a
    /// second `--json` of another type would never see the flag, which the root consumes first.)
    @OptionGroup var document: OutputOptions

    @Flag(name: .customLong("json-lines"), help: ArgumentHelp(jsonLinesHelp))
    var jsonLines = false

    func validate() throws {
        if json && jsonLines { throw ValidationError("Give --json or --json-lines, not both.") }
    }
}

/// `--json-lines` alone, for `watch`, which runs until stopped and so has no one result to
/// print as a JSON document.
struct EventLinesOutputOptions: ParsableArguments, EventOutput {
    /// `--json`, parsed only to be refused by the command (the root command would take it
    /// silently otherwise: see ``StreamOutputOptions/document``), and so left out of its help
    /// and completions.
    @OptionGroup(visibility: .private) var document: OutputOptions

    @Flag(name: .customLong("json-lines"), help: ArgumentHelp(jsonLinesHelp))
    var jsonLines = false
}

/// `--json-lines`'s help, the same in `fill` and `watch`.
private let jsonLinesHelp = "Print each event as one line of JSON as it happens (JSON Lines: event, date, figures)."

/// Output for the commands whose work is a stream of events (`fill`, `watch`): text, or with
/// `--json-lines` one line of JSON per event.
protocol EventOutput: Sendable {
    /// `--json`.
    var document: OutputOptions { get }
    /// Whether `--json-lines` was given.
    var jsonLines: Bool { get }
}

extension EventOutput {
    /// Whether `--json` was given.
    var json: Bool { document.json }

    /// Prints `event` as one line of JSON: `{"event": name, "date": now, ...payload}`.
    func emit(_ event: EventName, _ payload: some Encodable = EmptyPayload()) {
        do {
            let text = try JSONOutput.line(EventLine(event: event, date: Date(), payload: payload))
            Terminal.standardOutput.write(text + "\n")
        } catch {
            // Called from progress callbacks, which cannot throw: said on standard error, not lost.
            Terminal.standardError.problem("the \(event) event could not be written as JSON: \(error)")
        }
    }

    /// Reports `error` on standard error and, with `--json-lines`, as an `error` event (with
    /// `--json`, as the document).
    func report(_ error: StowageError) {
        if jsonLines {
            Terminal.standardError.problem(error)
            emit(.error, ErrorJSON(error))
        } else {
            document.report(error)
        }
    }
}

/// A refusal that an option would have lifted (`clear` of user data without `--yes`, and no
/// terminal to ask): reported as the error it carries (its code kept in JSON), with status 64,
/// since the command line lacked what it needed and nothing was done.
struct UsageRefusal: Error {
    let error: StowageError
}

/// A result with its two renderings.
struct Rendered {
    let jsonText: () throws -> String
    let human: () -> String
    /// The status to exit with once the output is printed (see ``ExitStatus``).
    let exitStatus: Int32

    init<Value: Encodable>(json: Value, exitStatus: Int32 = ExitStatus.success, human: @escaping () -> String) {
        self.init(jsonText: { try JSONOutput.encode(json) }, exitStatus: exitStatus, human: human)
    }

    /// A result whose JSON is written by `jsonText`, the same text as ``JSONOutput/encode(_:)``
    /// would write for it, faster (`UsageComparisonJSON`).
    init(jsonText: @escaping () throws -> String, exitStatus: Int32 = ExitStatus.success, human: @escaping () -> String) {
        self.jsonText = jsonText
        self.human = human
        self.exitStatus = exitStatus
    }
}

/// The command's exit statuses, as the README's table gives them.
enum ExitStatus {
    /// Done.
    static let success: Int32 = 0
    /// Failed (an error, or, as `du` does, a file or folder that could not be read; the figures
    /// are printed first).
    static let failure: Int32 = 1
    /// Ran, but the goal was not met: relief could not free enough, a fill was stopped before
    /// its goal.
    static let goalNotMet: Int32 = 3
    /// The command line was wrong (ArgumentParser's usage error), or a value it gave cannot
    /// be used (see ``status(for:)``).
    static let usage: Int32 = 64

    /// The status for `error`: ``usage`` when Stowage refused a value the user gave before doing
    /// anything (``StowageError/Code/invalidArgument`` with no `errno`: `--app ""`, `--chunk 0`,
    /// a drop above the room), ``failure`` otherwise (an `EINVAL` from the system included).
    static func status(for error: StowageError) -> Int32 {
        error.code == .invalidArgument && error.errno == nil ? usage : failure
    }
}

enum Terminal {
    struct Stream {
        let handle: FileHandle

        /// Writes `text` at once (no buffer: a pipe reads a range's rows as they come). Best
        /// effort, as `print` is: a stream that cannot take it (a full disk, a closed pipe with
        /// SIGPIPE ignored) loses the text, never the command (`FileHandle.write(_:)` would trap).
        func write(_ text: String) { try? handle.write(contentsOf: Data(text.utf8)) }

        /// Writes `stowage: <problem>` as one line, names in it escaped.
        func problem(_ problem: some CustomStringConvertible) {
            write("stowage: \(DisplayPath.escaped(problem.description))\n")
        }

        /// Writes `stowage: <error>` as one line, escaped, its path from its exact bytes when
        /// they are not UTF-8 (`\xff`, never U+FFFD: ``StowageError/pathBytes``).
        func problem(_ error: StowageError) {
            write("stowage: \(DisplayPath.escaped(error))\n")
        }

        /// Writes `stowage: <path>: <message>` as one line, the path from its exact bytes (a
        /// name that is not UTF-8 shows its bytes as `\xff`, never U+FFFD).
        func problem(_ issue: UsageIssue) {
            write("stowage: \(DisplayPath.escaped(bytes: issue.pathBytes)): \(DisplayPath.escaped(issue.message))\n")
        }
    }
    static let standardError = Stream(handle: .standardError)
    static let standardOutput = Stream(handle: .standardOutput)

    /// Whether standard error is a terminal (progress lines are drawn only there).
    static var standardErrorIsTerminal: Bool { TerminalDevice.isTerminal(TerminalDevice.standardError) }

    /// Whether standard output is a terminal.
    static var standardOutputIsTerminal: Bool { TerminalDevice.isTerminal(TerminalDevice.standardOutput) }

    /// Whether standard input is a terminal (a person can be asked).
    static var standardInputIsTerminal: Bool { TerminalDevice.isTerminal(TerminalDevice.standardInput) }
}

/// A plain-text table with left-aligned columns.
struct TextTable {
    var header: [String]
    var rows: [[String]] = []

    /// Columns padded to the widest cell in terminal columns (a wide character takes two).
    func render() -> String {
        let lines = [header] + rows
        let cellWidths = lines.map { $0.map(TerminalText.width(of:)) }  // each cell measured once
        let widths = header.indices.map { column in cellWidths.map { $0[column] }.max() ?? 0 }
        func line(_ cells: [String], _ measured: [Int]) -> String {
            zip(cells, widths).enumerated().map { index, pair in
                index == cells.count - 1 ? pair.0 : pair.0 + String(repeating: " ", count: max(0, pair.1 - measured[index]))
            }.joined(separator: "  ")
        }
        return zip(lines, cellWidths).map(line).joined(separator: "\n") + "\n"
    }
}

/// Paths as people read them: no percent-encoding, no trailing slash; and, in text output,
/// escaped so that a name cannot act on the terminal.
enum DisplayPath {
    static func of(_ url: URL) -> String {
        let path = url.path(percentEncoded: false)
        return path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    /// `text` (a name, a path, or a message quoting them) as text output shows it: control
    /// characters escaped, so that a file name cannot move the cursor, clear the screen or
    /// break a line of a table.
    ///
    /// `\n`, `\t`, `\r` and `\\` stand for themselves; other C0 controls and DEL become
    /// `\x1b`-style escapes, C1 controls (U+0080 to U+009F) `\u{85}`-style ones, and bytes that
    /// are not UTF-8 `\xff`-style ones. Everything else, Unicode included, is shown as it is.
    /// JSON output needs none of this: JSON escapes control characters itself.
    static func escaped(_ text: String) -> String {
        text.utf8.contains(where: { $0 < 0x20 || $0 == 0x5C || $0 >= 0x7F }) ? escaped(bytes: Array(text.utf8)) : text
    }

    /// `error`'s sentence as text output shows it (see ``escaped(_:)``), its path shown from
    /// its exact bytes where they are not UTF-8, as names are elsewhere: `\xff`, never U+FFFD.
    static func escaped(_ error: StowageError) -> String {
        let text = escaped(error.description)
        guard let bytes = error.pathBytes, let path = error.path else { return text }
        return text.replacing(escaped(path), with: escaped(bytes: bytes))
    }

    /// `bytes` (a name as the file system holds it) as text output shows it: see ``escaped(_:)``.
    static func escaped(bytes: [UInt8]) -> String {
        var result = ""
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var position = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                position += encoded.count
                append(Unicode.UTF8.decode(encoded), to: &result)
            case .error(let length):
                for byte in bytes[position..<position + length] { result += "\\x" + hex(byte, width: 2) }
                position += length
            case .emptyInput:
                return result
            }
        }
    }

    private static func append(_ scalar: Unicode.Scalar, to result: inout String) {
        switch scalar.value {
        case 0x0A: result += "\\n"
        case 0x09: result += "\\t"
        case 0x0D: result += "\\r"
        case 0x5C: result += "\\\\"
        case 0x00..<0x20, 0x7F: result += "\\x" + hex(scalar.value, width: 2)
        case 0x80...0x9F: result += "\\u{" + hex(scalar.value, width: 0) + "}"
        default: result.unicodeScalars.append(scalar)
        }
    }

    private static func hex(_ value: some BinaryInteger, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

extension String {
    /// The text without the line breaks at its ends (those of `CharacterSet.newlines`: U+000A to
    /// U+000D, U+0085, U+2028, U+2029), as `trimmingCharacters(in: .newlines)` gives it, without
    /// the round trip through `NSString` that costs as much as the table it trims.
    func trimmingNewlines() -> String {
        func isNewline(_ scalar: Unicode.Scalar) -> Bool {
            (0x0A...0x0D).contains(scalar.value) || scalar.value == 0x85 || scalar.value == 0x2028 || scalar.value == 0x2029
        }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isNewline($0) }),
              let last = scalars.lastIndex(where: { !isNewline($0) }) else { return "" }
        return String(scalars[first...last])
    }
}
