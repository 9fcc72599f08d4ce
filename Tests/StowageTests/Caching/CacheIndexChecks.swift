import Foundation
import Testing
import StowageTestSupport
@testable import Stowage

/// The entry files on disk agree with what `cache`'s index says.
func expectIndexAgrees(_ cache: DiskCache, _ folder: URL, _ label: String,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
    let disk = try CacheFolder.entries(in: folder)
    #expect(cache.count == disk.files, "\(label): the index counts \(cache.count) entries, the folder holds \(disk.files)",
            sourceLocation: sourceLocation)
    #expect(cache.allocatedBytes == disk.allocatedBytes,
            "\(label): the index counts \(cache.allocatedBytes) bytes, the folder holds \(disk.allocatedBytes)",
            sourceLocation: sourceLocation)
}

