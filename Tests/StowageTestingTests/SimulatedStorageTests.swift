import Foundation
import Stowage
import StowageTesting
import StowageTestSupport
import Testing

/// Expects `body` to throw a `StowageError` with code `noSpace`, and returns it.
@discardableResult
func expectNoSpace<T>(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T) -> StowageError? {
    let error = #expect(throws: StowageError.self, sourceLocation: sourceLocation) { _ = try body() }
    #expect(error?.code == .noSpace, "got \(String(describing: error))", sourceLocation: sourceLocation)
    return error
}

@Suite("StowageTesting: the .simulatedStorage trait (Swift Testing)")
struct SimulatedStorageTests {
    @Test("a save that fits exactly succeeds; one byte (one block) more fails with noSpace naming the path",
          .simulatedStorage(available: ByteCount(3 * 4096)))
    func exactBoundary() throws {
        let scratch = try ScratchContainer()
        let store = scratch.store
        #expect(try scratch.available() == 3 * block)
        try store.save(Data(repeating: 1, count: Int(3 * block)), to: "exact.bin", in: .documents)
        #expect(try scratch.available() == 0)
        try store.remove("exact.bin", from: .documents)
        #expect(try scratch.available() == 3 * block, "the removal gave the three blocks back")

        let error = expectNoSpace { try store.save(Data(repeating: 2, count: Int(3 * block) + 1), to: "over.bin", in: .documents) }
        #expect(error?.path == "over.bin")
        #expect(error?.location == .documents)
        #expect(error?.errno == .noSpace)
        #expect(try !scratch.exists("over.bin", in: .documents))
        #expect(scratch.leftovers().isEmpty, "no temporary file is left")
        #expect(try scratch.available() == 3 * block, "a failed write takes nothing")
    }

    @Test("saving over a file needs room for the whole new copy; a failed save keeps the old value, and a save gives the old blocks back",
          .simulatedStorage(available: ByteCount(2 * 4096)))
    func oldValueIntact() throws {
        let scratch = try ScratchContainer()
        let store = scratch.store
        let old = Data(repeating: 0x61, count: Int(block))
        try store.save(old, to: "note.bin", in: .documents)
        #expect(try scratch.available() == block)

        let error = expectNoSpace { try store.save(Data(repeating: 0x62, count: Int(2 * block)), to: "note.bin", in: .documents) }
        #expect(error?.path == "note.bin")
        #expect(try store.retrieve(Data.self, from: "note.bin", in: .documents) == old)
        #expect(scratch.leftovers().isEmpty)
        #expect(try scratch.available() == block)

        let new = Data(repeating: 0x63, count: Int(block))
        try store.save(new, to: "note.bin", in: .documents)  // one block beside the old, then the old one back
        #expect(try store.retrieve(Data.self, from: "note.bin", in: .documents) == new)
        #expect(try scratch.available() == block)
    }

    @Test("a Codable value, an image and a folder of Data take their blocks; a folder of Data that does not fit leaves the old one",
          .simulatedStorage(available: ByteCount(8 * 4096), inodes: 20))
    func valuesImagesAndFolders() throws {
        let scratch = try ScratchContainer()
        let store = scratch.store
        try store.save(["a", "b"], to: "list.json", in: .documents)
        try store.save(Pixels(bytes: [1, 2, 3]), to: "cover.png", in: .documents)
        #expect(try scratch.available() == 6 * block)
        #expect(try scratch.availableInodes() == 18)

        // A temporary folder (one block, one inode) with a file each, renamed into place.
        try store.saveFolder([Data(count: Int(block)), Data(count: Int(block))], to: "album", in: .documents)
        #expect(try scratch.available() == 3 * block)
        #expect(try scratch.availableInodes() == 15)

        // Three blocks of data and a folder do not fit beside the old album (three blocks free).
        let error = expectNoSpace {
            try store.saveFolder([Data(count: Int(block)), Data(count: Int(block)), Data(count: Int(block))], to: "album",
                           in: .documents, options: .replacingExistingFolder)
        }
        #expect(error?.path?.hasPrefix("album") == true, "got \(String(describing: error?.path))")
        #expect(try store.retrieveFolder(from: "album", in: .documents).count == 2)
        #expect(scratch.leftovers().isEmpty)
        #expect(try scratch.available() == 3 * block)
        #expect(try scratch.availableInodes() == 15)
    }

    @Test("a new folder takes one block and one inode, a file one inode and its blocks; removing them gives all back",
          .simulatedStorage(available: ByteCount(10 * 4096), inodes: 10))
    func folderModel() throws {
        let scratch = try ScratchContainer()
        let store = scratch.store
        try store.save(Data(), to: "a/b/empty.bin", in: .documents)
        #expect(try scratch.available() == 8 * block)
        #expect(try scratch.availableInodes() == 7)
        let capacity = try VolumeCapacity.forVolume(containing: scratch.folder)
        #expect(capacity.totalInodeCount == 10)
        try store.remove("a", from: .documents)
        #expect(try scratch.available() == 10 * block)
        #expect(try scratch.availableInodes() == 10)
    }

    /// `dst` holds 19 names of 200 bytes (208 bytes each in an ext4 folder block) beside `.` and
    /// `..` (24): 3,976 of the block's 4,084 usable bytes. A name of 100 bytes (108) fits in the
    /// rest exactly; one of 101 (112) makes ext4 turn the folder into an index: a root and two
    /// leaves, two blocks more.
    @Test("a move to a new name needs room in the destination folder: filling its block exactly takes nothing, one byte more takes two blocks")
    func moveIntoAFullFolder() throws {
        func folder(_ available: Int64, _ body: (Store, ScratchContainer) throws -> Void) throws {
            let scratch = try ScratchContainer()
            let documents = try scratch.container.url(for: .documents)
            // Made before the budget, which meets the folder with its names.
            try FileManager.default.createDirectory(at: documents.appending(path: "dst"), withIntermediateDirectories: true)
            for index in 0..<19 {
                try Data().write(to: documents.appending(path: "dst/" + String(format: "%03d", index) + String(repeating: "n", count: 197)))
            }
            try Data([1]).write(to: documents.appending(path: "x"))
            try Data([2]).write(to: documents.appending(path: "y"))
            try withSimulatedStorage(available: ByteCount(available * block)) { try body(scratch.store, scratch) }
        }
        let longer = "dst/" + String(repeating: "l", count: 101)
        let exact = "dst/" + String(repeating: "e", count: 100)
        try folder(1) { store, scratch in
            let error = expectNoSpace { try store.move("x", from: .documents, to: .documents, as: longer) }
            #expect(error?.path == "x" || error?.path == longer, "got \(String(describing: error))")
            #expect(try scratch.exists("x", in: .documents) && !scratch.exists(longer, in: .documents), "nothing moved")
            #expect(try scratch.available() == block, "a refused move takes nothing")
            try store.move("y", from: .documents, to: .documents, as: exact)
            #expect(try scratch.exists(exact, in: .documents))
            #expect(try scratch.available() == block, "the folder's block holds the name")
            expectNoSpace { try store.move("x", from: .documents, to: .documents, as: "dst/z") }  // however short
        }
        try folder(2) { store, scratch in
            try store.move("x", from: .documents, to: .documents, as: longer)
            #expect(try scratch.available() == 0, "the root and two leaves")
        }
    }

    @Test("inodes run out exactly at the limit: the write that needs one more fails with noSpace, a removal makes room",
          .simulatedStorage(available: 1_000_000, inodes: 3))
    func inodeLimit() throws {
        let scratch = try ScratchContainer()
        let store = scratch.store
        for index in 1...3 { try store.save(Data([UInt8(index)]), to: "\(index).bin", in: .documents) }
        #expect(try scratch.availableInodes() == 0)
        let error = expectNoSpace { try store.save(Data([4]), to: "4.bin", in: .documents) }
        #expect(error?.path == "4.bin")
        #expect(error?.systemCall == "openat")
        #expect(try scratch.available() == 1_000_000 / block * block - 3 * block, "the refused file took no block")
        try store.remove("1.bin", from: .documents)
        try store.save(Data([4]), to: "4.bin", in: .documents)
        #expect(try store.retrieve(Data.self, from: "4.bin", in: .documents) == Data([4]))
    }

    @Test("capacity figures move with the writes, and space checks use them: exactly enough passes, one block more is refused before writing",
          .simulatedStorage(available: ByteCount(100 * 4096), total: ByteCount(1000 * 4096)))
    func capacityAndSpaceChecks() throws {
        let scratch = try ScratchContainer()
        let store = scratch.store
        var capacity = try scratch.container.capacity(of: .documents)
        #expect(capacity.isSimulated)
        #expect(capacity.blockSizeBytes == block)
        #expect(capacity.totalBytes == 1000 * block)
        #expect(capacity.availableBytes == 100 * block)
        #expect(capacity.freeBytes == 100 * block)
        #expect(capacity.availableForImportantUsageBytes == 100 * block)
        #expect(capacity.availableForOpportunisticUsageBytes == 0, "15% of the total is kept free for optional data")

        try store.save(Data(count: Int(10 * block)), to: "ten.bin", in: .documents)
        capacity = try VolumeCapacity.forVolume(containing: scratch.folder)
        #expect(capacity.availableBytes == 90 * block)
        let space = try scratch.container.availableSpace(of: .caches)
        #expect(space.availableBytes == 90 * block && space.isSimulated)

        let important = WriteOptions(spaceRequirement: .important)
        let refused = expectNoSpace { try store.save(Data(count: Int(90 * block) + 1), to: "big.bin", in: .documents, options: important) }
        #expect(refused?.neededBytes == 91 * block)
        #expect(refused?.availableBytes == 90 * block)
        #expect(try !scratch.exists("big.bin", in: .documents))
        let optional = expectNoSpace {
            try store.save(Data(count: 1), to: "thumb.bin", in: .documents, options: WriteOptions(spaceRequirement: .opportunistic))
        }
        #expect(optional?.availableBytes == 0)

        try store.save(Data(count: Int(90 * block)), to: "big.bin", in: .documents, options: important)
        #expect(try scratch.available() == 0)
    }

    @Test("appends take their blocks; an append that does not fit fails with noSpace and leaves the array and no journal",
          .simulatedStorage(available: ByteCount(3 * 4096)))
    func appends() throws {
        let scratch = try ScratchContainer()
        let store = scratch.store
        try store.save(["a"], to: "log.json", in: .documents)
        #expect(try scratch.available() == 2 * block)
        // The journal takes a block, then the array needs two more.
        let long = String(repeating: "x", count: Int(2 * block))
        let error = expectNoSpace { try store.append(long, to: "log.json", in: .documents) }
        #expect(error?.path == "log.json")
        #expect(try store.retrieve([String].self, from: "log.json", in: .documents) == ["a"])
        #expect(scratch.leftovers().isEmpty)
        #expect(try scratch.available() == 2 * block)
        try store.append("b", to: "log.json", in: .documents)
        #expect(try store.retrieve([String].self, from: "log.json", in: .documents) == ["a", "b"])
        #expect(try scratch.available() == 2 * block)
    }

    @Test("DiskCache sets take blocks and removals and evictions give them back; a set that cannot fit keeps the previous entry",
          .simulatedStorage(available: ByteCount(64 * 4096)))
    func diskCache() throws {
        let scratch = try ScratchContainer()
        let empty = try scratch.modelledUse()
        // Its folder, its index and the caches' CACHEDIR.TAG: a block each.
        let cache = try DiskCache(name: "thumbnails", in: scratch.container,
                                  limits: DiskCache.Limits(maximumCount: 3, lowWatermark: 0.5, memoryCapacityBytes: 0))
        var start = try scratch.modelledUse()
        var available = try scratch.available()
        #expect(64 * block - available == start.bytes - empty.bytes)
        #expect(start.bytes - empty.bytes == 3 * block)

        try cache.set(Data(repeating: 7, count: Int(2 * block)), for: "first")
        var now = try scratch.modelledUse()
        #expect(available - (try scratch.available()) == now.bytes - start.bytes)
        #expect(now.bytes - start.bytes >= 4 * block, "a fan-out folder and three blocks of entry")

        try cache.remove("first")
        now = try scratch.modelledUse()
        #expect(available - (try scratch.available()) == now.bytes - start.bytes)

        // Four entries over a limit of three: evicted down to the low watermark, given back.
        start = try scratch.modelledUse()
        available = try scratch.available()
        for key in ["k1", "k2", "k3", "k4"] { try cache.set(Data(repeating: 1, count: 100), for: key) }
        #expect(cache.count <= 3)
        now = try scratch.modelledUse()
        #expect(available - (try scratch.available()) == now.bytes - start.bytes)

        let kept = try #require(try ["k1", "k2", "k3", "k4"].first { try cache.data(for: $0) != nil })
        let before = try scratch.available()
        let error = expectNoSpace { try cache.set(Data(count: Int(200 * block)), for: kept) }
        #expect(error?.path?.hasSuffix("[\(kept)]") == true, "the cache's folder and the key")
        #expect(try cache.data(for: kept) == Data(repeating: 1, count: 100))
        #expect(scratch.leftovers().isEmpty)
        #expect(try scratch.available() == before)
    }

    @Test("a fill fills the simulated volume to its goal, and its release gives the space back",
          .simulatedStorage(available: ByteCount(256 * 4096)))
    func fill() throws {
        let scratch = try ScratchContainer()
        let volume = scratch.folder.appending(path: "fill", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: volume, withIntermediateDirectories: true)
        let start = try scratch.modelledUse()
        for method in [FillPlan.Method.allocate, .zeros] {
            let report = try Filler(plan: FillPlan(volume: volume, goal: .leaving(100 * block), method: method, safetyFloorBytes: 0)).fill()
            #expect(report.ending == .goalReached, "\(method)")
            #expect(report.availableBytesAfter == 100 * block)
            #expect(try scratch.available() == 100 * block)
            _ = try FillFolder(in: volume).release()
            let now = try scratch.modelledUse()
            #expect(256 * block - (try scratch.available()) == now.bytes - start.bytes, "\(method)")
        }
        // A hold (unnamed files where the file system has them): given back when released.
        let hold = try Filler(plan: FillPlan(volume: volume, goal: .leaving(50 * block), safetyFloorBytes: 0)).hold()
        #expect(hold.report.availableBytesAfter == 50 * block)
        #expect(try scratch.available() == 50 * block)
        try hold.release()
        #expect(256 * block - (try scratch.available()) == (try scratch.modelledUse()).bytes - start.bytes)
    }

    @Test("writes made without Stowage do not use the budget", .simulatedStorage(available: ByteCount(4 * 4096)))
    func foreignWrites() throws {
        let scratch = try ScratchContainer()
        try scratch.writeWithoutStowage(1_000_000, to: "download.bin", in: .documents)
        #expect(try scratch.available() == 4 * block)
        // ...though removing such a file through Stowage gives its blocks back, as on a real volume.
        try scratch.store.remove("download.bin", from: .documents)
        #expect(try scratch.available() == 4 * block + (1_000_000 + block - 1) / block * block)
    }
}

/// Every `await` has a deadline (`awaiting`): a budget that sends a call into an endless loop
/// fails the test, where it once hung it for minutes.
@Suite("StowageTesting: async calls carry the budget to their threads", .hangLimit)
struct SimulatedStorageAsyncTests {
    @Test("DiskCache's async set and remove, Store's async clear (several removal threads) and async capacity use the test's budget",
          .simulatedStorage(available: ByteCount(128 * 4096)))
    func asyncCalls() async throws {
        let scratch = try ScratchContainer()
        let store = scratch.store
        let cache = try DiskCache(name: "async", in: scratch.container, limits: DiskCache.Limits(memoryCapacityBytes: 0))
        let start = try scratch.modelledUse()
        let available = try scratch.available()

        try await awaiting("DiskCache's async set") { try await cache.set(Data(repeating: 3, count: Int(5 * block)), for: "a") }
        var now = try scratch.modelledUse()
        #expect(now.bytes - start.bytes >= 6 * block)
        #expect(available - (try scratch.available()) == now.bytes - start.bytes)
        try await awaiting("DiskCache's async remove") { try await cache.remove("a") }
        now = try scratch.modelledUse()
        #expect(available - (try scratch.available()) == now.bytes - start.bytes)

        for folder in ["one", "two", "three", "four"] {
            for index in 0..<3 { try store.save(Data(count: Int(block)), to: "\(folder)/\(index).bin", in: .temporary) }
        }
        #expect(available - (try scratch.available()) == (try scratch.modelledUse()).bytes - start.bytes)
        let report = try await awaiting("Store's async clear") { try await store.clear(.temporary) { _ in } }
        #expect(report.removed.count == 12)
        now = try scratch.modelledUse()
        #expect(available - (try scratch.available()) == now.bytes - start.bytes)

        let capacity = try await awaiting("the async capacity") { try await scratch.container.capacity(of: .temporary) }
        #expect(capacity.isSimulated)
        #expect(capacity.availableBytes == (try scratch.available()))
    }

    @Test("two tasks with different budgets, both open at once, each see only their own writes")
    func parallelScopes() async throws {
        let rendezvous = Rendezvous(count: 2)
        try await awaiting("the two scoped tasks") { try await withThrowingTaskGroup(of: Void.self) { group in
            for blocks in [Int64(4), 9] {
                group.addTask {
                    let scratch = try ScratchContainer()
                    try await withSimulatedStorage(available: ByteCount(blocks * block)) {
                        try scratch.store.save(Data(count: Int(block)), to: "one.bin", in: .documents)
                        try await awaiting("the other task at the rendezvous") { await rendezvous.arrive() }  // both volumes are in use now
                        try scratch.store.save(Data(count: Int(block)), to: "two.bin", in: .documents)
                        try await awaiting("the other task at the rendezvous") { await rendezvous.arrive() }  // both have written twice
                        #expect(try scratch.available() == (blocks - 2) * block)
                        // A task of its own (awaiting makes one): the same volume.
                        try await awaiting("a removal in a task") { try scratch.store.remove("one.bin", from: .documents) }
                        #expect(try scratch.available() == (blocks - 1) * block)
                    }
                    #expect(try !scratch.container.availableSpace(of: .documents).isSimulated, "over when the scope ends")
                }
            }
            try await group.waitForAll()
        } }
    }

    @Test("each case of a parameterized test, run in parallel, has a volume of its own",
          .simulatedStorage(available: ByteCount(8 * 4096)), arguments: 1...6)
    func perCase(blocks: Int) throws {
        let scratch = try ScratchContainer()
        #expect(try scratch.available() == 8 * block)
        for index in 0..<blocks { try scratch.store.save(Data(count: Int(block)), to: "\(index).bin", in: .documents) }
        #expect(try scratch.available() == (8 - Int64(blocks)) * block)
    }
}

/// On a suite, the trait gives every test its own volume: each fills all of it.
@Suite("StowageTesting: the trait on a suite", .simulatedStorage(available: ByteCount(2 * 4096)))
struct SimulatedStorageSuiteTests {
    @Test("the first test fills the whole volume")
    func fillsAll() throws {
        let scratch = try ScratchContainer()
        #expect(try scratch.available() == 2 * block)
        try scratch.store.save(Data(count: Int(2 * block)), to: "first", in: .documents)
        #expect(try scratch.available() == 0)
    }

    @Test("the second test fills the whole volume too")
    func fillsAllAgain() throws {
        let scratch = try ScratchContainer()
        #expect(try scratch.available() == 2 * block)
        try scratch.store.save(Data(count: Int(2 * block)), to: "second", in: .documents)
        #expect(try scratch.available() == 0)
    }
}

@Suite("StowageTesting: figures that cannot make a volume", .hangLimit)
struct SimulatedStorageRefusalTests {
    @Test("a negative size, a total below what is available, a block size below 1 and negative inodes are refused before the body runs",
          arguments: [SimulatedStorage(available: -1), SimulatedStorage(available: 8192, total: 4096),
                      SimulatedStorage(available: 8192, blockSize: 0), SimulatedStorage(available: 8192, inodes: -1)])
    func refused(storage: SimulatedStorage) throws {
        var ran = false
        let error = #expect(throws: StowageError.self) {
            try withSimulatedStorage(available: storage.available, total: storage.total, blockSize: storage.blockSize,
                                     inodes: storage.inodes) { ran = true }
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.operation == .simulateStorage)
        #expect(!ran)
    }

    @Test("the least figures that make a volume are accepted: nothing available, a total equal to it, one-byte blocks, no inodes")
    func leastFigures() throws {
        let scratch = try ScratchContainer()
        try withSimulatedStorage(available: 0, total: 0, blockSize: 1, inodes: 0) { () throws in
            #expect(try scratch.available() == 0)
            let error = expectNoSpace { try scratch.store.save(Data(), to: "empty.bin", in: .documents) }
            #expect(error?.path == "empty.bin", "an empty file needs no block, but an inode")
        }
        try withSimulatedStorage(available: 5, total: 5, blockSize: 1, inodes: 1) {
            try scratch.store.save(Data(count: 5), to: "five.bin", in: .documents)
            #expect(try scratch.available() == 0)
            #expect(try scratch.availableInodes() == 0)
        }
    }

    @Test("a budget's figures win over a task's simulated figures, whichever scope is the inner one")
    func budgetBeforeTaskFigures() throws {
        let scratch = try ScratchContainer()
        try SimulatedCapacity.withFigures(available: 999_999_000) {
            try withSimulatedStorage(available: 40_960) { () throws in #expect(try scratch.available() == 40_960) }
            #expect(try scratch.available() == 999_999_000, "the task's figures again once the budget ends")
        }
        try withSimulatedStorage(available: 40_960) { () throws in
            try SimulatedCapacity.withFigures(available: 999_999_000) { () throws in #expect(try scratch.available() == 40_960) }
        }
    }

    @Test("an await that does not end in time fails with what it waited for, and one that ends returns its value")
    func deadline() async throws {
        let error = await #expect(throws: DeadlineExceeded.self) {
            try await awaiting("an hour's sleep", within: .milliseconds(100)) { try await Task.sleep(for: .seconds(3600)) }
        }
        #expect(error?.description.hasPrefix("an hour's sleep did not end within") == true)
        #expect(try await awaiting("a value") { 42 } == 42)
    }

    @Test("outside a scope, and after it, the figures are the real volume's")
    func outside() throws {
        let scratch = try ScratchContainer()
        #expect(try !scratch.container.availableSpace(of: .documents).isSimulated)
        let inside = try withSimulatedStorage(available: 12_345) { try scratch.container.availableSpace(of: .documents) }
        #expect(inside.availableBytes == 12_288 && inside.isSimulated, "rounded down to whole blocks")
        #expect(try !scratch.container.availableSpace(of: .documents).isSimulated)
    }

    @Test("a block size of its own: files take whole blocks of it", .simulatedStorage(available: ByteCount(10 * 512), blockSize: 512))
    func ownBlockSize() throws {
        let scratch = try ScratchContainer()
        try scratch.store.save(Data(count: 513), to: "two-blocks.bin", in: .documents)
        #expect(try scratch.available() == 8 * 512)
        #expect(try VolumeCapacity.forVolume(containing: scratch.folder).blockSizeBytes == 512)
    }
}

/// An image as its bytes, for the Store's image calls on Linux.
struct Pixels: StorableImage {
    var bytes: [UInt8]
    func encodedImage(as format: ImageFormat) -> Data? { Data([0x89, 0x50, 0x4E, 0x47] + bytes) }
    static func decodedImage(from data: Data) -> Pixels? { Pixels(bytes: Array(data.dropFirst(4))) }
}
