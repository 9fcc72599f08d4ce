import Foundation
import Stowage
import StowageTesting
import StowageTestSupport
import XCTest

/// The same volume, through `withSimulatedStorage`, in XCTest. Every `await` has a deadline
/// (`awaiting`): XCTest has no time limit of its own here.
final class SimulatedStorageXCTests: XCTestCase {
    /// Asserts that `body` throws a `StowageError` with code `noSpace`, and returns it.
    private func assertNoSpace<T>(_ body: () throws -> T, file: StaticString = #filePath, line: UInt = #line) -> StowageError? {
        do {
            _ = try body()
            XCTFail("expected noSpace, nothing was thrown", file: file, line: line)
            return nil
        } catch let error as StowageError {
            XCTAssertEqual(error.code, .noSpace, "\(error)", file: file, line: line)
            return error
        } catch {
            XCTFail("expected a StowageError, got \(error)", file: file, line: line)
            return nil
        }
    }

    func testSaveThatFitsExactlySucceedsOneBlockMoreFailsAndARemovalMakesRoom() throws {
        let scratch = try ScratchContainer()
        let store = scratch.store
        try withSimulatedStorage(available: 16_384) {  // four blocks
            try store.save(Data(count: 16_384), to: "exact.bin", in: .documents)
            XCTAssertEqual(try scratch.available(), 0)
            let error = assertNoSpace { try store.save(Data(count: 1), to: "one.bin", in: .documents) }
            XCTAssertEqual(error?.path, "one.bin")
            XCTAssertEqual(error?.location, .documents)
            XCTAssertEqual(scratch.leftovers(), [])
            try store.remove("exact.bin", from: .documents)
            XCTAssertEqual(try scratch.available(), 16_384)
            let over = assertNoSpace { try store.save(Data(count: 16_385), to: "over.bin", in: .documents) }
            XCTAssertEqual(over?.path, "over.bin")
            XCTAssertEqual(try scratch.available(), 16_384)
        }
    }

    func testFailedSaveKeepsTheOldValueAndLeavesNoTemporaryFile() throws {
        let scratch = try ScratchContainer()
        let store = scratch.store
        try withSimulatedStorage(available: 12_288) {
            try store.save(["draft": "first"], to: "draft.json", in: .applicationSupport)
            let huge = String(repeating: "x", count: 3 * 4096)
            XCTAssertNotNil(assertNoSpace { try store.save(["draft": huge], to: "draft.json", in: .applicationSupport) })
            XCTAssertEqual(try store.retrieve([String: String].self, from: "draft.json", in: .applicationSupport), ["draft": "first"])
            XCTAssertEqual(scratch.leftovers(), [])
            XCTAssertEqual(try scratch.available(), 2 * block)
        }
    }

    func testInodeLimitIsExact() throws {
        let scratch = try ScratchContainer()
        let store = scratch.store
        try withSimulatedStorage(available: 1_000_000, inodes: 2) {
            try store.save(Data([1]), to: "1.bin", in: .caches)  // CACHEDIR.TAG takes the first inode
            XCTAssertEqual(try scratch.availableInodes(), 0)
            let error = assertNoSpace { try store.save(Data([2]), to: "2.bin", in: .caches) }
            XCTAssertEqual(error?.path, "2.bin")
            try store.remove("1.bin", from: .caches)
            XCTAssertEqual(try scratch.availableInodes(), 1)
            try store.save(Data([2]), to: "2.bin", in: .caches)
        }
    }

    func testCapacityFiguresMoveWithTheWrites() throws {
        let scratch = try ScratchContainer()
        try withSimulatedStorage(available: 40_960, total: 409_600) {
            let before = try scratch.container.capacity(of: .documents)
            XCTAssertTrue(before.isSimulated)
            XCTAssertEqual(before.availableBytes, 40_960)
            XCTAssertEqual(before.totalBytes, 409_600)
            try scratch.store.save(Data(count: 5000), to: "a.bin", in: .documents)
            XCTAssertEqual(try VolumeCapacity.forVolume(containing: scratch.folder).availableBytes, 40_960 - 8192)
            XCTAssertEqual(try scratch.container.availableSpace(of: .temporary).availableBytes, 40_960 - 8192)
        }
        XCTAssertFalse(try scratch.container.availableSpace(of: .documents).isSimulated)
    }

    func testAsyncFormCarriesTheBudgetIntoDiskCacheAndStoreClear() async throws {
        let scratch = try ScratchContainer()
        try await withSimulatedStorage(available: 409_600) {
            let cache = try DiskCache(name: "feed", in: scratch.container, limits: DiskCache.Limits(memoryCapacityBytes: 0))
            let start = try scratch.modelledUse()
            let available = try scratch.available()
            try await awaiting("DiskCache's async set") { try await cache.set(Data(count: 10_000), for: "page-1") }
            var now = try scratch.modelledUse()
            XCTAssertGreaterThanOrEqual(now.bytes - start.bytes, 4 * block)
            XCTAssertEqual(available - (try scratch.available()), now.bytes - start.bytes)
            XCTAssertThrowsError(try scratch.store.save(Data(count: 100 * 4096), to: "big.bin", in: .temporary))

            for folder in ["a", "b", "c"] { try scratch.store.save(Data(count: 4096), to: "\(folder)/x.bin", in: .temporary) }
            _ = try await awaiting("Store's async clear") { try await scratch.store.clear(.temporary) { _ in } }
            try await awaiting("DiskCache's async remove") { try await cache.remove("page-1") }
            now = try scratch.modelledUse()
            XCTAssertEqual(available - (try scratch.available()), now.bytes - start.bytes)
        }
    }

    func testParallelScopesDoNotInterfere() async throws {
        let rendezvous = Rendezvous(count: 3)
        let used = try await awaiting("the three scoped tasks") { try await withThrowingTaskGroup(of: Int64.self) { group in
            for blocks in [Int64(3), 5, 7] {
                group.addTask {
                    let scratch = try ScratchContainer()
                    return try await withSimulatedStorage(available: ByteCount(blocks * block)) {
                        try scratch.store.save(Data(count: Int(block)), to: "a.bin", in: .documents)
                        try await awaiting("the other tasks at the rendezvous") { await rendezvous.arrive() }  // all three volumes are in use now
                        try scratch.store.save(Data(count: Int(block)), to: "b.bin", in: .documents)
                        try await awaiting("the other tasks at the rendezvous") { await rendezvous.arrive() }
                        return blocks * block - (try scratch.available())
                    }
                }
            }
            var used: [Int64] = []
            for try await each in group { used.append(each) }  // the group's tasks have their own deadlines
            return used
        } }
        XCTAssertEqual(used, [2 * block, 2 * block, 2 * block])
    }
}
