import Foundation
import Testing
import StowageTestSupport
@testable import Stowage

/// The entry files on disk agree with what `cache`'s index says: the totals, and the entries of
/// each fan-out folder when the index knows them.
func expectIndexAgrees(_ cache: DiskCache, _ folder: URL, _ label: String,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
    let disk = try CacheFolder.entries(in: folder)
    #expect(cache.count == disk.files, "\(label): the index counts \(cache.count) entries, the folder holds \(disk.files)",
            sourceLocation: sourceLocation)
    #expect(cache.allocatedBytes == disk.allocatedBytes,
            "\(label): the index counts \(cache.allocatedBytes) bytes, the folder holds \(disk.allocatedBytes)",
            sourceLocation: sourceLocation)
    if let counts = cache.index.fanOutCounts {
        let onDisk = try fanOutCounts(in: folder)
        let differing = (0..<256).filter { counts[$0] != onDisk[$0, default: 0] }
            .map { "\(String($0, radix: 16)): \(counts[$0]) counted, \(onDisk[$0, default: 0]) there" }
        #expect(differing.isEmpty, "\(label): the index's fan-out counts differ from the folders': \(differing)",
                sourceLocation: sourceLocation)
    }
}

/// The entry files (regular files, not Stowage's own) in each fan-out folder of the cache folder
/// `folder`, by the folder's number.
func fanOutCounts(in folder: URL) throws -> [Int: Int] {
    var counts: [Int: Int] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.fileSystemPath) {
        guard name.utf8.count == 2, let number = Int(name, radix: 16), name == name.lowercased() else { continue }
        let path = folder.appending(path: name).fileSystemPath
        guard (try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeDirectory else { continue }
        for entry in try FileManager.default.contentsOfDirectory(atPath: path) where !entry.hasPrefix(RelativePath.reservedPrefix) {
            var status = stat()
            if lstat(path + "/" + entry, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG { counts[number, default: 0] += 1 }
        }
    }
    return counts
}
