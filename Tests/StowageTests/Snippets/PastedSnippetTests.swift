import Foundation
import Stowage
import StowageTestSupport
import Testing

/// The Swift blocks of the documents (the README and every DocC article) run as a reader pastes
/// them: the README's quick start is the manifest of one fresh scratch package (depending on this
/// package by path, through a folder not named `Stowage`), and every other block is the
/// `main.swift` of an executable target of its own in that package (a test block, a test target of
/// its own), so Stowage builds once. The package builds with warnings as errors; each executable
/// then runs in a scratch `HOME` and `TMPDIR` and must exit 0, and the test targets' tests must pass.
///
/// A block with no `import` line gets `import Foundation` and `import Stowage` (and `import
/// Testing` and `import StowageTesting` for a test block), as a file of the reader's would have;
/// a block that imports is taken as it is. Excerpts of manifests are not Swift to build
/// (``SnippetTests/allowed``); Apple-only blocks are listed with the reason in ``notBuilt`` and
/// compiled in place by ``SnippetTests``. Blocks that name `/mnt/scratch` (a volume of their own,
/// which a fill takes) run, in the documents' order, with a tmpfs of the test's folder in its place
/// (as root; otherwise they are built and not run, saying why); blocks that make a room
/// (`RoomProcess`) run where rooms can be made, and are built and not run, saying why, elsewhere.
@Suite("Snippets: every block of the README and the articles builds alone and runs as pasted",
       .long("builds a scratch package of 71 targets over Stowage and runs each: 113 s at load 2 to 3.5, 2026-11-28"))
struct PastedSnippetTests {
    /// The documents whose blocks are run as pasted: the README and every DocC article.
    static func checkedDocuments() throws -> [String] {
        try SnippetTests.documentPaths(in: SnippetTests.packageRoot)
    }

    /// Blocks not built here, by document and first line, with the reason: Apple-only code, which
    /// ``SnippetTests`` compiles in place (against stand-ins where the framework is missing).
    static let notBuilt: [String: String] = [
        "Sources/Stowage/Stowage.docc/BackgroundCleanup.md: import BackgroundTasks":
            "BackgroundTasks (BGTaskScheduler) exists on iOS, tvOS, Mac Catalyst and visionOS only; SnippetTests compiles its twin "
            + "(BackgroundCleanupSnippets) against stand-ins of the framework on Linux and against the framework itself on those platforms",
        "Sources/Stowage/Stowage.docc/SettingsScreen.md: #if canImport(SwiftUI)":
            "a SwiftUI view, Apple platforms only (on Linux its #if leaves nothing to build); SnippetTests keeps its twin "
            + "(SettingsScreenSnippets), compiled where SwiftUI is",
    ]

    /// Comments of `print` lines that do not say what a run here prints, by document and comment,
    /// with the reason. Every other such comment is compared with what the block printed.
    static let outputsNotCompared: [String: String] = [
        "README.md: 83.5 GB": "the available space of the disk the document was written on",
        "README.md: Caches 12.3 MB": "an app's caches after some use; the block's container is new",
        "Sources/Stowage/Stowage.docc/CapacityAndSimulation.md: / ext4": "the volume of the machine the document was written on",
        "Sources/Stowage/Stowage.docc/MeasuringUsage.md: true, unless the scan had finished already":
            "a race by nature: the scan of a small folder may end before the cancellation",
        "Sources/Stowage/Stowage.docc/Sweeping.md: an alert, in an app": "a branch the run takes only where the disk has less than 2 GB available",
        "Sources/Stowage/Stowage.docc/Sweeping.md: it freed something": "a case of the switch: the run's check finds enough space",
        "Sources/Stowage/Stowage.docc/Sweeping.md: the watch goes on": "a case of the switch: the run's check does not fail",
    ]

    /// The path the documents give a volume of its own, which the blocks that fill one name.
    static let scratchVolumePath = "/mnt/scratch"

    /// The folder the quick start's manifest names, and the one the test links to this package.
    static let manifestPath = "../Stowage"
    static let cloneName = "nc-clone"

    struct Block {
        var document: String
        var line: Int
        var text: String
        var imports: [String]
        var firstLine: String

        /// The block's key in ``notBuilt`` and ``SnippetTests/allowed``: its document and first line.
        var key: String { "\(document): \(firstLine)" }
        /// Whether it fills a volume of its own (named `/mnt/scratch`).
        var needsVolume: Bool { text.contains(PastedSnippetTests.scratchVolumePath) }
        /// Whether it makes a room (a private mount namespace: root or user namespaces).
        var makesRoom: Bool { text.contains("RoomProcess.") }
        /// The comment (after `  // `) of each line that calls `print(`: what the document says it prints.
        var printComments: [String] {
            text.split(separator: "\n").compactMap { line -> String? in
                guard let call = line.range(of: "print("), let comment = line.range(of: "  // ", range: call.upperBound..<line.endIndex) else {
                    return nil
                }
                return String(line[comment.upperBound...]).trimmingCharacters(in: .whitespaces)
            }
        }

        /// What a comment says is printed: the comment up to its first `: ` or `...` (what follows explains).
        static func printed(by comment: String) -> String {
            let ends = [comment.range(of: ": ")?.lowerBound, comment.range(of: "...")?.lowerBound].compactMap { $0 }
            return String(comment[..<(ends.min() ?? comment.endIndex)])
        }

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

    @Test("the quick start and every other block of the README and the articles: built alone with warnings as errors, each run in a scratch HOME")
    func everyBlockRunsAsPasted() throws {
        let swift = try requireSwift()
        let folder = TestFolder("pasted")
        let blocks = try Self.checkedDocuments().flatMap { try Self.blocks(of: $0) }
        let listed = Set(blocks.map(\.key))
        for key in Self.notBuilt.keys where !listed.contains(key) {
            Issue.record("\(key): listed as not built, but no checked document shows it any more")
        }
        let comments = Set(blocks.flatMap { block in block.printComments.map { "\(block.document): \($0)" } })
        for key in Self.outputsNotCompared.keys where !comments.contains(key) {
            Issue.record("\(key): listed as an output not compared, but no block's print line has this comment any more")
        }
        let runnable = blocks.filter { Self.notBuilt[$0.key] == nil && SnippetTests.allowed[$0.key] == nil }
        let manifests = runnable.filter(\.isManifest)
        let manifest = try #require(manifests.first, "no block of README.md is a whole Package.swift (the quick start's)")
        #expect(manifests.count == 1, "several manifests: \(manifests.map(\.name))")
        #expect(manifest.text.contains("\"\(Self.manifestPath)\""), "the quick start's manifest names \(Self.manifestPath)")
        let programs = runnable.filter { !$0.isManifest && !$0.isTest }
        let tests = runnable.filter { !$0.isManifest && $0.isTest }
        let quickStart = try #require(programs.first { $0.document == manifest.document && $0.line > manifest.line },
                                      "no block follows the quick start's manifest")

        // A volume of its own for the blocks that fill one, and whether rooms can be made here.
        var volume: ScratchVolume?
        var volumeRefusal: String?
        if programs.contains(where: \.needsVolume) {
            if geteuid() == 0 {
                volume = try ScratchVolume.mount("tmpfs", size: "400m", in: folder.url, named: "scratch")
            } else {
                volumeRefusal = "mounting a tmpfs for \(Self.scratchVolumePath) needs root"
            }
        }
        let roomsRefused = programs.contains(where: \.makesRoom) ? try roomRefusal() : nil
        let scratch = volume?.path ?? Self.scratchVolumePath
        func source(_ block: Block) -> String {
            block.source.replacingOccurrences(of: Self.scratchVolumePath, with: scratch)
        }

        // The clone, reached through a folder that is not named Stowage.
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/" + Self.cloneName,
                                                   withDestinationPath: SnippetTests.packageRoot.path(percentEncoded: false))
        let package = folder.path + "/QuickStart"
        var text = manifest.text.replacingOccurrences(of: "\"\(Self.manifestPath)\"", with: "\"../\(Self.cloneName)\"")
        text += "\n// Added by PastedSnippetTests: a target per block, in Blocks/ (SwiftPM keeps Snippets/ for its own snippets).\npackage.targets += [\n"
        for block in programs where block.line != quickStart.line || block.document != quickStart.document {
            let testing = block.imports.contains("StowageTesting") ? ", .product(name: \"StowageTesting\", package: \"\(Self.cloneName)\")" : ""
            text += "    .executableTarget(name: \"\(block.name)\", dependencies: [.product(name: \"Stowage\", package: \"\(Self.cloneName)\")\(testing)], path: \"Blocks/\(block.name)\"),\n"
        }
        for block in tests {
            text += "    .testTarget(name: \"\(block.name)\", dependencies: [.product(name: \"Stowage\", package: \"\(Self.cloneName)\"), "
                + ".product(name: \"StowageTesting\", package: \"\(Self.cloneName)\")], path: \"Blocks/\(block.name)\"),\n"
        }
        text += "]\n"
        try write(text, to: package + "/Package.swift")
        for block in programs {
            let isQuickStart = block.line == quickStart.line && block.document == quickStart.document
            try write(source(block), to: package + (isQuickStart ? "/Sources/QuickStart/main.swift" : "/Blocks/\(block.name)/main.swift"))
        }
        for block in tests {
            try write(source(block), to: package + "/Blocks/\(block.name)/\(block.name).swift")
        }
        // The same versions of Stowage's dependencies as this package's.
        try FileManager.default.copyItem(atPath: SnippetTests.packageRoot.appending(path: "Package.resolved").path(percentEncoded: false),
                                         toPath: package + "/Package.resolved")

        // SwiftPM in a HOME of the test's own (its caches and settings go there): it fetches the
        // dependencies from their URLs (or where git's system configuration maps them), as a
        // newcomer's first build does.
        let swiftEnvironment = try toolEnvironment(home: folder.path + "/swift-home")
        let build = try runProcess(swift, ["build", "--package-path", package, "--build-tests", "-Xswiftc", "-warnings-as-errors"],
                                   environment: swiftEnvironment, within: .seconds(3_600))
        guard build.status == 0 else {
            Issue.record("the scratch package of the documents' blocks does not build:\n\((build.output + build.error).suffix(12_000))")
            return
        }
        let bin = try runProcess(swift, ["build", "--package-path", package, "--show-bin-path"], environment: swiftEnvironment).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var ran = 0
        var skipped: [String] = []
        for block in programs {
            let place = "\(block.document):\(block.line)"
            if block.needsVolume, let volumeRefusal {
                skipped.append(place)
                print("SKIPPED running \(place) (built): \(volumeRefusal)")
                continue
            }
            if block.makesRoom, let roomsRefused {
                skipped.append(place)
                print("SKIPPED running \(place) (built): \(roomsRefused)")
                continue
            }
            let target = block.line == quickStart.line && block.document == quickStart.document ? "QuickStart" : block.name
            let home = folder.path + "/homes/" + target
            for sub in ["home", "tmp"] {
                try FileManager.default.createDirectory(atPath: home + "/" + sub, withIntermediateDirectories: true)
            }
            let environment = ["HOME": home + "/home", "TMPDIR": home + "/tmp",
                               "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
            let run = try runProcess(URL(filePath: bin + "/" + target), [], environment: environment,
                                     directory: URL(filePath: home + "/home"), within: .seconds(120))
            #expect(run.status == 0 && run.signal == nil,
                    "\(place) (\(target)) exited \(run.status), signal \(run.signal.map(String.init) ?? "none"):\n\(run.output)\(run.error)")
            print("\(place) (\(target)) printed:\n\(run.output)")
            let lines = run.output.split(separator: "\n").map(String.init)
            for comment in block.printComments where Self.outputsNotCompared["\(block.document): \(comment)"] == nil {
                let expected = Block.printed(by: comment)
                #expect(expected.isEmpty || lines.contains { $0.hasPrefix(expected) },
                        "\(place): a comment says `\(expected)` is printed; the block printed:\n\(run.output)")
            }
            ran += 1
        }
        if !tests.isEmpty {
            let test = try runProcess(swift, ["test", "--package-path", package, "--skip-build"],
                                      environment: swiftEnvironment.merging(["TMPDIR": folder.path + "/homes"]) { $1 },
                                      within: .seconds(600))
            #expect(test.status == 0, "the documents' test blocks fail:\n\((test.output + test.error).suffix(4_000))")
        }
        print("pasted snippets: \(programs.count) programs (the quick start included) and \(tests.count) test blocks of "
              + "\(try Self.checkedDocuments().count) documents built; \(ran) programs ran, \(skipped.count) built but not run "
              + "(\(skipped)); \(Self.notBuilt.count) listed as not built")
        withExtendedLifetime(volume) {}
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
