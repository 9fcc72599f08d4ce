import Foundation
import Testing
@testable import Stowage

/// The snippets of "A cache on disk" (CacheOnDisk.md), run in the test's own folders.
@Suite("Snippets: A cache on disk")
struct CacheOnDiskSnippets {
    struct Metadata: Codable, Equatable {
        var width: Int
    }

    static func overview(pngData: Data, url: URL, metadata: Metadata, id: Int,
                         show: (Data) -> Void) async throws -> Metadata? {
        // snippet CacheOnDisk/overview
        let thumbnails = try DiskCache(name: "thumbnails",
                                       limits: DiskCache.Limits(maximumAllocatedBytes: 50_000_000))

        try await thumbnails.set(pngData, for: url.absoluteString)
        if let cached = try await thumbnails.data(for: url.absoluteString) {
            show(cached)
        }

        // Codable values, with an expiry
        try await thumbnails.set(metadata, for: "meta:\(id)", expiresAfter: .seconds(24 * 3600))
        let meta = try await thumbnails.value(Metadata.self, for: "meta:\(id)")

        try await thumbnails.remove(url.absoluteString)
        try await thumbnails.removeAll()          // the "Clear cache" button
        // end snippet
        return meta
    }

    static func synchronous(testFolder: URL) throws -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet CacheOnDisk/synchronous
        let cache = try DiskCache(name: "thumbnails", in: Container(root: testFolder),
                                  limits: DiskCache.Limits(maximumCount: 100, memoryCapacityBytes: 0))
        try cache.set(Data(count: 4096), for: "a")   // the synchronous form
        print(cache.count, cache.allocatedBytes > 0)   // 1 true
        let report = try cache.removeAll()           // what it removed, as a SweepReport
        print(report.removed.count, cache.count)     // 1 0
        // end snippet
        return printed
    }

    @Test("the overview sets, reads, reads a Codable value and clears, in the default container of the test's folder")
    func overview() async throws {
        let folder = TestFolder("snippet-cache")
        var shown: [Data] = []
        let meta = try await SnippetSandbox.run(in: folder) {
            try await Self.overview(pngData: Data([7, 7]), url: URL(string: "https://example.com/a.png")!,
                                    metadata: Metadata(width: 3), id: 1) { shown.append($0) }
        }
        #expect(shown == [Data([7, 7])])
        #expect(meta == Metadata(width: 3))
    }

    @Test("the synchronous forms and the sizes print what the comments say")
    func synchronous() throws {
        let folder = TestFolder("snippet-cache-sync")
        #expect(try Self.synchronous(testFolder: folder.url) == ["1 true", "1 0"])
    }
}
