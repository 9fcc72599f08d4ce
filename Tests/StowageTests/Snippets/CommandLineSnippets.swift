import Foundation
import Testing
@testable import Stowage

/// The snippet of "The command's JSON output and exit statuses" (CommandLine.md): a report in
/// the command's JSON, read back by a program.
@Suite("Snippets: Command line")
struct CommandLineSnippets {
    static func decode(output: Data) throws -> (SweepReport, [String]) {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet CommandLine/decode
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601       // every time in the output: ISO 8601, UTC
        let report = try decoder.decode(SweepReport.self, from: output)   // `stowage sweep --json`'s output
        print(report.removed.count, report.freedAllocatedBytes)          // "removed", "freedAllocatedBytes"
        // end snippet
        return (report, printed)
    }

    @Test("a sweep report in the command's JSON (sorted keys, ISO 8601 dates) decodes to the same report")
    func decode() throws {
        let folder = TestFolder("snippet-json")
        try folder.write("old", to: "cache/a")
        let swept = try Sweeper(policy: SweepPolicy(maximumCount: 0)).sweep(folder.file("cache"), dryRun: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let output = try encoder.encode(swept)
        let text = String(decoding: output, as: UTF8.self)
        #expect(text.contains("\"freedAllocatedBytes\"") && text.contains("\"isDryRun\"") && text.contains("\"lastAccessDate\""))
        let (report, printed) = try Self.decode(output: output)
        #expect(report.removed.map(\.path) == ["a"])
        #expect(printed == ["1 \(swept.freedAllocatedBytes)"])
    }
}
