import Foundation
import Testing
import StowageTestSupport
@testable import Stowage

/// A set on a full volume evicts the cache's own least recently used entries and tries once
/// more; failing that, `noSpace` naming the key, and never a torn entry.
@Suite("DiskCache: a full disk")
struct DiskCacheFullDiskTests {
    @Test("on a full volume a set makes room from the least recently used entries; one that cannot fit is noSpace naming its key")
    func fullVolume() throws {
        let folder = TestFolder()
        let volume = try ScratchVolume.mount(size: "8m", in: folder)
        let url = volume.url.appending(path: "cache")
        let cache = try DiskCache(folder: url, limits: DiskCache.Limits(memoryCapacity: 0))
        // Eight entries of 2 pages each, used oldest first: "e0" is the least recently used.
        for index in 0..<8 {
            try cache.set(Data(repeating: UInt8(index), count: 6000), for: "e\(index)")
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: Double(index - 100))],
                                                  ofItemAtPath: entryPath(url, "e\(index)"))
            try setAccessTime(entryPath(url, "e\(index)"), Date(timeIntervalSinceNow: Double(index - 100)))
        }
        let report = try Filler(plan: FillPlan(volume: volume.url, goal: .leaving(0))).fill()
        #expect(report.ending == .goalReached)
        #expect(try OpenFile.openFolder(atPath: volume.path, followingLinks: true).spaceFigures().available == 0)

        // 6,000 bytes of data need two pages: the least recently used entries make room.
        try cache.set(Data(repeating: 0xEE, count: 6000), for: "new")
        #expect(try cache.data(for: "new") == Data(repeating: 0xEE, count: 6000))
        #expect(try cache.data(for: "e0") == nil, "the least recently used entry made room")
        #expect(try cache.data(for: "e7") == Data(repeating: 7, count: 6000), "the most recently used stayed")
        let disk = try CacheFolder.entries(in: url)
        #expect(cache.count == disk.files && cache.allocatedBytes == disk.allocatedBytes)

        // More than all the cache holds: evicting everything is not enough.
        let error = expectStowageError(.noSpace) { try cache.set(Data(count: 1 << 20), for: "too big to fit") }
        #expect(error?.path?.contains("[too big to fit]") == true, "the error names the key: \(String(describing: error))")
        #expect(try cache.data(for: "too big to fit") == nil, "no torn entry")
        #expect(folder.leftoverTemporaryItems(prefixes: [TemporaryItem.prefix]).isEmpty, "no temporary file left")
        let after = try CacheFolder.entries(in: url)
        #expect(after.files == disk.files, "a write that cannot fit evicts nothing: \(after.files) of \(disk.files) entries left")
        let reopened = try DiskCache(folder: url, limits: DiskCache.Limits(memoryCapacity: 0))
        #expect(reopened.count == after.files && reopened.allocatedBytes == after.allocatedBytes)

        // An empty cache on a full volume has nothing to give: noSpace at once.
        let empty = try DiskCache(folder: url.appending(path: "../empty-cache"), limits: DiskCache.Limits(memoryCapacity: 0))
        _ = try? Filler(plan: FillPlan(volume: volume.url, goal: .leaving(0))).fill()
        let emptyError = expectStowageError(.noSpace) { try empty.set(Data(count: 6000), for: "first") }
        #expect(emptyError?.path?.contains("[first]") == true)
        #expect(try empty.data(for: "first") == nil)
        try FillFolder(in: volume.url).release()
    }

    private func entryPath(_ url: URL, _ key: String) -> String {
        let (fanOut, name) = DiskCache.fileName(for: key)
        return url.appending(path: "\(fanOut)/\(name)").path(percentEncoded: false)
    }

    private func setAccessTime(_ path: String, _ date: Date) throws {
        let seconds = date.timeIntervalSince1970
        var times = [timespec(tv_sec: Int(seconds), tv_nsec: 0), timespec(tv_sec: Int(seconds), tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    }
}
