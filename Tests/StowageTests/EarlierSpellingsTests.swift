import Foundation
import Testing
@testable import Stowage

/// Every public spelling renamed for one vocabulary (a figure names its unit, a duration is a
/// `Duration`, one name per question, a folder of data has calls of its own) still compiles, with
/// a deprecation warning naming the new one, and does what the new one does. The tests are
/// deprecated themselves, so that calling the earlier spellings warns nowhere: a build of this
/// file that fails means a library user's build breaks. CHANGELOG.md lists each rename.
@Suite("Earlier spellings, deprecated for one release")
struct EarlierSpellingsTests {
    @available(*, deprecated, message: "calls the earlier spellings on purpose")
    @Test("SweepPolicy: maximumAllocatedSize, maximumAge and leftoverGracePeriod (seconds) forward to the new figures")
    func sweepPolicy() {
        var policy = SweepPolicy(maximumAllocatedSize: 10, maximumCount: 3, maximumAge: 60, order: .largestFirst,
                                 lowWatermark: 0.5, leftoverGracePeriod: 30)
        #expect(policy == SweepPolicy(maximumAllocatedBytes: 10, maximumCount: 3, maximumFileAge: .seconds(60),
                                      order: .largestFirst, lowWatermark: 0.5, leftoverMinimumAge: .seconds(30)))
        #expect(policy.maximumAllocatedSize == 10 && policy.maximumAge == 60 && policy.leftoverGracePeriod == 30)
        policy.maximumAllocatedSize = 20
        policy.maximumAge = 1.5
        policy.leftoverGracePeriod = 7200
        #expect(policy.maximumAllocatedBytes == 20 && policy.maximumFileAge == .milliseconds(1500)
                && policy.leftoverMinimumAge == .seconds(7200))
        policy.maximumAge = .infinity  // nothing is that old: no limit, as before
        #expect(policy.maximumFileAge == nil && policy.problem == nil)
        for refused in [-1, .nan, -.infinity] as [TimeInterval] {
            policy.maximumAge = refused
            #expect(policy.problem == "the age limit cannot be negative", "maximumAge \(refused)")
        }
        #expect(SweepPolicy(maximumAge: nil) == SweepPolicy())
    }

    @available(*, deprecated, message: "calls the earlier spellings on purpose")
    @Test("DiskCache.Limits: maximumAllocatedSize, memoryCapacity and defaultMemoryCapacity forward; memoryCost is memoryCostBytes")
    func diskCacheLimits() throws {
        var limits = DiskCache.Limits(maximumAllocatedSize: 1000, maximumCount: 5, lowWatermark: 0.5, memoryCapacity: 64)
        #expect(limits == DiskCache.Limits(maximumAllocatedBytes: 1000, maximumCount: 5, lowWatermark: 0.5,
                                           memoryCapacityBytes: 64))
        limits.maximumAllocatedSize = 2000
        limits.memoryCapacity = 128
        #expect(limits.maximumAllocatedBytes == 2000 && limits.memoryCapacityBytes == 128)
        #expect(limits.maximumAllocatedSize == 2000 && limits.memoryCapacity == 128)
        #expect(DiskCache.Limits.defaultMemoryCapacity == DiskCache.Limits.defaultMemoryCapacityBytes)
        let folder = TestFolder()
        let cache = try DiskCache(folder: folder.file("cache"))
        try cache.set(Data("v".utf8), for: "k")
        #expect(cache.memoryCost == cache.memoryCostBytes && cache.memoryCost == 1)
    }

    /// The earlier `TimeInterval` expiry keeps its rules: NaN refused naming the key, the
    /// infinities never and already expired, 0 or less already expired.
    @available(*, deprecated, message: "calls the earlier spellings on purpose")
    @Test("DiskCache.set(expiresAfter:) in seconds: 0, negative or -infinity expired; +infinity never; NaN is invalidArgument naming the key")
    func diskCacheExpiryInSeconds() throws {
        let folder = TestFolder()
        let cache = try DiskCache(folder: folder.file("cache"))
        for expiresAfter in [0, -1, -2e9, -.infinity] as [TimeInterval] {
            try cache.set(Data("old".utf8), for: "k")
            try cache.set(Data("new".utf8), for: "k", expiresAfter: expiresAfter)
            #expect(cache.count == 0 && cache.memoryCostBytes == 0, "expiresAfter \(expiresAfter): nothing written, the previous entry removed")
        }
        try cache.set(Data("forever".utf8), for: "f", expiresAfter: .infinity)
        try cache.set(["b"], for: "w", expiresAfter: 3600)
        try DiskCache.$wallClock.withValue({ 1e300 }) { () throws in #expect(try cache.data(for: "f") == Data("forever".utf8)) }
        #expect(try cache.value([String].self, for: "w") == ["b"])
        try cache.set(Data("kept".utf8), for: "n")
        let error = expectStowageError(.invalidArgument) { try cache.set(Data("nan".utf8), for: "n", expiresAfter: .nan) }
        #expect(error?.path?.hasSuffix("[n]") == true, "the key is named: \(String(describing: error))")
        #expect(try cache.data(for: "n") == Data("kept".utf8), "the previous entry is untouched")
    }

    @available(*, deprecated, message: "calls the earlier spellings on purpose")
    @Test("the async DiskCache.set(expiresAfter:) in seconds: expired, kept, and NaN refused as by the synchronous one")
    func diskCacheAsyncExpiryInSeconds() async throws {
        let folder = TestFolder()
        let cache = try DiskCache(folder: folder.file("cache"))
        try await cache.set(Data("old".utf8), for: "k")
        try await cache.set(Data("new".utf8), for: "k", expiresAfter: -1)
        #expect(cache.count == 0)
        try await cache.set(["a"], for: "v", expiresAfter: 3600)
        #expect(try await cache.value([String].self, for: "v") == ["a"])
        await #expect(throws: StowageError.self) { try await cache.set(Data("nan".utf8), for: "n", expiresAfter: .nan) }
    }

    @available(*, deprecated, message: "calls the earlier spellings on purpose")
    @Test("audit(minimumSize:), preferencesWarningSize, relieve(toAvailable:) and PressureWatcher's threshold forward")
    func pressure() async throws {
        let folder = TestFolder()
        let store = folder.store()
        let container = store.container
        try store.save(Data(count: 2000), to: "big.bin", in: .documents)
        #expect(try container.audit(minimumSize: 1000) == container.audit(minimumBytes: 1000))
        #expect(try container.audit(minimumSize: 1000).findings.count == 1)
        #expect(try await container.audit(minimumSize: 1000, progress: { _ in }).findings.count == 1)
        #expect(Container.preferencesWarningSize == Container.preferencesWarningBytes)
        let relief = try container.relieve(toAvailable: 0, dryRun: true)
        #expect(relief.targetAvailableBytes == 0 && relief.isSatisfied)
        #expect(try await container.relieve(toAvailable: 0, dryRun: true, progress: { _ in }).targetAvailableBytes == 0)
        var watcher = PressureWatcher(container: container, threshold: 42, interval: .seconds(1))
        #expect(watcher.thresholdBytes == 42 && watcher.threshold == 42)
        watcher.threshold = 43
        #expect(watcher.thresholdBytes == 43)
    }

    @available(*, deprecated, message: "calls the earlier spellings on purpose")
    @Test("FillPlan's chunkSize and safetyFloor, FillReport.missedBy and FillFolder.release(amount:) forward")
    func filling() async throws {
        let folder = TestFolder()
        let volume = folder.file("volume")
        var plan = FillPlan(volume: volume, goal: .leaving(0), method: .zeros, chunkSize: 8192, safetyFloor: 1 << 20)
        #expect(plan == FillPlan(volume: volume, goal: .leaving(0), method: .zeros, chunkSizeBytes: 8192,
                                 safetyFloorBytes: 1 << 20))
        plan.chunkSize = 4096
        plan.safetyFloor = 1
        #expect(plan.chunkSizeBytes == 4096 && plan.safetyFloorBytes == 1 && plan.chunkSize == 4096 && plan.safetyFloor == 1)
        let inContainer = try FillPlan(container: folder.container(), goal: .consuming(1), chunkSize: 4096)
        #expect(inContainer.chunkSizeBytes == 4096)
        #expect(FillPlan.defaultChunkSize(for: .zeros) == FillPlan.defaultChunkSizeBytes(for: .zeros))
        #expect(FillPlan.defaultSafetyFloor == FillPlan.defaultSafetyFloorBytes)
        let report = try JSONDecoder().decode(FillReport.self, from: Data("""
            {"folder": "/v", "method": "allocate", "goal": "leaving 0 B", "targetAvailableBytes": 100,
             "availableBytesBefore": 1000, "availableBytesAfter": 96, "totalBytes": 2000, "blockSizeBytes": 4,
             "filledBytes": 904, "fileCount": 1, "elapsedSeconds": 0.5, "ending": "goalMissed"}
            """.utf8))
        #expect(report.missedBy == -4 && report.missedBy == report.missedByBytes)
        // A negative amount is refused, as by the new spelling: the amount is passed on.
        let fill = FillFolder(in: folder.url)
        expectStowageError(.invalidArgument) { try fill.release(amount: -1) }
        expectStowageError(.invalidArgument) { try fill.release(bytes: -1) }
        await #expect(throws: StowageError.self) { try await fill.release(amount: -1, progress: { _ in }) }
    }

    @available(*, deprecated, message: "calls the earlier spellings on purpose")
    @Test("contains answers as Disk.exists does: true for a real item, false for everything else, as (try? exists) == true")
    func containsAnswersLikeDisk() throws {
        let folder = TestFolder("contains")
        let store = folder.store()
        try store.save(Data("x".utf8), to: "a", in: .documents)
        try store.save(Data("x".utf8), to: "Album/photo.png", in: .documents)
        try folder.write("outside", to: "outside/x")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/container/Documents/escape",
                                                   withDestinationPath: folder.path + "/outside")
        #expect(store.contains("a", in: .documents))
        #expect(store.contains("Album", in: .documents))
        #expect(store.contains("Album/photo.png", in: .documents))
        #expect(store.contains("escape", in: .documents))  // the link itself is there
        #expect(!store.contains("missing", in: .documents))
        #expect(!store.contains("Album/missing.png", in: .documents))
        #expect(!store.contains("missing", in: .caches))  // a location never created
        #expect(!store.contains("", in: .documents))
        #expect(!store.contains("a/b", in: .documents))
        #expect(!store.contains("../x", in: .documents))
        #expect(!store.contains("/etc/passwd", in: .documents))
        #expect(!store.contains("escape/x", in: .documents))  // never followed out of the container
        expectStowageError(.invalidPath) { try store.exists("escape/x", in: .documents) }  // could not tell
    }

    @available(*, deprecated, message: "calls the earlier spellings on purpose")
    @Test("excludeFromBackup, includeInBackup and isExcludedFromBackup are the marker .excludedFromBackup")
    func backupMarker() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data("x".utf8), to: "Downloads/a", in: .documents)
        do {
            try store.excludeFromBackup("Downloads", in: .documents)
        } catch let error as StowageError where error.code == .unsupported {
            print("backupMarker: skipped, no extended attributes where the test folder is: \(error)")
            return
        }
        #expect(try store.isExcludedFromBackup("Downloads", in: .documents))
        #expect(try store.markers(of: "Downloads", in: .documents) == [.excludedFromBackup])
        try store.includeInBackup("Downloads", in: .documents)
        #expect(try !store.isExcludedFromBackup("Downloads", in: .documents))
        #expect(try store.markers(of: "Downloads", in: .documents).isEmpty)
        try store.mark("Downloads", in: .documents, .excludedFromBackup)
        #expect(try store.isExcludedFromBackup("Downloads", in: .documents))
    }

    @available(*, deprecated, message: "calls the earlier spellings on purpose")
    @Test("the [Data] overloads of save, retrieve and append are saveFolder, retrieveFolder and appendToFolder")
    func folderOfData() throws {
        let folder = TestFolder()
        let store = folder.store()
        let pages = [Data("one".utf8), Data("two".utf8)]
        try store.save(pages, to: "Scans", in: .documents, fileExtension: "txt")
        #expect(try store.retrieve([Data].self, from: "Scans", in: .documents) == pages)
        try store.append(Data("three".utf8), to: "Scans", in: .documents)
        try store.append([Data("four".utf8)], to: "Scans", in: .documents)
        try store.append(contentsOf: [Data("five".utf8)], to: "Scans", in: .documents, fileExtension: "bin")
        #expect(try store.retrieveFolder(from: "Scans", in: .documents)
                == ["one", "two", "three", "four", "five"].map { Data($0.utf8) })
        #expect(try folder.snapshot("container/Documents/Scans").keys.filter { !$0.isEmpty }.sorted()
                == ["0.txt", "1.txt", "2.txt", "3.txt", "4.bin"])
        expectStowageError(.alreadyExists) { try store.save(pages, to: "Scans", in: .documents) }
    }
}
