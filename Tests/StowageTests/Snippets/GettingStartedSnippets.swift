import Foundation
import Testing
@testable import Stowage

/// The snippets of "Getting started" (GettingStarted.md), run against the test's own folders.
@Suite("Snippets: Getting started")
struct GettingStartedSnippets {
    struct Settings: Codable, Equatable {
        var theme = "dark"
    }

    struct LogEntry: Codable, Equatable {
        var message: String
    }

    struct Feed: Codable {
        var items: [String]
    }

    static func defaultContainer() throws -> Container {
        // snippet GettingStarted/default
        let container = try Container.default(appIdentifier: "com.example.MyApp")
        // end snippet
        return container
    }

    static func saveAndRetrieve(container: Container, settings: Settings, imageData: Data, pages: [Data]) throws -> Settings {
        // snippet GettingStarted/save
        let store = Store(container: container)
        try store.save(settings, to: "settings.json", in: .applicationSupport)
        let loaded = try store.retrieve(Settings.self, from: "settings.json", in: .applicationSupport)

        try store.save(imageData, to: "thumbnails/42.png", in: .caches)
        try store.saveFolder(pages, to: "Scans/receipt", in: .documents, fileExtension: "png")  // 0.png, 1.png, ...
        // end snippet
        return loaded
    }

    static func exists(store: Store, showDraftBadge: () -> Void) throws {
        // snippet GettingStarted/exists
        if try !store.exists("settings.json", in: .applicationSupport) {   // "no", not "could not tell"
            try store.save(Settings(), to: "settings.json", in: .applicationSupport)
        }
        if (try? store.exists("Inbox/draft.json", in: .documents)) == true { showDraftBadge() }  // a hint is enough
        // end snippet
    }

    static func append(store: Store) throws {
        // snippet GettingStarted/append
        try store.append(LogEntry(message: "started"), to: "log.json", in: .applicationSupport)
        // end snippet
    }

    static func appendMore(store: Store, newEntries: [LogEntry], photoData: Data) throws {
        // snippet GettingStarted/append-more
        try store.append(newEntries, to: "log.json", in: .applicationSupport)    // [LogEntry]: each one
        try store.appendToFolder(photoData, to: "Album", in: .documents, fileExtension: "png")  // Album/3.png
        // end snippet
    }

    static func errors(store: Store, show: (Feed) -> Void) -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet GettingStarted/errors
        do {
            let feed = try store.retrieve(Feed.self, from: "feed.json", in: .caches)
            show(feed)
        } catch StowageError.notFound {
            // nothing cached yet
        } catch {
            print(error)  // retrieve 'Caches/feed.json' failed: the content could not be decoded: ...
        }
        // end snippet
        return printed
    }

    @Test("the default container of the article is the XDG one, in the test's own folder")
    func defaultContainer() throws {
        let folder = TestFolder("snippet-start")
        let container = try SnippetSandbox.run(in: folder) { try Self.defaultContainer() }
        #expect(try container.url(for: .documents).path(percentEncoded: false)
                == folder.path + "/data/com.example.MyApp/documents/")
    }

    @Test("save, retrieve, exists, contains and append do what the article says")
    func storeCalls() throws {
        let folder = TestFolder("snippet-start-store")
        let store = folder.store()
        let loaded = try Self.saveAndRetrieve(container: store.container, settings: Settings(theme: "light"),
                                              imageData: Data([1]), pages: [Data([2]), Data([3])])
        #expect(loaded == Settings(theme: "light"))
        #expect(folder.exists("container/Documents/Scans/receipt/1.png"))

        var badges = 0
        try store.save(Data("{}".utf8), to: "Inbox/draft.json", in: .documents)
        try Self.exists(store: store) { badges += 1 }
        #expect(badges == 1)
        #expect(try store.retrieve(Settings.self, from: "settings.json", in: .applicationSupport) == Settings(theme: "light"))

        try Self.append(store: store)
        for number in 0..<3 { try store.appendToFolder(Data([UInt8(number)]), to: "Album", in: .documents, fileExtension: "png") }
        try Self.appendMore(store: store, newEntries: [LogEntry(message: "a"), LogEntry(message: "b")], photoData: Data([9]))
        #expect(try store.retrieve([LogEntry].self, from: "log.json", in: .applicationSupport).map(\.message) == ["started", "a", "b"])
        #expect(try store.retrieve(Data.self, from: "Album/3.png", in: .documents) == Data([9]))
    }

    @Test("a missing feed is caught as notFound; a corrupt one prints the sentence the comment shows")
    func errors() throws {
        let folder = TestFolder("snippet-start-errors")
        let store = folder.store()
        var shown = 0
        #expect(Self.errors(store: store) { _ in shown += 1 }.isEmpty)
        try store.save(Data("[1".utf8), to: "feed.json", in: .caches)
        let printed = Self.errors(store: store) { _ in shown += 1 }
        let comment = try #require(SnippetTests.printComments(ofRegion: "GettingStarted/errors").first)
        #expect(printed.count == 1 && printed[0].hasPrefix(String(comment.dropLast(3))), "\(printed)")
        try store.save(Feed(items: ["a"]), to: "feed.json", in: .caches)
        #expect(Self.errors(store: store) { _ in shown += 1 }.isEmpty)
        #expect(shown == 1)
    }
}
