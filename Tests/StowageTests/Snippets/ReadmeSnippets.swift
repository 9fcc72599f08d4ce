import Foundation
import Testing
@testable import Stowage

/// The README's Swift snippets, run against the test's own folders where that is safe.
@Suite("Snippets: README")
struct ReadmeSnippets {
    static func program() throws -> [String] {
        // snippet README/program
        struct Message: Codable, Equatable {
            var id: Int
            var text: String
        }

        let store = Store(container: try .default(appIdentifier: "com.example.Chat"))
        try store.save([Message(id: 1, text: "hi")], to: "Inbox/messages.json", in: .documents)
        try store.append(Message(id: 2, text: "there"), to: "Inbox/messages.json", in: .documents)
        let inbox = try store.retrieve([Message].self, from: "Inbox/messages.json", in: .documents)
        try store.save(Data("thumbnail".utf8), to: "thumbs/1.png", in: .caches)
        try store.clear(.caches)
        // end snippet
        return inbox.map(\.text)
    }

    /// Compiled, not run: `install` simulates figures for the whole process, which would reach
    /// the tests running beside this one. `CapacitySnippets` runs the task-local form.
    static func simulated(store: Store, video: Data) throws {
        // snippet README/simulated
        try SimulatedCapacity.withFigures(available: 50_000_000) {      // this task and its children
            try store.save(video, to: "v.mov", in: .documents,
                           options: WriteOptions(spaceRequirement: .opportunistic))  // throws noSpace
        }
        let installation = SimulatedCapacity.install(available: 200_000_000)  // the whole process
        installation.remove()
        // end snippet
    }

    @MainActor
    static func overview() async throws -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet README/overview
        let storage = StorageOverview(container: try .default(appIdentifier: "com.example.App"))
        try await storage.refresh()
        print("Cache:", storage.formattedSize(of: .caches))   // Cache: 123 MB
        try await storage.clear(.caches)
        // end snippet
        return printed
    }

    static func cache(pngData: Data, url: URL, meta: [String: String], id: Int) async throws -> Data? {
        // snippet README/cache
        let thumbnails = try DiskCache(name: "thumbnails",      // Caches of this app's default container
                                       limits: DiskCache.Limits(maximumAllocatedSize: 50_000_000))
        try await thumbnails.set(pngData, for: url.absoluteString)
        let cached = try await thumbnails.data(for: url.absoluteString)       // nil on a miss
        try await thumbnails.set(meta, for: "meta:\(id)", expiresAfter: 86_400) // Codable, expiring
        try await thumbnails.removeAll()                                      // "Clear cache"
        // end snippet
        return cached
    }

    /// Compiled, not run: it would start `./myapp`.
    static func room() throws -> RoomReport {
        // snippet README/room
        let plan = RoomPlan(available: .bytes(5_000_000), over: [URL(filePath: "/home/me/.cache/myapp")],
                            drop: RoomPlan.Drop(to: .bytes(0), after: .seconds(2)))
        let process = try RoomProcess.start(plan, command: ["./myapp", "--download"])
        print(process.room.availableBytes)  // 5001216, measured inside before the command started
        let report = try process.wait()     // report.ending: .exited(1); report.drop: when and how far
        // end snippet
        return report
    }

    @Test("the library example saves, appends, reads back and clears, in the test's own folders")
    func program() throws {
        let folder = TestFolder("snippet-readme")
        let inbox = try SnippetSandbox.run(in: folder) { try Self.program() }
        #expect(inbox == ["hi", "there"])
        #expect(try folder.read("data/com.example.Chat/documents/Inbox/messages.json").contains("there"))
        #expect(!folder.exists("cache/com.example.Chat/thumbs"))
    }

    @Test("the settings-screen example measures and clears the caches of the default container")
    @MainActor
    func overview() async throws {
        let folder = TestFolder("snippet-overview")
        let store = Store(container: try .default(appIdentifier: "com.example.App", environment: folder.xdgEnvironment))
        try store.save(Data(count: 123_000), to: "big", in: .caches)
        let printed = try await SnippetSandbox.run(in: folder) { try await Self.overview() }
        #expect(printed.count == 1 && printed[0].hasPrefix("Cache: 1"), "\(printed)")
        #expect(try !store.exists("big", in: .caches))
    }

    @Test("the cache example sets, reads and clears a cache in the default container's caches")
    func cache() async throws {
        let folder = TestFolder("snippet-readme-cache")
        let cached = try await SnippetSandbox.run(in: folder) {
            try await Self.cache(pngData: Data([1, 2, 3]), url: URL(string: "https://example.com/a.png")!,
                                 meta: ["width": "3"], id: 7)
        }
        #expect(cached == Data([1, 2, 3]))
        #expect(folder.exists("cache/\(Container.currentAppIdentifier)/thumbnails"))
    }
}
