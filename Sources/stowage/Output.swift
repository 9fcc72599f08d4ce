import ArgumentParser
import Foundation
import Stowage

/// `--json`, and the one place that prints results and errors.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print JSON on standard output instead of text.")
    var json = false

    /// Runs `body` and prints what it returns; a `StowageError` is printed to standard error
    /// (and as JSON on standard output with `--json`) and exits with status 1.
    func run(_ body: () throws -> Rendered) throws {
        do {
            let rendered = try body()
            if json {
                print(try rendered.jsonText())
            } else {
                print(rendered.human(), terminator: "")
            }
        } catch let error as StowageError {
            report(error)
            throw ExitCode(1)
        }
    }

    func report(_ error: StowageError) {
        Terminal.standardError.write("stowage: \(error.description)\n")
        if json {
            let body = ErrorJSON(error: .init(
                code: error.code.description, operation: error.operation.name,
                location: error.location?.identifier, path: error.path,
                errno: error.errno.map(Int.init), message: error.description))
            if let text = try? JSONOutput.encode(body) { print(text) }
        }
    }
}

/// A result with its two renderings.
struct Rendered {
    let jsonText: () throws -> String
    let human: () -> String

    init<Value: Encodable>(json: Value, human: @escaping () -> String) {
        self.jsonText = { try JSONOutput.encode(json) }
        self.human = human
    }
}

enum JSONOutput {
    static func encode<Value: Encodable>(_ value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// `value` as one line of JSON, for streams of events (JSON Lines).
    static func line<Value: Encodable>(_ value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

struct ErrorJSON: Encodable {
    struct Body: Encodable {
        var code: String
        var operation: String
        var location: String?
        var path: String?
        var errno: Int?
        var message: String
    }
    var error: Body
}

enum Terminal {
    struct Stream {
        let handle: FileHandle
        func write(_ text: String) { handle.write(Data(text.utf8)) }
    }
    static let standardError = Stream(handle: .standardError)

    /// Whether standard error is a terminal (progress lines are drawn only there).
    static var standardErrorIsTerminal: Bool { isatty(2) == 1 }

    /// Whether standard output is a terminal.
    static var standardOutputIsTerminal: Bool { isatty(1) == 1 }
}

/// A plain-text table with left-aligned columns.
struct TextTable {
    var header: [String]
    var rows: [[String]] = []

    func render() -> String {
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).enumerated().map { index, pair in
                index == cells.count - 1 ? pair.0 : pair.0.padding(toLength: pair.1, withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n") + "\n"
    }
}
