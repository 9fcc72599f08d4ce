import Foundation
import Testing

/// Keeps the Swift examples that ``PastedSnippetTests`` does not build (Apple-only code, listed
/// in ``PastedSnippetTests/notBuilt``) compiled in place: each such ```` ```swift ```` block of
/// the README and the DocC articles must equal, after dedenting, exactly one marked region of a
/// snippet file in this folder, and every region must be some document's block. Every other
/// block is built alone and run as pasted by ``PastedSnippetTests``.
///
/// A region is the lines between `// snippet <Document>/<name>` and `// end snippet`, where
/// `<Document>` is the base name of a document that shows it (`BackgroundCleanup`, ...). It sits
/// in a function that compiles with the test target, or at the top level of its file for a
/// block that declares types with imports of their own.
///
/// Two rules keep the blocks natural for a reader:
/// - A block may begin with `import` lines. They are not part of the comparison (an `import`
///   cannot stand inside a function); instead the file holding the twin must import each of
///   those modules itself (`import M` or `@testable import M`, at its top level or under `#if`).
/// - A block that is deliberately not Swift to compile takes another fence (`console`, `sh`,
///   `json`, or none), or is listed in ``allowed`` with the reason.
@Suite("Snippets")
struct SnippetTests {
    /// Swift blocks that are compiled nowhere, by document and first line, with the reason.
    static let allowed: [String: String] = [
        "README.md: // Package.swift: swift-tools-version 6.1 or later":
            "an excerpt of a package manifest (the arguments of `Package(...)`); PastedSnippetTests builds the quick start's whole manifest",
        "Sources/StowageTesting/StowageTesting.docc/StowageTesting.md: .testTarget(name: \"MyAppTests\", dependencies: [":
            "an excerpt of a package manifest (a test target's declaration), which SwiftPM compiles, not a test target",
    ]

    @Test("every Apple-only swift block of the README and the DocC articles equals exactly one marked region, and every region is used")
    func everyBlockHasOneTwin() throws {
        let root = Self.packageRoot
        let documents = try Self.documentPaths(in: root)
        #expect(documents.count > 5, "found only \(documents)")
        let snippetFiles = try Self.snippetFilePaths(in: root)
        var catalog = SnippetCatalog()
        for path in snippetFiles {
            catalog.addSnippetFile(path: path, text: try String(contentsOf: root.appending(path: path), encoding: .utf8))
        }
        for path in documents {
            catalog.addDocument(path: path, text: try String(contentsOf: root.appending(path: path), encoding: .utf8))
        }
        // The blocks PastedSnippetTests builds alone and runs need no twin.
        var pasted: [String: String] = [:]
        for block in catalog.blocks where PastedSnippetTests.notBuilt["\(block.document): \(block.firstLine)"] == nil {
            pasted["\(block.document): \(block.firstLine)"] = "built alone and run as pasted by PastedSnippetTests"
        }
        let problems = catalog.problems(allowed: pasted.merging(Self.allowed) { $1 })
        for problem in problems { Issue.record(Comment(rawValue: problem)) }
        print("snippets: \(catalog.blocks.count) swift blocks in \(documents.count) documents, \(PastedSnippetTests.notBuilt.count) "
              + "not built alone (Apple-only), \(catalog.regions.count) regions in \(snippetFiles.count) files, \(problems.count) problems")
    }

    @Test("blocks are read with their fence's indentation, other fences are skipped, leading imports are set aside")
    func readsBlocks() {
        let text = """
            Intro.

            ```swift
            import Stowage

            let a = 1
            ```

            - In a list:

              ```swift
                  let b = 2
              print(b)
              ```

            ```console
            $ stowage
            ```
            ```json
            {"a": 1}
            ```
            """
        var catalog = SnippetCatalog()
        catalog.addDocument(path: "Doc.md", text: text)
        #expect(catalog.blocks.map(\.code) == ["let a = 1", "    let b = 2\nprint(b)"])
        #expect(catalog.blocks.map(\.imports) == [["Stowage"], []])
        #expect(catalog.blocks.map(\.line) == [3, 11])
    }

    @Test("a block without a twin, a twin twice, an unused region and a misnamed one are each a problem naming where")
    func reportsProblems() {
        var catalog = SnippetCatalog()
        catalog.addSnippetFile(path: "S.swift", text: """
            import Foundation
            func f() {
                // snippet Doc/one
                let a = 1
                // end snippet
                // snippet Doc/one-again
                let a = 1
                // end snippet
                // snippet Other/unused
                let c = 3
                // end snippet
                // snippet Elsewhere/misnamed
                let d = 4
                // end snippet
            }
            """)
        catalog.addDocument(path: "Doc.md", text: """
            ```swift
            let a = 1
            ```
            ```swift
            import Stowage

            let b = 2
            ```
            ```swift
            let d = 4
            ```
            ```swift
            // not compiled
            ```
            """)
        let problems = catalog.problems(allowed: ["Doc.md: // not compiled": "a test of the allow-list"])
        #expect(problems.count == 4, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("Doc.md:1: ") && $0.contains("Doc/one (S.swift:3), Doc/one-again (S.swift:6)") })
        #expect(problems.contains { $0.hasPrefix("Doc.md:4: ") && $0.contains("no region equals it") && $0.contains("`let b = 2`") })
        #expect(problems.contains { $0.hasPrefix("S.swift:9: ") && $0.contains("Other/unused") && $0.contains("no document") })
        #expect(problems.contains { $0.hasPrefix("S.swift:12: ") && $0.contains("Elsewhere/misnamed") && $0.contains("Doc.md") })
    }

    @Test("an import a block shows must be the twin's file's, and markers must pair")
    func checksImportsAndMarkers() {
        var catalog = SnippetCatalog()
        catalog.addSnippetFile(path: "S.swift", text: """
            @testable import Stowage
            func f() {
                // snippet Doc/a
                let a = 1
                // end snippet
                // snippet Doc/b
                let b = 2
                // snippet Doc/c
                let c = 3
                // end snippet
            }
            // end snippet
            // snippet Doc/d
            """)
        catalog.addDocument(path: "Doc.md", text: """
            ```swift
            import Stowage
            import SwiftUI

            let a = 1
            ```
            """)
        let problems = catalog.problems(allowed: [:])
        #expect(problems.contains { $0.hasPrefix("Doc.md:1: ") && $0.contains("imports SwiftUI") && !$0.contains("Stowage") })
        #expect(problems.contains { $0.hasPrefix("S.swift:8: ") && $0.contains("inside region Doc/b") })
        #expect(problems.contains { $0.hasPrefix("S.swift:12: ") && $0.contains("no region is open") })
        #expect(problems.contains { $0.hasPrefix("S.swift:13: ") && $0.contains("never ends") })
    }

    /// The package's root folder: three folders above this file's.
    static var packageRoot: URL {
        URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    /// `README.md` and every `.md` file of the DocC catalog, relative to the package root.
    static func documentPaths(in root: URL) throws -> [String] {
        let catalogs = ["Sources/Stowage/Stowage.docc", "Sources/StowageTesting/StowageTesting.docc"]
        return ["README.md"] + (try catalogs.flatMap { try relativePaths(below: $0, in: root) }.filter { $0.hasSuffix(".md") })
    }

    /// The Swift files of this folder, relative to the package root, but for this file (whose test
    /// texts are not snippets) and PastedSnippetTests.
    static func snippetFilePaths(in root: URL) throws -> [String] {
        let this = URL(filePath: #filePath).lastPathComponent
        return try relativePaths(below: "Tests/StowageTests/Snippets", in: root)
            .filter { $0.hasSuffix(".swift") && !$0.hasSuffix("/" + this) && !$0.hasSuffix("/PastedSnippetTests.swift") }
    }

    private static func relativePaths(below folder: String, in root: URL) throws -> [String] {
        let base = root.appending(path: folder).path(percentEncoded: false)
        guard let enumerator = FileManager.default.enumerator(atPath: base) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: base])
        }
        var paths: [String] = []
        while let name = enumerator.nextObject() as? String { paths.append(folder + "/" + name) }
        return paths.sorted()
    }
}

/// The Swift blocks of some documents and the marked regions of some snippet files, and what is
/// wrong between them.
struct SnippetCatalog {
    struct Block {
        var document: String
        /// The line of the opening fence, from 1.
        var line: Int
        /// The modules of the block's leading `import` lines.
        var imports: [String]
        /// The code after those, dedented.
        var code: String
        /// The block's first line as written (its first import, if any), for the allow-list.
        var firstLine: String
    }

    struct Region {
        var name: String
        var file: String
        /// The line of the `// snippet` marker, from 1.
        var line: Int
        var code: String
    }

    private(set) var blocks: [Block] = []
    private(set) var regions: [Region] = []
    /// The modules each snippet file imports.
    private var fileImports: [String: Set<String>] = [:]
    private var markerProblems: [String] = []

    /// Reads the ```` ```swift ```` blocks of a Markdown document.
    mutating func addDocument(path: String, text: String) {
        let lines = text.components(separatedBy: "\n")
        var index = 0
        while index < lines.count {
            let line = lines[index]
            let indentation = line.prefix { $0 == " " }.count
            let fence = line.dropFirst(indentation)
            guard fence.hasPrefix("```") else { index += 1; continue }
            let info = fence.dropFirst(3).trimmingCharacters(in: .whitespaces)
            var body: [String] = []
            var end = index + 1
            while end < lines.count, lines[end].trimmingCharacters(in: .whitespaces) != "```" {
                body.append(String(lines[end].dropFirst(min(indentation, lines[end].prefix { $0 == " " }.count))))
                end += 1
            }
            if info == "swift" { blocks.append(Self.block(document: path, line: index + 1, body: body)) }
            index = end + 1
        }
    }

    /// Reads the marked regions of a Swift file, and the modules it imports.
    mutating func addSnippetFile(path: String, text: String) {
        var open: (name: String, line: Int, body: [String])?
        var imports: Set<String> = []
        for (offset, line) in text.components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let module = Self.importedModule(trimmed) { imports.insert(module) }
            if trimmed.hasPrefix("// snippet ") {
                let name = String(trimmed.dropFirst("// snippet ".count))
                if let current = open {
                    markerProblems.append("\(path):\(offset + 1): `// snippet \(name)` inside region \(current.name), "
                                          + "which begins at line \(current.line)")
                }
                open = (name, offset + 1, [])
            } else if trimmed == "// end snippet" {
                guard let current = open else {
                    markerProblems.append("\(path):\(offset + 1): `// end snippet` where no region is open")
                    continue
                }
                regions.append(Region(name: current.name, file: path, line: current.line,
                                      code: Self.dedented(current.body).joined(separator: "\n")))
                open = nil
            } else {
                open?.body.append(line)
            }
        }
        if let current = open {
            markerProblems.append("\(path):\(current.line): region \(current.name) never ends (no `// end snippet`)")
        }
        fileImports[path, default: []].formUnion(imports)
    }

    /// What is wrong: blocks without exactly one twin, missing imports, regions no document
    /// uses or named after a document that does not use them, duplicate names, unpaired markers.
    func problems(allowed: [String: String]) -> [String] {
        var problems = markerProblems
        var users: [Int: Set<String>] = [:]  // region index -> documents whose blocks it is
        for block in blocks {
            if allowed["\(block.document): \(block.firstLine)"] != nil { continue }
            let twins = regions.indices.filter { regions[$0].code == block.code }
            let start = "\(block.document):\(block.line): the swift block beginning `\(Self.firstLine(of: block.code))`"
            guard let twin = twins.first else {
                problems.append(start + ": no region equals it; put it in a snippet file between "
                                + "`// snippet \(Self.baseName(block.document))/<name>` and `// end snippet`")
                continue
            }
            for index in twins { users[index, default: []].insert(block.document) }
            guard twins.count == 1 else {
                let names = twins.map { "\(regions[$0].name) (\(regions[$0].file):\(regions[$0].line))" }
                problems.append(start + ": equals several regions: " + names.joined(separator: ", "))
                continue
            }
            let missing = block.imports.filter { !(fileImports[regions[twin].file]?.contains($0) ?? false) }
            if !missing.isEmpty {
                problems.append(start + ": imports \(missing.joined(separator: ", ")), which \(regions[twin].file) "
                                + "(its twin \(regions[twin].name)) does not")
            }
        }
        var seen: [String: Region] = [:]
        for (index, region) in regions.enumerated() {
            let place = "\(region.file):\(region.line): region \(region.name)"
            if let earlier = seen[region.name] {
                problems.append(place + ": the name is taken by the region at \(earlier.file):\(earlier.line)")
            }
            seen[region.name] = region
            guard let documents = users[index] else {
                problems.append(place + ": no document shows it; remove it, or show it in a document")
                continue
            }
            let prefix = region.name.split(separator: "/").first.map(String.init) ?? ""
            if !region.name.contains("/") || !documents.map(Self.baseName).contains(prefix) {
                problems.append(place + ": name it `<Document>/<name>` after a document that shows it: "
                                + documents.sorted().joined(separator: ", "))
            }
        }
        return problems
    }

    private static func block(document: String, line: Int, body: [String]) -> Block {
        var lines = dedented(body)
        var imports: [String] = []
        while let first = lines.first, let module = importedModule(first) {
            imports.append(module)
            lines.removeFirst()
            while lines.first?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeFirst() }
        }
        return Block(document: document, line: line, imports: imports, code: lines.joined(separator: "\n"),
                     firstLine: dedented(body).first ?? "")
    }

    /// `lines` without their common indentation and without blank lines at either end.
    static func dedented(_ lines: [String]) -> [String] {
        var lines = lines
        while lines.first?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeFirst() }
        while lines.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeLast() }
        let indentation = lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return lines.map { $0.trimmingCharacters(in: .whitespaces).isEmpty ? "" : String($0.dropFirst(indentation)) }
    }

    /// The module of an `import M` or `@testable import M` line, or `nil`.
    static func importedModule(_ line: String) -> String? {
        let words = line.split(separator: " ")
        if words.count == 2, words[0] == "import" { return String(words[1]) }
        if words.count == 3, words[0] == "@testable", words[1] == "import" { return String(words[2]) }
        return nil
    }

    static func firstLine(of code: String) -> String {
        code.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? ""
    }

    static func baseName(_ document: String) -> String {
        let name = document.split(separator: "/").last.map(String.init) ?? document
        return name.hasSuffix(".md") ? String(name.dropLast(3)) : name
    }
}
