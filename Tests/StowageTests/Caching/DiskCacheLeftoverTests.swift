import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

/// A set killed between writing its entry's bytes and putting them in place leaves a staged
/// temporary file in the cache's staging folder. Its writer held a lock on it while it lived; the
/// next change of any instance (a set, a removal, an eviction), and any sweep or clear of the
/// folder, reclaims every staged file whose lock can be taken, at once, and leaves a living
/// writer's alone. So no limit needs to count them: they last until the next change.
@Suite("DiskCache: staged files of killed writers", .hangLimit)
struct DiskCacheLeftoverTests {
    @Test("writers killed by SIGKILL after staging leave files the next change reclaims at once, eviction or not; a living writer's staged file stays and its set succeeds")
    func killedWritersLeftovers() throws {
        let folder = TestFolder()
        let url = folder.file("cache")
        let limits = DiskCache.Limits(maximumAllocatedBytes: 100_000, memoryCapacityBytes: 0)
        let cache = try DiskCache(folder: url, limits: limits)
        let killed = 6
        try killWriters(killed, in: url)
        #expect(staged(url).count == killed, "each killed writer left its staged file: \(staged(url))")
        #expect(staged(url).allSatisfy { $0.hasPrefix(TemporaryItem.stagingFolder + "/") }, "all in the staging folder: \(staged(url))")
        #expect(cache.count == 0 && cache.allocatedBytes == 0, "no limit counts them")

        // The next change reclaims them: a set far within the limits, which evicts nothing. It is
        // made while a living writer (this process, paused at the same point) holds its staged file.
        let living = try DiskCache(folder: url, limits: limits)
        let probe = TestProbe()
        let seen = Seen()
        probe.on(.cacheStaged) { hit in
            guard hit == 1 else { return }  // the set below reaches the point too
            try cache.set(Data(count: 10_000), for: "e0")
            seen.record(staged(url))
        }
        try TestProbe.$installed.withValue(probe) { try living.set(Data(repeating: 1, count: 10_000), for: "living") }
        #expect(seen.names.count == 1, "only the living writer's staged file stayed through the other's change: \(seen.names)")
        #expect(cache.sweepCount == 0, "no eviction was needed for it")
        #expect(try living.data(for: "living") == Data(repeating: 1, count: 10_000), "the living writer's set succeeded")
        #expect(staged(url).isEmpty)
        let disk = try CacheFolder.entries(in: url)
        #expect(cache.count == disk.files && cache.allocatedBytes == disk.allocatedBytes)
    }

    @Test("a name this process staged is passed by only while its set is in flight: a file left at it afterwards, its lock free, is reclaimed by the next change")
    func ownStagedNamesAreForgotten() throws {
        let folder = TestFolder()
        let url = folder.file("cache")
        let cache = try DiskCache(folder: url, limits: .init(memoryCapacityBytes: 0))
        let probe = TestProbe()
        let seen = Seen()
        probe.on(.cacheStaged) { _ in seen.record(staged(url)) }
        try TestProbe.$installed.withValue(probe) { try cache.set(Data(repeating: 1, count: 1_000), for: "k") }
        let name = try #require(seen.names.first, "the set staged its bytes in the staging folder")
        #expect(seen.names.count == 1 && staged(url).isEmpty, "\(seen.names); after the set: \(staged(url))")

        // What a writer killed at that name would leave: bytes, no lock.
        try Data(count: 100).write(to: url.appending(path: name))
        try cache.remove("absent")
        #expect(staged(url).isEmpty, "the change probed the file at the name this process once staged, and reclaimed it")
    }

    @Test("a removal of an absent entry is a change too: it reclaims them")
    func removalReclaims() throws {
        let folder = TestFolder()
        let url = folder.file("cache")
        let cache = try DiskCache(folder: url, limits: .init(memoryCapacityBytes: 0))
        try killWriters(2, in: url)
        #expect(staged(url).count == 2)
        try cache.remove("absent")
        #expect(staged(url).isEmpty)
    }

    @Test("in the staging folder, a held file whose lock is taken stays; an empty one stays (it may be a moment old, not locked yet); a held file whose lock is free goes; other temporary names wait for the grace period")
    func probeBoundaries() throws {
        let folder = TestFolder()
        let url = folder.file("cache")
        let cache = try DiskCache(folder: url, limits: .init(memoryCapacityBytes: 0))
        try cache.set(Data(count: 10), for: "k")  // makes the staging folder
        let staging = url.appending(path: TemporaryItem.stagingFolder)
        let lockedName = TemporaryItem.heldPrefix + "locked"
        let freeName = TemporaryItem.heldPrefix + "free"
        let emptyName = TemporaryItem.heldPrefix + "empty"
        let plainName = TemporaryItem.prefix + "plain"
        for name in [lockedName, freeName, plainName] { try Data(count: 100).write(to: staging.appending(path: name)) }
        try Data().write(to: staging.appending(path: emptyName))
        let holder = try OpenFile.openFolder(atPath: staging.fileSystemPath, followingLinks: false)
            .open(lockedName, flags: Sys.readOnly)
        #expect(try holder.tryLock(exclusive: true))
        try cache.set(Data(count: 10), for: "k2")
        #expect(Set(staged(url)) == Set([lockedName, emptyName, plainName].map { TemporaryItem.stagingFolder + "/" + $0 }),
                "only the free held file went: \(staged(url))")
        try holder.close()  // its writer is gone now
        try cache.remove("k2")
        #expect(Set(staged(url)) == Set([emptyName, plainName].map { TemporaryItem.stagingFolder + "/" + $0 }))
    }

    @Test("a sweep of the folder (stowage sweep, relief) reclaims a killed writer's staged file too, whatever its age")
    func sweepReclaims() throws {
        let folder = TestFolder()
        let url = folder.file("cache")
        try killWriters(1, in: url)
        #expect(staged(url).count == 1)
        let report = try Sweeper(policy: SweepPolicy()).sweep(url)
        #expect(report.removed.map(\.reason) == [.leftover])
        #expect(staged(url).isEmpty)
    }

    @Test("clearing the folder's contents (stowage clear, removeAll) reclaims them, and leaves a living writer's")
    func clearReclaims() throws {
        let folder = TestFolder()
        let url = folder.file("cache")
        try killWriters(2, in: url)
        let staging = url.appending(path: TemporaryItem.stagingFolder)
        let livingName = TemporaryItem.heldPrefix + "living"
        try Data(count: 100).write(to: staging.appending(path: livingName))
        let holder = try OpenFile.openFolder(atPath: staging.fileSystemPath, followingLinks: false).open(livingName, flags: Sys.readOnly)
        #expect(try holder.tryLock(exclusive: true))
        let root = try OpenFile.openFolder(atPath: url.fileSystemPath, followingLinks: false)
        let report = try Removal.run(root: root, path: url.fileSystemPath, .contents)
        #expect(report.removed.filter { $0.reason == .leftover }.count == 2)
        #expect(staged(url) == [TemporaryItem.stagingFolder + "/" + livingName])
        try holder.close()
    }

    /// Runs `count` helper processes that each set an entry in the cache at `url` and are
    /// killed (SIGKILL) once its bytes are staged.
    private func killWriters(_ count: Int, in url: URL) throws {
        let helper = try builtProduct("stowage-test-helper")
        var environment = ProcessInfo.processInfo.environment
        environment["STOWAGE_TEST_FAULTS"] = "\(FaultPoint.cacheStaged)@1=kill"
        for writer in 0..<count {
            let child = try ChildProcess(helper, ["cache-set", url.fileSystemPath, "100000", "0", "1", "killed\(writer)", "10000"],
                                         environment: environment)
            let ended = try child.finish(within: .seconds(120))
            #expect(ended.signal == SIGKILL, "writer \(writer) was to be killed once staged; it ended with \(ended.status): \(ended.error)")
        }
    }

    /// The staged (temporary) files under the cache's folder.
    private func staged(_ url: URL) -> [String] {
        let walk = FileManager.default.enumerator(atPath: url.fileSystemPath)
        var found: [String] = []
        while let name = walk?.nextObject() as? String {
            if (name as NSString).lastPathComponent.hasPrefix(TemporaryItem.prefix) { found.append(name) }
        }
        return found
    }

    /// What the probe saw. `@unchecked Sendable`: `list` is used only while `lock` is held.
    private final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [String] = []
        func record(_ names: [String]) { lock.withLock { list = names } }
        var names: [String] { lock.withLock { list } }
    }
}
