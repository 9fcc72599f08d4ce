import Foundation
import Testing
@testable import Stowage

/// A fill's goal at the ends of `Int64` (issue 30, item 11): `stowage fill --consume
/// 9223372036854775807` overflowed while rounding up to a block (SIGILL, exit 132).
@Suite("FillPlan goals at Int64's ends")
struct FillPlanLimitTests {
    static let available: Int64 = 1 << 30

    func target(_ goal: FillPlan.Goal) throws -> Int64 {
        try goal.targetAvailable(total: 1 << 40, available: Self.available, blockSize: 4096, path: "/volume")
    }

    @Test("consuming what is available, to the byte, leaves 0; a byte more (a block once rounded) is noSpace")
    func consumingAtAvailable() throws {
        #expect(try target(.consuming(Self.available)) == 0)
        #expect(try target(.consuming(Self.available - 4095)) == 0, "rounded up to a whole block")
        let error = try #require(throws: StowageError.self) { try target(.consuming(Self.available + 1)) }
        #expect(error.code == .noSpace)
        #expect(error.neededBytes == Self.available + 1 && error.availableBytes == Self.available)
    }

    @Test("consuming up to Int64.max is noSpace naming the bytes asked for, never an overflow",
          arguments: [Int64.max, Int64.max - 1, Int64.max - 4094, 1 << 62])
    func consumingAtTheEnd(bytes: Int64) throws {
        let error = try #require(throws: StowageError.self) { try target(.consuming(bytes)) }
        #expect(error.code == .noSpace)
        #expect(error.neededBytes == bytes && error.availableBytes == Self.available)
        #expect(error.reason == "cannot consume \(ByteCount(bytes)): only 1.1 GB is available")
    }
}
