import Foundation
import Testing

/// The examples of consuming the JSON in the DocC article "The JSON vocabulary", run against the
/// built command: the Python ones with `python3` and its `jsonschema` package, the `jq` one with
/// `jq`. Where a tool is missing, the test says so and checks nothing more (it is not the
/// package's to install).
@Suite("JSON output: the article's Python and jq examples")
struct JSONVocabularySnippetTests {
    static let article = URL(filePath: #filePath).deletingLastPathComponent()
        .appending(path: "../../Sources/Stowage/Stowage.docc/JSONVocabulary.md").standardizedFileURL

    static var packageRoot: URL { URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../..").standardizedFileURL }

    /// The article's code blocks in `language`, in order.
    static func blocks(_ language: String) throws -> [String] {
        let text = try String(contentsOf: article, encoding: .utf8)
        return text.components(separatedBy: "```\(language)\n").dropFirst().map { $0.components(separatedBy: "```").first ?? "" }
    }

    /// The test's environment (the runner's folders) with the built `stowage` first on the
    /// `PATH`; `nil`, said on standard output, when `probe` (a shell command) finds `tool` missing.
    static func environment(_ runner: CommandRunner, probe: String, tool: String) async throws -> [String: String]? {
        var environment = runner.environment
        environment["PATH"] = try CommandRunner.binary().deletingLastPathComponent().path(percentEncoded: false) + ":"
            + (environment["PATH"] ?? "/usr/bin:/bin")
        guard try await shell(probe, environment).status == 0 else {
            print("skipped: no \(tool) to run the article's examples with")
            return nil
        }
        return environment
    }

    /// Runs `script` with `/bin/sh -c` from the package's root folder.
    static func shell(_ script: String, _ environment: [String: String]) async throws -> ProcessResult {
        try await runProcess(URL(filePath: "/bin/sh"), ["-c", script], environment: environment, directory: packageRoot)
    }

    @Test("the Python examples: the locations, validated with jsonschema and no registry; the exact bytes of a name")
    func python() async throws {
        let runner = try CommandRunner()
        guard let environment = try await Self.environment(runner, probe: "python3 -c 'import jsonschema'",
                                                     tool: "python3 with the jsonschema package") else { return }
        let blocks = try Self.blocks("python")
        #expect(blocks.count == 2)
        let listing = try await runProcess(URL(filePath: "/usr/bin/env"), ["python3", "-c", blocks[0]], environment: environment,
                                     directory: Self.packageRoot)
        #expect(listing.status == 0, "\(listing.error)")
        let firstWords: [String] = listing.output.split(separator: "\n").map { $0.split(separator: " ").first.map(String.init) ?? "" }
        #expect(firstWords == ["documents", "applicationSupport", "caches", "preferences", "temporary"], "\(listing.output)")
        let exact = try await runProcess(URL(filePath: "/usr/bin/env"), ["python3", "-c", blocks[1] + """

            print(exact_path({"path": "caf\\ufffd.txt", "pathBase64": "Y2Fm6S50eHQ="}), exact_path({"path": "a.txt"}))
            """], environment: environment, directory: Self.packageRoot)
        #expect(exact.status == 0 && exact.output == "b'caf\\xe9.txt' b'a.txt'\n", "\(exact.output)\(exact.error)")
    }

    @Test("the jq example prints what the article shows")
    func jq() async throws {
        let runner = try CommandRunner()
        guard let environment = try await Self.environment(runner, probe: "command -v jq", tool: "jq") else { return }
        let lines = try #require(try Self.blocks("console").first).split(separator: "\n", omittingEmptySubsequences: false)
        let command = try #require(lines.first?.dropFirst(2))
        let result = try await Self.shell(String(command), environment)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == lines.dropFirst().joined(separator: "\n"), "\(command)")
    }
}
