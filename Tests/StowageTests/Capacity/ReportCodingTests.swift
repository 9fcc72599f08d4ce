import Foundation
import Testing
@testable import Stowage

/// The reports' JSON names (the vocabulary of the README's "JSON output"), and that what is
/// encoded decodes back unchanged.
@Suite("Report coding")
struct ReportCodingTests {
    @Test("VolumeCapacity: Bytes and Count names, null for what the system does not tell, usedBytes written, round trip")
    func volumeCapacity() throws {
        let capacity = VolumeCapacity(
            statistics: VolumeStatistics(blockSize: 4096, total: 40_960, available: 8192, free: 12_288, device: 1,
                                         mountPoint: nil, fileSystemType: "tmpfs", totalInodes: nil, availableInodes: nil),
            path: "/v", reclaimable: 4096, simulated: nil)
        let object = try Self.object(capacity)
        #expect(object["totalBytes"] as? Int == 40_960 && object["availableBytes"] as? Int == 8192)
        #expect(object["usedBytes"] as? Int == 28_672 && object["blockSizeBytes"] as? Int == 4096)
        #expect(object["mountPoint"] is NSNull && object["totalInodeCount"] is NSNull, "\(object)")
        #expect(object["isSimulated"] as? Bool == false)
        #expect(try JSONDecoder().decode(VolumeCapacity.self, from: JSONEncoder().encode(capacity)) == capacity)
    }

    @Test("FillProgress: remainingSeconds is null until there is a rate; round trip")
    func fillProgress() throws {
        let progress = FillProgress(filledBytes: 1, availableBytes: 2, targetAvailableBytes: 0, bytesPerSecond: 0,
                                    remainingSeconds: nil, elapsedSeconds: 0.5)
        #expect(try Self.object(progress)["remainingSeconds"] is NSNull)
        #expect(try JSONDecoder().decode(FillProgress.self, from: JSONEncoder().encode(progress)) == progress)
    }

    @Test("SweepRecord: written as removedFileCount, and a record written under the earlier name still reads")
    func sweepRecord() throws {
        let record = SweepRecord(date: Date(timeIntervalSince1970: 1_000), removedFileCount: 3, freedAllocatedBytes: 4096)
        #expect(try Self.object(record)["removedFileCount"] as? Int == 3)
        #expect(try JSONDecoder().decode(SweepRecord.self, from: JSONEncoder().encode(record)) == record)
        let earlier = Data(#"{"date": 1000, "removedFiles": 3, "freedAllocatedBytes": 4096}"#.utf8)
        #expect(try JSONDecoder().decode(SweepRecord.self, from: earlier).removedFileCount == 3)
    }

    static func object(_ value: some Encodable) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
    }
}
