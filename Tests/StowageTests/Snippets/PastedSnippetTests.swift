import Foundation
import StowageTestSupport
import Testing

/// The Swift blocks of the documents run as a reader pastes them: the README's quick start is the
/// manifest of one fresh scratch package (depending on this package by path, through a folder not
/// named `Stowage`), and every other block is the `main.swift` of an executable target of its own
/// in that package (a test block, a test target of its own), so Stowage builds once. The package
/// builds with warnings as errors; each executable then runs in a scratch `HOME` and must exit 0,
/// and the test targets' tests must pass.
///
/// A block with no `import` line gets `import Foundation` and `import Stowage` (and `import
/// Testing` and `import StowageTesting` for a test block), as a file of the reader's would have;
/// a block that imports is taken as it is. Blocks that cannot be built here are listed with the
/// reason in ``notBuilt`` (excerpts of manifests; Apple-only code, which the Darwin check
/// type-checks), and blocks built but not run in ``notRun`` (a fill of a volume of its own).
@Suite("Snippets: every block of the README builds alone and runs as pasted",
       .long("builds a scratch package of about 20 targets over Stowage and runs each: 2 to 4 minutes"))
struct PastedSnippetTests {
    /// The documents whose blocks are run as pasted. The DocC articles' blocks still rely on names
    /// defined elsewhere, and are compiled in place by ``SnippetTests``.
    static let checkedDocuments = ["README.md"]

    /// Blocks not built, by document and first line, with the reason.
    static let notBuilt: [String: String] = [
        "README.md: // Package.swift: swift-tools-version 6.1 or later":
            "an excerpt of a package manifest (the arguments of `Package(...)`); the quick start's whole manifest is built",
    ]

    /// Blocks built but not run, by document and first line, with the reason.
    static let notRun: [String: String] = [
        "README.md: let scratchVolume = URL(filePath: \"/mnt/scratch\")     // a volume of its own: the fill takes all but 100 MB":
            "fills a volume of its own (mounted at /mnt/scratch) to 100 MB; FillerTests fill real scratch volumes",
    ]

    /// The folder the quick start's manifest names, and the one the test links to this package.
    static let manifestPath = "../Stowage"
    static let cloneName = "nc-clone"

    struct Block {
        var document: String
        var line: Int
        var text: String
        var imports: [String]
        var firstLine: String

        /// A target name for the block: the document's base name and the line of its fence.
        var name: String { SnippetCatalog.baseName(document) + "_\(line)" }
        var isManifest: Bool { text.contains("import PackageDescription\n") }
        var isTest: Bool { text.contains("@Test") || text.contains("XCTestCase") }
        /// The source as pasted, with the imports a reader's file would have when it shows none.
        var source: String {
            guard imports.isEmpty else { return text }
            let modules = isTest ? ["Foundation", "Stowage", "StowageTesting", "Testing"] : ["Foundation", "Stowage"]
            return modules.map { "import \($0)\n" }.joined() + "\n" + text + "\n"
        }
    }

    static func blocks(of document: String) throws -> [Block] {
        let text = try String(contentsOf: SnippetTests.packageRoot.appending(path: document), encoding: .utf8)
        var catalog = SnippetCatalog()
        catalog.addDocument(path: document, text: text)
        return catalog.blocks.map { block in
            let imports = block.imports.map { "import \($0)\n" }.joined()
            return Block(document: document, line: block.line,
                         text: (imports.isEmpty ? "" : imports + "\n") + block.code + "\n",
                         imports: block.imports, firstLine: block.firstLine)
        }
    }

    @Test("the quick start and every other block of the README: built alone with warnings as errors, each run in a scratch HOME")
    func everyBlockRunsAsPasted() throws {
        let swift = try requireSwift()
        let folder = TestFolder("pasted")
        let blocks = try Self.checkedDocuments.flatMap { try Self.blocks(of: $0) }
        let listed = Set(blocks.map { "\($0.document): \($0.firstLine)" })
        for key in Array(Self.notBuilt.keys) + Array(Self.notRun.keys) where !listed.contains(key) {
            Issue.record("\(key): listed as not built or not run, but no checked document shows it any more")
        }
        let runnable = blocks.filter { Self.notBuilt["\($0.document): \($0.firstLine)"] == nil }
        let manifests = runnable.filter(\.isManifest)
        let manifest = try #require(manifests.first, "no block of README.md is a whole Package.swift (the quick start's)")
        #expect(manifests.count == 1, "several manifests: \(manifests.map(\.name))")
        #expect(manifest.text.contains("\"\(Self.manifestPath)\""), "the quick start's manifest names \(Self.manifestPath)")
        let programs = runnable.filter { !$0.isManifest && !$0.isTest }
        let tests = runnable.filter { !$0.isManifest && $0.isTest }
        let quickStart = try #require(programs.first { $0.line > manifest.line }, "no block follows the quick start's manifest")

        // The clone, reached through a folder that is not named Stowage.
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/" + Self.cloneName,
                                                   withDestinationPath: SnippetTests.packageRoot.path(percentEncoded: false))
        let package = folder.path + "/QuickStart"
        var text = manifest.text.replacingOccurrences(of: "\"\(Self.manifestPath)\"", with: "\"../\(Self.cloneName)\"")
        text += "\n// Added by PastedSnippetTests: a target per block, in Blocks/ (SwiftPM keeps Snippets/ for its own snippets).\npackage.targets += [\n"
        for block in programs where block.line != quickStart.line {
            text += "    .executableTarget(name: \"\(block.name)\", dependencies: [.product(name: \"Stowage\", package: \"\(Self.cloneName)\")], path: \"Blocks/\(block.name)\"),\n"
        }
        for block in tests {
            text += "    .testTarget(name: \"\(block.name)\", dependencies: [.product(name: \"Stowage\", package: \"\(Self.cloneName)\"), "
                + ".product(name: \"StowageTesting\", package: \"\(Self.cloneName)\")], path: \"Blocks/\(block.name)\"),\n"
        }
        text += "]\n"
        try write(text, to: package + "/Package.swift")
        try write(quickStart.source, to: package + "/Sources/QuickStart/main.swift")
        for block in programs where block.line != quickStart.line {
            try write(block.source, to: package + "/Blocks/\(block.name)/main.swift")
        }
        for block in tests {
            try write(block.source, to: package + "/Blocks/\(block.name)/\(block.name).swift")
        }
        // The same versions of Stowage's dependencies as this package's, fetched from SwiftPM's cache.
        try FileManager.default.copyItem(atPath: SnippetTests.packageRoot.appending(path: "Package.resolved").path(percentEncoded: false),
                                         toPath: package + "/Package.resolved")

        let build = try runProcess(swift, ["build", "--package-path", package, "--build-tests", "-Xswiftc", "-warnings-as-errors"],
                                   within: .seconds(1_800))
        guard build.status == 0 else {
            Issue.record("the scratch package of the README's blocks does not build:\n\((build.output + build.error).suffix(6_000))")
            return
        }
        let bin = try runProcess(swift, ["build", "--package-path", package, "--show-bin-path"]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        for block in programs where Self.notRun["\(block.document): \(block.firstLine)"] == nil {
            let target = block.line == quickStart.line ? "QuickStart" : block.name
            let home = folder.path + "/homes/" + target
            for sub in ["home", "tmp"] {
                try FileManager.default.createDirectory(atPath: home + "/" + sub, withIntermediateDirectories: true)
            }
            let environment = ["HOME": home + "/home", "TMPDIR": home + "/tmp",
                               "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
            let run = try runProcess(URL(filePath: bin + "/" + target), [], environment: environment,
                                     directory: URL(filePath: home + "/home"), within: .seconds(120))
            #expect(run.status == 0 && run.signal == nil,
                    "\(block.document):\(block.line) (\(target)) exited \(run.status), signal \(run.signal.map(String.init) ?? "none"):\n\(run.output)\(run.error)")
            print("\(block.document):\(block.line) (\(target)) printed:\n\(run.output)")
        }
        if !tests.isEmpty {
            let test = try runProcess(swift, ["test", "--package-path", package, "--skip-build"],
                                      environment: ProcessInfo.processInfo.environment.merging(["TMPDIR": folder.path + "/homes"]) { $1 },
                                      within: .seconds(600))
            #expect(test.status == 0, "the README's test blocks fail:\n\((test.output + test.error).suffix(4_000))")
        }
        print("pasted snippets: the quick start, \(programs.count - 1) programs and \(tests.count) test blocks of \(Self.checkedDocuments) built and ran; \(Self.notBuilt.count) listed as not built, \(Self.notRun.count) as not run")
    }

    private func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// `swift` on the PATH; skips the test, saying why, where there is none.
    private func requireSwift() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        guard let swift = path.split(separator: ":").map({ $0 + "/swift" }).first(where: FileManager.default.isExecutableFile) else {
            print("SKIPPED: no swift in PATH to build the snippets")
            try Test.cancel("no swift in PATH")
        }
        return URL(filePath: String(swift))
    }
}
