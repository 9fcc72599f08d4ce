import Foundation
import Testing

/// The man page `make install` installs, made as `make manual` makes it: swift-argument-parser's
/// generator run on the built command, then the Makefile's `tidy-manual`; and read as `man`
/// shows it on an 80-column terminal, by `Scripts/check-manual.sh`.
@Suite("stowage's man page")
struct ManualPageCommandTests {
    static let packageRoot = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The generator the `GenerateManual` plugin builds beside the command (`make manual`,
    /// `swift package generate-manual`); skips the test, saying why, where it was never built.
    static func generator() throws -> URL {
        let tool = try CommandRunner.binary().deletingLastPathComponent().appending(path: "generate-manual-tool")
        guard FileManager.default.isExecutableFile(atPath: tool.path(percentEncoded: false)) else {
            let reason = "the man page generator is not built (make manual CONFIGURATION=debug builds it)"
            print("SKIPPED: \(reason)")
            try Test.cancel(Comment(rawValue: reason))
        }
        return tool
    }

    @Test("renders at 80 columns with no groff warning, no line over 80 columns, no table row wrapped")
    func rendersCleanly() throws {
        let make = try requireToolURL("make")
        _ = try requireTool("groff")
        let runner = try CommandRunner()
        let generated = try runProcess(try Self.generator(), [CommandRunner.binary().path(percentEncoded: false),
                                                              "--output-directory", runner.folderPath])
        #expect(generated.status == 0, "\(generated.error)")
        let raw = runner.folderPath + "/stowage.1"
        let page = runner.folderPath + "/tidy.1"
        let tidied = try runProcess(make, ["--no-print-directory", "-s", "-C", Self.packageRoot.path(percentEncoded: false),
                                           "tidy-manual", "GENERATED_MANUAL=\(raw)", "MANUAL=\(page)"])
        #expect(tidied.status == 0, "\(tidied.error)")
        let script = Self.packageRoot.appending(path: "Scripts/check-manual.sh").path(percentEncoded: false)
        let checked = try runProcess(URL(filePath: "/bin/bash"), [script, page])
        #expect(checked.status == 0, "\(checked.output)\(checked.error)")
        for subcommand in ["locations", "info", "usage", "sweep", "relieve", "clear", "audit", "watch", "fill", "release", "run"] {
            #expect(try String(contentsOfFile: page, encoding: .utf8).contains(".It Em \(subcommand)"), "\(subcommand) missing")
        }

        // The check sees what it is there for: the page as generated has the help's blank lines,
        // which groff warns of.
        let untidy = try runProcess(URL(filePath: "/bin/bash"), [script, raw])
        #expect(untidy.status == 1 && untidy.output.contains("Empty input line"), "\(untidy.output)")
    }

    @Test("the check reports a table row that wraps, and a line too wide")
    func checkSeesWrappedRows() throws {
        _ = try requireTool("groff")
        let runner = try CommandRunner()
        let page = runner.folderPath + "/wide.1"
        let row = "  NAME  " + Array(repeating: "word", count: 17).joined(separator: " ")
        try """
            .Dd January 1, 2026
            .Dt WIDE 1
            .Os
            .Sh NAME
            .Nm wide
            .Nd a page with a long row
            .Sh DESCRIPTION
            Table:
            \(row)
            \\fB\(String(repeating: "x", count: 90))\\fR
            """.write(toFile: page, atomically: true, encoding: .utf8)
        let script = Self.packageRoot.appending(path: "Scripts/check-manual.sh").path(percentEncoded: false)
        let checked = try runProcess(URL(filePath: "/bin/bash"), [script, page])
        #expect(checked.status == 1)
        #expect(checked.output.contains("wraps the row before it"), "\(checked.output)")
        #expect(checked.output.contains("columns wide"), "\(checked.output)")
    }
}
