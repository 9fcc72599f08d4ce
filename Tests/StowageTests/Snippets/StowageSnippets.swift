import Foundation
import Testing
@testable import Stowage

/// The snippet of the landing page (Stowage.md), run in the default container of the test's
/// own folder.
@Suite("Snippets: landing page")
struct StowageSnippets {
    static func overview() throws -> [String] {
        // snippet Stowage/overview
        struct Message: Codable {
            var text: String
        }

        let store = Store(container: try .default(appIdentifier: "com.example.Chat"))
        try store.append(Message(text: "hi"), to: "Inbox/messages.json", in: .documents)
        let inbox = try store.retrieve([Message].self, from: "Inbox/messages.json", in: .documents)
        // end snippet
        return inbox.map(\.text)
    }

    @Test("the landing page's example appends and reads back, in the test's own folders")
    func overview() throws {
        let folder = TestFolder("snippet-landing")
        #expect(try SnippetSandbox.run(in: folder) { try Self.overview() } == ["hi"])
        #expect(folder.exists("data/com.example.Chat/documents/Inbox/messages.json"))
    }
}
