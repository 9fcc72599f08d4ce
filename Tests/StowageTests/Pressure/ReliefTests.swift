import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

@Suite("Pressure relief", .serialized)
struct ReliefTests {
    @Test("relief frees tmp first, then caches LRU, then purgeable files; stops once the target is met")
    func reliefOrder() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data(count: 8192), to: "t1", in: .temporary)
        for index in 0..<5 { try store.save(Data(count: 4096), to: "c\(index)", in: .caches) }
        try store.save(Data(count: 4096), to: "precious.doc", in: .documents)
        try store.save(Data(count: 4096), to: "maps.pack", in: .applicationSupport)
        try store.mark("maps.pack", in: .applicationSupport, .purgeable)
        let capacity = try store.container.capacity()
        // Pretend 4 KiB are available and ask for 4 + 8 (tmp) + 8 (two caches) KiB.
        let report = try SimulatedCapacity.withFigures(available: 4096, total: ByteCount(capacity.totalBytes)) {
            try store.container.relieve(toAvailableBytes: 4096 + 16_384, dryRun: false)
        }
        #expect(report.isSimulated)
        #expect(report.neededBytes == 16_384)
        #expect(report.isSatisfied)
        #expect(report.steps.map(\.location) == [.temporary, .caches])
        #expect(report.steps[0].report.removed.map(\.path) == ["t1"])
        #expect(report.steps[1].report.removed.count == 2)
        #expect(try store.exists("precious.doc", in: .documents))
        #expect(try store.exists("maps.pack", in: .applicationSupport))

        let more = try SimulatedCapacity.withFigures(available: 0, total: ByteCount(capacity.totalBytes)) {
            try store.container.relieve(toAvailableBytes: 4 * 4096 + 4096, dryRun: true)
        }
        #expect(more.steps.filter { !$0.report.removed.isEmpty }.map(\.location) == [.caches, .applicationSupport])
        #expect(more.steps.last?.report.removed.map(\.path) == ["maps.pack"], "purgeable files go last")
        #expect(!more.steps.contains { $0.location == .documents && !$0.report.removed.isEmpty }, "unmarked documents never go")
        #expect(try store.exists("c4", in: .caches), "a dry run removes nothing")
        let none = try SimulatedCapacity.withFigures(available: 1_000_000, total: ByteCount(capacity.totalBytes)) {
            try store.container.relieve(toAvailableBytes: 1000)
        }
        #expect(none.steps.isEmpty && none.neededBytes == 0)
    }
}
