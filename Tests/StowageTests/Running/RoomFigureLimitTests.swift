import Foundation
import Testing
@testable import Stowage

/// The figures a room is given, at and around the ends of `Int64` (issue 30, item 11): every one
/// is refused with `invalidArgument` naming the limit, never an arithmetic overflow (which ended
/// `stowage run` with SIGILL, exit 132).
@Suite("Room figures at Int64's ends")
struct RoomFigureLimitTests {
    static let largestBytes = RoomPlan.largestAvailableBytes
    static let largestInodes = RoomPlan.largestAvailableInodes

    @Test("a range up to the largest room is rooms; one byte (or inode) above is refused, naming the limit")
    func largestEnd() throws {
        let bytes = try RoomRange(bytes: 0...Self.largestBytes, step: Self.largestBytes / 4).rooms(blockSize: 4096)
        #expect(bytes.sizes == [0, 1 << 58, 1 << 59, 3 << 58, 1 << 60], "2^60 is a whole number of 4096-byte blocks")
        let inodes = try RoomRange(inodes: 0...Self.largestInodes, step: 1_000_000_000).rooms(blockSize: 4096)
        #expect(inodes.sizes == [0, 1_000_000_000, 2_000_000_000, 3_000_000_000, 4_000_000_000])
        let aboveBytes = try #require(throws: StowageError.self) {
            try RoomRange(bytes: 0...(Self.largestBytes + 1), step: 1 << 50).rooms(blockSize: 4096)
        }
        #expect(aboveBytes.code == .invalidArgument)
        #expect(aboveBytes.reason == "the range's high end: 1152921504606846977 bytes is more than the largest room, 1 EiB "
                + "(1152921504606846976 bytes)")
        let aboveInodes = try #require(throws: StowageError.self) {
            try RoomRange(inodes: 0...(Self.largestInodes + 1), step: 1 << 30).rooms(blockSize: 4096)
        }
        #expect(aboveInodes.reason == "the range's high end: 4000000001 inodes is more than a room's layer can have free, 4000000000")
    }

    @Test("ranges and steps at Int64.max are refused, not overflowed", arguments: [
        (0...Int64.max, nil), (0...Int64.max, Int64.max), (0...8_000_000_000_000_000_000, 4_000_000_000_000_000_000),
        (Int64.max...Int64.max, nil), ((Int64.max - 1)...Int64.max, 1), (0...(1 << 60), Int64.max),
        (0...(1 << 60), Int64.max - 4095), (0...4096, Int64.max),
    ] as [(ClosedRange<Int64>, Int64?)])
    func overflowingBytes(bounds: ClosedRange<Int64>, step: Int64?) throws {
        for blockSize: Int64 in [1, 4096, 1 << 40] {
            let error = try #require(throws: StowageError.self) { try RoomRange(bytes: bounds, step: step).rooms(blockSize: blockSize) }
            #expect(error.code == .invalidArgument, "\(error)")
        }
        let inodes = try #require(throws: StowageError.self) { try RoomRange(inodes: bounds, step: step).rooms(blockSize: 4096) }
        #expect(inodes.code == .invalidArgument, "\(inodes)")
    }

    @Test("a block as large as Int64 allows rounds without overflow")
    func hugeBlocks() throws {
        let error = try #require(throws: StowageError.self) { try RoomRange(bytes: 1...4096, step: nil).rooms(blockSize: Int64.max - 1) }
        #expect(error.reason == "the range 1..4096 bytes holds one room (9223372036854775806 bytes rounded up to whole blocks of "
                + "9223372036854775806 bytes); give ends further apart, or one size without ..")
        #expect(try RoomRange(bytes: 0...Self.largestBytes).rooms(blockSize: Int64.max).sizes == [0, Int64.max])
    }

    @Test("parsed ranges: the high end above the largest room, or past Int64, is refused where it is parsed", arguments: [
        ("0..9223372036854775807", RoomRange.Quantity.bytes, nil as String?,
         "the high end of '0..9223372036854775807': 9223372036854775807 bytes is more than the largest room, 1 EiB (1152921504606846976 bytes)"),
        ("0..8000PB", .bytes, "4EB", "the high end of '0..8000PB': 8000000000000000000 bytes is more than the largest room"),
        ("0..1EiB", .bytes, nil, nil),
        ("0..9223372036854775807", .inodes, "100000000000000",
         "the high end of '0..9223372036854775807': 9223372036854775807 inodes is more than a room's layer can have free, 4000000000"),
        ("0..9223372036854775808", .inodes, nil,
         "the high end of '0..9223372036854775808' is '9223372036854775808', more than a room's layer can have free, 4000000000"),
        ("0..4000000000", .inodes, "9223372036854775808",
         "the step is '9223372036854775808', more than a room's layer can have free, 4000000000"),
    ] as [(String, RoomRange.Quantity, String?, String?)])
    func parsed(text: String, quantity: RoomRange.Quantity, step: String?, reason: String?) throws {
        guard let reason else {
            #expect(try RoomRange(parsing: text, quantity: quantity, step: step).upperBound == Self.largestBytes)
            return
        }
        let error = try #require(throws: StowageError.self) { try RoomRange(parsing: text, quantity: quantity, step: step) }
        #expect(error.code == .invalidArgument)
        #expect(error.reason?.hasPrefix(reason) == true, "\(error.reason ?? "")")
    }

    @Test("a room's size: up to 1 EiB parses, one byte more is refused naming the limit")
    func roomSize() throws {
        #expect(try RoomPlan.Size(parsing: "1152921504606846976") == .bytes(Self.largestBytes))
        #expect(try RoomPlan.Size(parsing: "1EiB") == .bytes(Self.largestBytes))
        for text in ["1152921504606846977", "9223372036854775807", "8000PB", "2EiB"] {
            let error = try #require(throws: StowageError.self) { try RoomPlan.Size(parsing: text) }
            #expect(error.code == .invalidArgument)
            #expect(error.reason?.hasSuffix("is more than the largest room, 1 EiB (1152921504606846976 bytes)") == true, "\(error.reason ?? "")")
        }
    }

    @Test("a plan beyond the limits is refused before anything is made: bytes on ext4, inodes on both layers", arguments: [
        (RoomPlan.Size.bytes(Int64.max), RoomPlan.FileSystem.ext4, nil as Int64?),
        (.bytes(RoomPlan.largestAvailableBytes + 1), .ext4, nil),
        (.bytes(1_000_000), .tmpfs, Int64.max), (.bytes(1_000_000), .ext4, 36_028_797_018_963_968),
        (.bytes(1_000_000), .tmpfs, 9_223_372_036_854_775_000), (.bytes(1_000_000), .tmpfs, RoomPlan.largestAvailableInodes + 1),
    ] as [(RoomPlan.Size, RoomPlan.FileSystem, Int64?)])
    func planBeyondLimits(size: RoomPlan.Size, fileSystem: RoomPlan.FileSystem, inodes: Int64?) throws {
        let folder = TestFolder("room-limits")
        let plan = RoomPlan(available: size, over: [folder.url], fileSystem: fileSystem, availableInodes: inodes)
        let error = try #require(throws: StowageError.self) { try RoomSetup(plan: plan) }
        #expect(error.code == .invalidArgument, "\(error)")
        #expect(error.errno == nil, "a value the user gave: the command's status 64")
    }
}
