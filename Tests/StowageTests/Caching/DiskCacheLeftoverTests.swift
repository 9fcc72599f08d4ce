import Foundation
import Testing
@testable import Stowage

/// Issue 30, item 6: a set killed between writing its entry's bytes and putting them in place
/// leaves a staged temporary file that no limit counts. Its writer held a lock on it while it
/// lived; the next eviction (or sweep) reclaims every staged file whose lock can be taken, at
/// once, and leaves a living writer's alone.
@Suite("DiskCache: staged files of killed writers", .timeLimit(.minutes(10)))
struct DiskCacheLeftoverTests {
    @Test("writers killed by SIGKILL after staging leave files the next eviction reclaims at once; a living writer's staged file stays and its set succeeds")
    func killedWritersLeftovers() throws {
        let folder = TestFolder()
        let helper = try builtProduct("stowage-test-helper")
        let url = folder.file("cache")
        let limits = DiskCache.Limits(maximumAllocatedBytes: 100_000, memoryCapacityBytes: 0)
        let cache = try DiskCache(folder: url, limits: limits)
        var environment = ProcessInfo.processInfo.environment
        environment["STOWAGE_TEST_FAULTS"] = "\(FaultPoint.cacheStaged)@1=kill"
        let killed = 6
        for writer in 0..<killed {
            let child = try ChildProcess(helper, ["cache-set", url.fileSystemPath, "100000", "0", "1", "killed\(writer)", "10000"],
                                         environment: environment)
            let ended = try child.finish(within: .seconds(120))
            #expect(ended.signal == SIGKILL, "writer \(writer) was to be killed once staged; it ended with \(ended.status): \(ended.error)")
        }
        #expect(staged(url).count == killed, "each killed writer left its staged file: \(staged(url))")

        // Eight entries of three blocks each (98,304 bytes) stay within the limit; the ninth set
        // evicts. It is made while a living writer (this process, paused at the same point) holds
        // its staged file.
        for index in 0..<8 { try cache.set(Data(count: 10_000), for: "e\(index)") }
        #expect(staged(url).count == killed, "no eviction yet")
        let living = try DiskCache(folder: url, limits: limits)
        let probe = TestProbe()
        let seen = Seen()
        probe.on(.cacheStaged) { hit in
            guard hit == 1 else { return }  // the set below reaches the point too
            try cache.set(Data(count: 10_000), for: "e8")  // over the limit: evicts
            seen.record(staged(url))
        }
        try TestProbe.$installed.withValue(probe) { try living.set(Data(repeating: 1, count: 10_000), for: "living") }
        #expect(seen.names.count == 1, "only the living writer's staged file stayed through the eviction: \(seen.names)")
        #expect(try living.data(for: "living") == Data(repeating: 1, count: 10_000), "the living writer's set succeeded")
        #expect(staged(url).isEmpty)
        let disk = try CacheFolder.entries(in: url)
        #expect(cache.count == disk.files && cache.allocatedBytes == disk.allocatedBytes)
    }

    @Test("a sweep of the folder (stowage sweep, relief) reclaims a killed writer's staged file too, whatever its age")
    func sweepReclaims() throws {
        let folder = TestFolder()
        let helper = try builtProduct("stowage-test-helper")
        let url = folder.file("cache")
        var environment = ProcessInfo.processInfo.environment
        environment["STOWAGE_TEST_FAULTS"] = "\(FaultPoint.cacheStaged)@1=kill"
        let child = try ChildProcess(helper, ["cache-set", url.fileSystemPath, "0", "0", "1", "killed", "10000"], environment: environment)
        #expect(try child.finish(within: .seconds(120)).signal == SIGKILL)
        #expect(staged(url).count == 1)
        let report = try Sweeper(policy: SweepPolicy()).sweep(url)
        #expect(report.removed.map(\.reason) == [.leftover])
        #expect(staged(url).isEmpty)
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
