import Foundation
import Testing

/// The check `.ci/run` applies to the man page `make install` installs (`Scripts/check-manual.sh`,
/// the page read as `man` shows it on an 80-column terminal) sees what it is there for.
///
/// The page itself is generated and checked by `.ci/run` (`make manual`, then this script, then
/// every subcommand's entry): its generator is a tool of swift-argument-parser's `GenerateManual`
/// plugin, which only `swift package generate-manual` builds, so a plain `swift test` on a fresh
/// clone could only have skipped that test.
@Suite("stowage's man page")
struct ManualPageCommandTests {
    static let packageRoot = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("the check reports a table row that wraps, and a line too wide")
    func checkSeesWrappedRows() async throws {
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
        let checked = try await runProcess(URL(filePath: "/bin/bash"), [script, page])
        #expect(checked.status == 1)
        #expect(checked.output.contains("wraps the row before it"), "\(checked.output)")
        #expect(checked.output.contains("columns wide"), "\(checked.output)")
    }
}
