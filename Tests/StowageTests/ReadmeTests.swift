import Foundation
import Testing
@testable import Stowage

/// Keeps the README's library example compiled and working: the code between the markers below
/// must equal the README's first Swift snippet, and it runs here against this test's own folders.
@Suite("README")
struct ReadmeTests {
    @Test("the README's library example compiles, runs, and is the one printed in the README")
    func example() throws {
        let folder = TestFolder("readme")
        let inbox = try Self.runExample(environment: folder.xdgEnvironment)
        #expect(inbox.map(\.id) == [1, 2])
        #expect(try folder.read("data/com.example.Chat/documents/Inbox/messages.json").contains("there"))
        #expect(!folder.exists("cache/com.example.Chat/thumbs"))

        let readme = try String(contentsOf: Self.packageRoot.appending(path: "README.md"), encoding: .utf8)
        let source = try String(contentsOf: URL(filePath: #filePath), encoding: .utf8)
        let snippet = try #require(readme.components(separatedBy: "```swift\n").dropFirst().first?
            .components(separatedBy: "```").first)
        let example = try #require(source.components(separatedBy: "// README example start\n").last?
            .components(separatedBy: "        // README example end").first)
        let dedented = example.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("        ") ? String($0.dropFirst(8)) : String($0) }.joined(separator: "\n")
        let body = snippet.components(separatedBy: "\n\n").dropFirst(2).joined(separator: "\n\n")
        #expect(dedented.trimmingCharacters(in: .whitespacesAndNewlines)
            == body.replacingOccurrences(of: "try .default(appIdentifier: \"com.example.Chat\")",
                                         with: "try .default(appIdentifier: \"com.example.Chat\", environment: environment)")
                .trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static var packageRoot: URL {
        URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static func runExample(environment: [String: String]) throws -> [Message] {
        // README example start
        let store = Store(container: try .default(appIdentifier: "com.example.Chat", environment: environment))
        try store.save([Message(id: 1, text: "hi")], to: "Inbox/messages.json", in: .documents)
        try store.append(Message(id: 2, text: "there"), to: "Inbox/messages.json", in: .documents)
        let inbox = try store.retrieve([Message].self, from: "Inbox/messages.json", in: .documents)
        try store.save(Data("thumbnail".utf8), to: "thumbs/1.png", in: .caches)
        try store.clear(.caches)
        // README example end
        return inbox
    }
}
