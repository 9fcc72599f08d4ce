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

    static func spaceCheck(store: Store) throws -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet README/space-check
        let space = try store.container.availableSpace(of: .documents)   // one statvfs
        print(ByteCount(space.availableBytes).formatted())               // 83.5 GB
        try SimulatedCapacity.withFigures(available: 20_000_000, total: 100_000_000) {  // this task only
            do {
                try store.save(Data(count: 6_000_000), to: "prefetch.bin", in: .caches,
                               options: WriteOptions(spaceRequirement: .opportunistic))
            } catch StowageError.noSpace {
                // optional data keeps 15% of the volume free: 5 MB left for it, so skip the prefetch
            }
        }
        // end snippet
        return printed
    }

    static func usage(store: Store, downloads: URL) async throws -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet README/usage
        for usage in try store.container.usage() {
            print(usage.location, ByteCount(usage.totals.allocatedBytes).formatted())   // Caches 12.3 MB
        }
        let report = try await UsageScanner().scan([downloads]) { _ in }   // any tree, off the caller's actor
        print(report.largestFiles.first?.path ?? "-")
        // end snippet
        return printed
    }

    static func sweep(store: Store, thumbnailsFolder: URL) throws -> (SweepReport, ReliefReport) {
        // snippet README/sweep
        let sweeper = Sweeper(policy: SweepPolicy(maximumAllocatedBytes: 200_000_000, maximumFileAge: .seconds(30 * 24 * 3600)))
        let swept = try sweeper.sweep(thumbnailsFolder)          // dryRun: true to preview
        try store.mark("avatar.png", in: .caches, .pinned)       // never swept, never cleared
        let relief = try store.container.relieve(toAvailableBytes: 2_000_000_000)   // tmp, then Caches, ...
        print(swept.removed.count, relief.isSatisfied)
        // end snippet
        return (swept, relief)
    }

    static func fill(scratchVolume: URL) throws -> FillReport {
        // snippet README/fill
        let report = try Filler(plan: FillPlan(volume: scratchVolume, goal: .leaving(100_000_000))).fill()
        print(report.ending, report.availableBytesAfter)   // goalReached 100003840: whole blocks
        try FillFolder(in: scratchVolume).release()        // also after the filling process was killed
        // end snippet
        return report
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
                                       limits: DiskCache.Limits(maximumAllocatedBytes: 50_000_000))
        try await thumbnails.set(pngData, for: url.absoluteString)
        let cached = try await thumbnails.data(for: url.absoluteString)       // nil on a miss
        try await thumbnails.set(meta, for: "meta:\(id)", expiresAfter: .seconds(86_400)) // Codable, expiring
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

    @Test("the space-check example reads the volume's figures and skips the optional write that does not fit")
    func spaceCheck() throws {
        let folder = TestFolder("snippet-space")
        let store = folder.store()
        let printed = try Self.spaceCheck(store: store)
        #expect(printed.count == 1)
        #expect(try !store.exists("prefetch.bin", in: .caches), "6 MB of optional data is refused with 5 MB of room for it")
    }

    @Test("the usage example lists the locations' sizes and a tree's largest file")
    func usage() async throws {
        let folder = TestFolder("snippet-usage")
        let store = folder.store()
        try store.save(Data(count: 50_000), to: "feed", in: .caches)
        try folder.write(String(repeating: "x", count: 9000), to: "downloads/big.bin")
        try folder.write("x", to: "downloads/small.bin")
        let printed = try await Self.usage(store: store, downloads: folder.file("downloads"))
        #expect(printed.contains { $0.hasPrefix("Caches ") && $0.hasSuffix("kB") }, "\(printed)")
        #expect(printed.last?.hasSuffix("downloads/big.bin") == true, "\(printed)")
    }

    @Test("the sweeping example keeps a folder within its limits, pins a file and relieves the container")
    func sweep() throws {
        let folder = TestFolder("snippet-sweep")
        let store = folder.store()
        try store.save(Data(count: 100), to: "avatar.png", in: .caches)
        try store.save(Data(count: 100), to: "scratch", in: .temporary)
        try folder.write("x", to: "thumbnails/a.png")
        let (swept, relief) = try SimulatedCapacity.withFigures(available: 1_999_000_000, total: 10_000_000_000) {
            try Self.sweep(store: store, thumbnailsFolder: folder.file("thumbnails"))
        }
        #expect(swept.removed.isEmpty, "one small, fresh file is within both limits")
        #expect(relief.steps.first?.location == .temporary)
        #expect(try !store.exists("scratch", in: .temporary) && store.exists("avatar.png", in: .caches))
    }

    @Test("the fill example leaves exactly 100 MB on a scratch volume, in whole blocks, and releases it")
    func fill() throws {
        let folder = TestFolder("snippet-readme-fill")
        let volume = try ScratchVolume.mount(size: "111m", in: folder.url)
        let report = try Self.fill(scratchVolume: volume.url)
        #expect(report.ending == .goalReached)
        #expect(report.availableBytesAfter >= 100_000_000 && report.availableBytesAfter < 100_000_000 + 4096)
        #expect(try FillFolder(in: volume.url).status() == nil)
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
