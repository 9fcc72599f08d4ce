import Foundation
import Testing
@testable import Stowage

/// The snippets of "The store" (UsingTheStore.md), each run against a container in the test's own folder.
@Suite("Snippets: Store")
struct UsingTheStoreSnippets {
    struct Message: Codable, Equatable {
        var id: Int
        var text: String
    }

    static func values(container: Container) throws -> (theme: String, fontSize: Int) {
        // snippet UsingTheStore/values
        struct Settings: Codable {
            var theme = "dark"
            var fontSize = 14
        }

        let store = Store(container: container)
        try store.save(Settings(), to: "settings.json", in: .applicationSupport)
        let settings = try store.retrieve(Settings.self, from: "settings.json", in: .applicationSupport)
        // end snippet
        return (settings.theme, settings.fontSize)
    }

    static func data(store: Store, thumbnail: Data, pages: [Data]) throws -> (Data, [Data]) {
        // snippet UsingTheStore/data
        try store.save(thumbnail, to: "thumbs/42.png", in: .caches)                      // Data: its bytes
        let bytes = try store.retrieve(Data.self, from: "thumbs/42.png", in: .caches)
        try store.saveFolder(pages, to: "Scans/receipt", in: .documents, fileExtension: "png")  // 0.png, 1.png, ...
        let scans = try store.retrieveFolder(from: "Scans/receipt", in: .documents)
        // end snippet
        return (bytes, scans)
    }

    static func formats(container: Container) -> (Store, Store) {
        // snippet UsingTheStore/formats
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let dated = Store(container: container, format: .json(encoder: encoder, decoder: decoder))
        let plists = Store(container: container, format: .propertyList())
        // end snippet
        return (dated, plists)
    }

    static func append(store: Store, photo: Data) throws {
        // snippet UsingTheStore/append
        try store.append(Message(id: 1, text: "hi"), to: "Inbox/messages.json", in: .documents)   // [1]
        try store.append([Message(id: 2, text: "a"), Message(id: 3, text: "b")],
                         to: "Inbox/messages.json", in: .documents)                                // [1, 2, 3]
        try store.append([[1, 2]], to: "matrix.json", in: .documents)     // one row: [[1, 2]]
        try store.appendToFolder(photo, to: "Album", in: .documents, fileExtension: "jpg")   // Album/0.jpg
        // end snippet
    }

    /// Returns when the refusal was caught by the snippet's `catch`; another error is thrown.
    static func appendRefused(store: Store) throws {
        // snippet UsingTheStore/append-refused
        do {
            try store.append("not a message", to: "Inbox/messages.json", in: .documents)
        } catch StowageError.decodingFailed {
            // refused: the first element is not a String, and the file is as it was
        }
        // end snippet
    }

    static func items(store: Store) throws -> URL {
        // snippet UsingTheStore/items
        if try store.exists("Inbox/messages.json", in: .documents) {
            try store.rename("Inbox", to: "Archive/2026", in: .documents)
        }
        try store.move("download.zip", from: .temporary, to: .documents)   // never replaces
        let url = try store.url(for: "Archive/2026/messages.json", in: .documents)
        try store.remove("Archive", from: .documents)
        // end snippet
        return url
    }

    static func materialize(store: Store, seed: URL) throws -> URL {
        // snippet UsingTheStore/materialize
        let database = try store.materialize(seed, to: "seed.sqlite", in: .applicationSupport)
        // end snippet
        return database
    }

    static func clear(store: Store) throws -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet UsingTheStore/clear
        let preview = try store.clear(.caches, dryRun: true)
        print(preview.removed.count, ByteCount(preview.freedAllocatedBytes).formatted())
        try store.clear(.caches)
        // end snippet
        return printed
    }

    static func options(store: Store, token: String, feed: [String], pages: [Data]) throws {
        // snippet UsingTheStore/options
        try store.save(token, to: "session.json", in: .applicationSupport,
                       options: WriteOptions(protection: .complete))
        try store.save(feed, to: "feed.json", in: .caches, options: .durable)   // synced, though in Caches
        try store.saveFolder(pages, to: "Scans/receipt", in: .documents, options: .replacingExistingFolder)
        // end snippet
    }

    static func backup(store: Store) throws -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet UsingTheStore/backup
        try store.mark("Downloads", in: .documents, .excludedFromBackup)   // re-downloadable: keep it out of backups
        print(try store.markers(of: "Downloads", in: .documents).contains(.excludedFromBackup))   // true
        // end snippet
        return printed
    }

    @Test("values, data and folders of data are saved and read back as the article shows")
    func valuesAndData() throws {
        let folder = TestFolder("snippet-store")
        let settings = try Self.values(container: folder.container())
        #expect(settings == ("dark", 14))
        let store = folder.store()
        let (bytes, scans) = try Self.data(store: store, thumbnail: Data([1, 2, 3]), pages: [Data("a".utf8), Data("b".utf8)])
        #expect(bytes == Data([1, 2, 3]))
        #expect(scans == [Data("a".utf8), Data("b".utf8)])
        #expect(folder.exists("container/Documents/Scans/receipt/1.png"))

        let (dated, plists) = Self.formats(container: folder.container())
        try dated.save(["when": Date(timeIntervalSince1970: 0)], to: "dated.json", in: .documents)
        #expect(try folder.read("container/Documents/dated.json").contains("1970-01-01T00:00:00Z"))
        #expect(plists.format is PropertyListFormat)
    }

    @Test("appends add elements, a wrapped row, a numbered file; a value of another type is refused")
    func appends() throws {
        let folder = TestFolder("snippet-append")
        let store = folder.store()
        try Self.append(store: store, photo: Data([0xFF, 0xD8]))
        #expect(try store.retrieve([Message].self, from: "Inbox/messages.json", in: .documents).map(\.id) == [1, 2, 3])
        #expect(try store.retrieve([[Int]].self, from: "matrix.json", in: .documents) == [[1, 2]])
        #expect(folder.exists("container/Documents/Album/0.jpg"))
        let before = try folder.read("container/Documents/Inbox/messages.json")
        try Self.appendRefused(store: store)
        #expect(try folder.read("container/Documents/Inbox/messages.json") == before)
    }

    @Test("files are renamed, moved, located and removed; a resource is materialized; a location is cleared")
    func itemsAndClear() throws {
        let folder = TestFolder("snippet-items")
        let store = folder.store()
        try store.save([Message(id: 1, text: "hi")], to: "Inbox/messages.json", in: .documents)
        try store.save(Data("zip".utf8), to: "download.zip", in: .temporary)
        let url = try Self.items(store: store)
        #expect(url.path(percentEncoded: false).hasSuffix("/Documents/Archive/2026/messages.json"))
        #expect(!folder.exists("container/Documents/Archive"))
        #expect(try store.retrieve(Data.self, from: "download.zip", in: .documents) == Data("zip".utf8))

        try folder.write("seed", to: "seed.sqlite")
        let database = try Self.materialize(store: store, seed: folder.file("seed.sqlite"))
        #expect(try Data(contentsOf: database) == Data("seed".utf8))

        try store.save(Data(count: 5000), to: "a", in: .caches)
        try store.save(Data(count: 5000), to: "b/c", in: .caches)
        let printed = try Self.clear(store: store)
        #expect(printed.count == 1 && printed[0].hasPrefix("2 "), "\(printed)")
        #expect(try !store.exists("a", in: .caches))
    }

    @Test("write options and backup exclusion work as shown")
    func optionsAndBackup() throws {
        let folder = TestFolder("snippet-options")
        let store = folder.store()
        try store.saveFolder([Data("old".utf8)], to: "Scans/receipt", in: .documents)
        try Self.options(store: store, token: "secret", feed: ["a"], pages: [Data("new".utf8)])
        #expect(folder.permissions("container/Library/Application Support/session.json") == 0o600)
        #expect(try store.retrieveFolder(from: "Scans/receipt", in: .documents) == [Data("new".utf8)])
        try store.save(Data(), to: "Downloads/a.bin", in: .documents)
        #expect(try Self.backup(store: store) == ["true"])
    }
}
