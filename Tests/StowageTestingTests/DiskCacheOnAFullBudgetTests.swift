import Foundation
import Stowage
import StowageTesting
import Testing

/// Issue 30, item 1, under the budget: the same twelve sets as on the ext4 volume
/// (`DiskCacheFullDiskTests.evictionLeavesItsRoom`), on a simulated volume of exactly N bytes.
@Suite("StowageTesting: a DiskCache on a full simulated volume")
struct DiskCacheOnAFullBudgetTests {
    @Test("with exactly N bytes free (32 to 56 KiB, every block), an eviction made for room leaves the room: every set succeeds and leaves no record",
          arguments: stride(from: Int64(32 << 10), through: 56 << 10, by: 4096).map { $0 })
    func evictionLeavesItsRoom(available: Int64) throws {
        let scratch = try ScratchContainer()
        let cache = try withSimulatedStorage(available: ByteCount(available)) {
            // Made on the full volume: its folder, `CACHEDIR.TAG` and index take three blocks of N.
            let cache = try DiskCache(name: "c", in: scratch.container,
                                      limits: DiskCache.Limits(maximumAllocatedBytes: 40_000, memoryCapacityBytes: 0))
            for index in 0..<12 {
                let value = Data(repeating: UInt8(index), count: 3000)
                let before = cache.count
                do {
                    try cache.set(value, for: "k\(index)")
                } catch let error as StowageError {
                    Issue.record("N = \(available): k\(index) threw \(error)")
                    #expect(cache.count == before, "a failed set evicted nothing")
                    continue
                }
                #expect(try cache.data(for: "k\(index)") == value)
                #expect(cache.allocatedBytes <= 40_000)
            }
            return cache
        }
        #expect(try Sweeper.lastSweep(of: cache.folder) == nil, "an eviction left a sweep record")
        #expect(scratch.leftovers().isEmpty)
    }
}
