import Foundation
import Testing
@testable import Stowage

/// Keeps the README's Errors example compiled and true: the code between the markers below must
/// equal the README's snippet, and what it prints must be what the README's comments say.
@Suite("README: Errors")
struct ReadmeErrorsTests {
    @Test("the Errors example compiles, prints what its comments say, and is the one in the README")
    func example() throws {
        let folder = TestFolder("readme-errors")
        let printed = Self.runExample(store: folder.store())
        #expect(printed.count == 4)
        #expect(printed.first == "save 'Documents/../escape' failed: '..' is not allowed in a path")
        #expect(printed.dropFirst().first == "Stowage 3")
        #expect(printed.dropFirst(2).first == "'..' is not allowed in a path.")
        #expect(printed.last?.hasPrefix(#"Give a path relative to the location, such as "Folder/file.json": "#) == true)

        let readme = try String(contentsOf: ReadmeTests.packageRoot.appending(path: "README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "\n## Errors\n").dropFirst().first)
        let snippet = try #require(section.components(separatedBy: "```swift\n").dropFirst().first?
            .components(separatedBy: "```").first)
        let source = try String(contentsOf: URL(filePath: #filePath), encoding: .utf8)
        let example = try #require(source.components(separatedBy: "// README errors example start\n").last?
            .components(separatedBy: "        // README errors example end").first)
        let dedented = example.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("        ") ? String($0.dropFirst(8)) : String($0) }.joined(separator: "\n")
        #expect(dedented.trimmingCharacters(in: .whitespacesAndNewlines) == snippet.trimmingCharacters(in: .whitespacesAndNewlines))
        // Every printed line is the README's comment on its print, up to the comment's "...".
        let comments = snippet.split(separator: "\n").filter { $0.contains("print(") }
            .map { $0.components(separatedBy: "// ").last ?? "" }
        for (line, comment) in zip(printed, comments) {
            let expected = comment.hasSuffix("...") ? String(comment.dropLast(3)) : comment
            #expect(line.hasPrefix(expected), "printed \(line), the README says \(comment)")
        }
    }

    static func runExample(store: Store) -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // README errors example start
        do {
            try store.save(Data("x".utf8), to: "../escape", in: .documents)
        } catch StowageError.notFound {
            // nothing to do
        } catch {
            let error = error as NSError  // `catch let error as NSError` matches on Apple platforms only
            print(error.localizedDescription)  // save 'Documents/../escape' failed: '..' is not allowed in a path
            print(error.domain, error.code)  // Stowage 3
            print(error.localizedFailureReason ?? "")  // '..' is not allowed in a path.
            print(error.localizedRecoverySuggestion ?? "")  // Give a path relative to the location, such as "Folder/file.json": ...
        }
        // README errors example end
        return printed
    }
}
