import Foundation
import Testing
@testable import Stowage

/// `RoomRange`: the rooms a range holds, exactly at its boundaries, and what it refuses.
@Suite("RoomRange")
struct RoomRangeTests {
    @Test("0..2MB in steps of 4KB: the step rounded up to a 4096-byte block, both ends included, each rounded up to a block")
    func issueExample() throws {
        let rooms = try RoomRange(parsing: "0..2MB", quantity: .bytes, step: "4KB").rooms(blockSize: 4096)
        #expect(rooms.step == 4096 && rooms.unit == 4096 && rooms.isStepRounded)
        #expect(rooms.sizes.first == 0 && rooms.sizes.last == 2_002_944, "2 MB is 488.3 blocks: rounded up to 489")
        #expect(rooms.sizes.count == 490)
        #expect(zip(rooms.sizes, rooms.sizes.dropFirst()).allSatisfy { $1 - $0 == 4096 })
    }

    @Test("the high end is a room even when the step does not reach it exactly: the last step is shorter")
    func lastStepShorter() throws {
        let rooms = try RoomRange(bytes: 0...40_960, step: 12_288).rooms(blockSize: 4096)
        #expect(rooms.sizes == [0, 12_288, 24_576, 36_864, 40_960])
        #expect(!rooms.isStepRounded)
        #expect(try RoomRange(bytes: 4096...12_288).rooms(blockSize: 4096).sizes == [4096, 8192, 12_288], "one block by default")
    }

    @Test("a step equal to the range holds the two ends; one byte more is refused")
    func stepAtTheRange() throws {
        #expect(try RoomRange(bytes: 0...8192, step: 8192).rooms(blockSize: 4096).sizes == [0, 8192])
        let error = try #require(throws: StowageError.self) { try RoomRange(bytes: 0...8192, step: 8193).rooms(blockSize: 4096) }
        #expect(error.code == .invalidArgument)
        #expect(error.reason == "the step (12288 bytes) is larger than the range (0 to 8192 bytes): it would hold the two ends only; give a smaller step")
    }

    @Test("inodes: whole numbers, one inode apart by default")
    func inodes() throws {
        let rooms = try RoomRange(parsing: "0..10", quantity: .inodes).rooms(blockSize: 4096)
        #expect(rooms.sizes == Array(0...10) && rooms.unit == 1 && rooms.step == 1)
        #expect(try RoomRange(parsing: "3..9", quantity: .inodes, step: "4").rooms(blockSize: 4096).sizes == [3, 7, 9])
    }

    @Test("at most 100,000 rooms: exactly that many is a range, one more is refused")
    func roomLimit() throws {
        #expect(try RoomRange(inodes: 0...99_999).rooms(blockSize: 4096).sizes.count == RoomRange.roomLimit)
        let error = try #require(throws: StowageError.self) { try RoomRange(inodes: 0...100_000).rooms(blockSize: 4096) }
        #expect(error.reason == "the range holds 100001 rooms, more than 100000; give a larger step or a narrower range")
    }

    @Test("bad ranges are refused, saying what is wrong", arguments: [
        ("2MB..1MB", nil, "the range '2MB..1MB' goes down: its low end is above its high end (give LOW..HIGH)"),
        ("0..", nil, "'0..' lacks an end: a range needs both, LOW..HIGH, as in 0..2MB"),
        ("..1MB", nil, "'..1MB' lacks an end: a range needs both, LOW..HIGH, as in 0..2MB"),
        ("1MB..2MB..3MB", nil, "'1MB..2MB..3MB' is not a range: give LOW..HIGH, as in 0..2MB"),
        ("1%..2%", nil, "the low end of '1%..2%' is '1%', a percentage; a range's ends and step are sizes, such as 2MB"),
        ("0..1MB", "0", "the step cannot be 0"),
        ("0..1MB", "-4KB", "the step: "),
        ("abc..1MB", nil, "the low end of 'abc..1MB': "),
    ] as [(String, String?, String)])
    func refused(text: String, step: String?, reason: String) throws {
        let error = try #require(throws: StowageError.self) { try RoomRange(parsing: text, quantity: .bytes, step: step) }
        #expect(error.code == .invalidArgument)
        #expect(error.reason?.hasPrefix(reason) == true, "\(error.reason ?? "")")
    }

    @Test("ends that round up to the same block make one room: refused")
    func oneRoom() throws {
        let error = try #require(throws: StowageError.self) { try RoomRange(bytes: 4000...4096).rooms(blockSize: 4096) }
        #expect(error.reason == "the range 4000..4096 bytes holds one room (4096 bytes rounded up to whole blocks of 4096 bytes); "
                + "give ends further apart, or one size without ..")
        #expect(throws: StowageError.self) { try RoomRange(parsing: "5..5", quantity: .inodes).rooms(blockSize: 4096) }
        #expect(throws: StowageError.self) { try RoomRange(parsing: "-1..5", quantity: .inodes) }
    }
}

/// `RoomRangeRun` on real mounts: every size is a fresh room over the same folders, the check
/// sees the command's writes with the limit lifted, the real folders never change.
@Suite("RoomRangeRun")
struct RoomRangeRunTests {
    /// Writes `bytes` bytes to `out.bin` in the folder; the check passes when the file holds them all.
    static func writer(_ fixture: RoomFixture, bytes: Int) -> (command: RoomCommand, check: RoomCommand) {
        (RoomCommand(["/bin/sh", "-c", "head -c \(bytes) /dev/zero > \"$0/out.bin\"", fixture.realPath]),
         RoomCommand(["/bin/sh", "-c", "test \"$(stat -c %s \"$0/out.bin\")\" = \(bytes)", fixture.realPath]))
    }

    @Test("a write of 10,000 bytes fails its check in exactly the rooms under 3 blocks, and every room is its size")
    func failsAtExactlyThoseSizes() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        let (command, check) = Self.writer(fixture, bytes: 10_000)
        let run = try RoomRangeRun(plan: RoomPlan(available: .bytes(0), over: [fixture.real]), range: RoomRange(bytes: 0...65_536),
                                   command: command, check: check)
        var seen: [Int64] = []
        let report = try run.runEverySize { seen.append($0.size) }
        #expect(seen == Array(stride(from: 0, through: 65_536, by: 4096)), "both ends, every block between")
        #expect(report.failedTrials.map(\.size) == [0, 4096, 8192])
        #expect(report.trials.filter(\.hasCommandSucceeded).map(\.size) == Array(stride(from: 12_288, through: 65_536, by: 4096)))
        #expect(report.trials.allSatisfy { $0.room.availableBytes == $0.size }, "each room is exactly its size")
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.realPath).isEmpty)
        #expect(try hostRoomMounts().isEmpty)
    }

    @Test("the real folder is unchanged after 300 rooms that append to, remove and create its files",
          .long("a range of 300 rooms"))
    func realFolderUnchanged() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        try Data(repeating: 7, count: 50_000).write(to: fixture.real.appending(path: "kept.bin"))
        try Data("note".utf8).write(to: fixture.real.appending(path: "note.txt"))
        try FileManager.default.createDirectory(at: fixture.real.appending(path: "sub"), withIntermediateDirectories: true)
        try Data("deep".utf8).write(to: fixture.real.appending(path: "sub/deep.txt"))
        let before = try fixture.folder.snapshot("real")
        let command = RoomCommand(["/bin/sh", "-c", """
            cd "$0" || exit 9
            echo more >> kept.bin; rm -f note.txt; echo x > sub/deep.txt; mkdir -p new/deeper; head -c 20000 /dev/zero > new/deeper/f
            """, fixture.realPath])
        let check = RoomCommand(["/bin/sh", "-c", "cd \"$0\" && test ! -e note.txt && test -d new/deeper", fixture.realPath])
        let run = try RoomRangeRun(plan: RoomPlan(available: .bytes(0), over: [fixture.real]),
                                   range: RoomRange(bytes: 0...(299 * 4096)), command: command, check: check)
        let report = try run.runEverySize()
        #expect(report.trials.count == 300)
        #expect(report.failedTrials.isEmpty, "the check saw the command's removal and folders in every room")
        let after = try fixture.folder.snapshot("real")
        print("real folder: \(before.count) items, snapshot hash \(before.hashValue) before, \(after.hashValue) after 300 rooms")
        #expect(after == before, "contents, modes, inodes and times of every item")
        #expect(try hostRoomMounts().isEmpty)
    }

    @Test("nothing of the host is reachable through /proc in a range's rooms: no descriptor of any process there is a folder, the real folder unchanged")
    func noEscapeThroughProc() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        let probe = try fixture.escapeProbe()
        let run = try RoomRangeRun(plan: RoomPlan(available: .bytes(0), over: [fixture.real]), range: RoomRange(bytes: 4096...12_288),
                                   command: RoomCommand(probe.command), check: RoomCommand(probe.command))
        #expect(try run.runEverySize().trials.count == 3)
        try probe.check(6)  // the command and the check in every room
        #expect(try hostRoomMounts().isEmpty)
    }

    @Test("the check sees the command's writes, with the limit lifted, and is told the command's status")
    func checkInTheSameRoom() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        let out = fixture.folder.file("out/check.txt").fileSystemPath
        let command = RoomCommand(["/bin/sh", "-c", "echo made > \"$0/made.txt\"; exit 3", fixture.realPath])
        // 1 MB in a 4 KB room: only a lifted limit lets the check write it.
        let check = RoomCommand(["/bin/sh", "-c", "cat \"$0/made.txt\" >> \"$1\" && head -c 1000000 /dev/zero > \"$0/big\" "
                                    + "&& echo \"status=$STOWAGE_COMMAND_STATUS\" >> \"$1\"", fixture.realPath, out])
        let run = try RoomRangeRun(plan: RoomPlan(available: .bytes(0), over: [fixture.real]), range: RoomRange(bytes: 4096...8192),
                                   command: command, check: check)
        let report = try run.runEverySize()
        #expect(report.trials.map(\.commandEnding) == [.exited(3), .exited(3)])
        #expect(report.failedTrials.isEmpty)
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "made\nstatus=3\nmade\nstatus=3\n")
    }

    @Test("each room starts empty: what one room's command wrote is not in the next")
    func freshRooms() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        let command = RoomCommand(["/bin/sh", "-c", "test ! -e \"$0/mark\" && touch \"$0/mark\"", fixture.realPath])
        let run = try RoomRangeRun(plan: RoomPlan(available: .bytes(0), over: [fixture.real]),
                                   range: RoomRange(bytes: 4096...(40 * 4096)), command: command)
        let report = try run.runEverySize()
        #expect(report.trials.count == 40 && report.trials.allSatisfy(\.hasCommandSucceeded))
    }

    @Test("the minimum for a write of 100,000 bytes is 25 blocks exactly, confirmed at 25 and 24")
    func minimumExact() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        let (command, _) = Self.writer(fixture, bytes: 100_000)
        let run = try RoomRangeRun(plan: RoomPlan(available: .bytes(0), over: [fixture.real]), range: RoomRange(bytes: 0...(1 << 20)),
                                   command: command)
        let report = try run.findMinimum()
        let blocks: (minimum: Int64, below: Int64) = (25 * 4096, 24 * 4096)
        #expect(report.minimum == blocks.minimum)
        #expect(report.isConfirmed)
        #expect(report.confirmation?.atMinimum.size == blocks.minimum && report.confirmation?.belowMinimum?.size == blocks.below)
        print("minimum search: \(report.trials.count) rooms for \(1 << 20 / 4096 + 1) sizes: \(report.trials.map(\.size))")
        #expect(report.trials.count <= 13, "bisection: the ends, log2(257) halvings, the two confirmations")
    }

    @Test("ends that are not whole blocks: the bisection tries whole blocks only, each room its size, and finds 25 blocks in 1 byte..100 blocks + 1 byte")
    func minimumOverUnalignedEnds() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        let (command, _) = Self.writer(fixture, bytes: 100_000)
        // 4096..413696 once rounded up: 100 blocks apart, so the halvings meet odd gaps (25, 7 blocks).
        let run = try RoomRangeRun(plan: RoomPlan(available: .bytes(0), over: [fixture.real]), range: RoomRange(bytes: 1...(100 * 4096 + 1)),
                                   command: command)
        let report = try run.findMinimum()
        print("minimum search over unaligned ends: \(report.trials.map(\.size))")
        #expect(report.trials.allSatisfy { $0.size % 4096 == 0 }, "every room tried is whole blocks: \(report.trials.map(\.size))")
        #expect(report.trials.allSatisfy { $0.room.availableBytes == $0.size }, "each room is exactly its size")
        #expect(report.trials.prefix(2).map(\.size) == [4096, 101 * 4096], "the ends, rounded up to blocks")
        #expect(report.minimum == 25 * 4096 && report.isConfirmed)
        #expect(report.confirmation?.belowMinimum?.size == Int64(24 * 4096))
    }

    @Test("a minimum of exactly one block is confirmed against an empty room, which is run and fails")
    func minimumOfOneBlock() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        let command = RoomCommand(["/bin/sh", "-c", "echo x > \"$0/one\"", fixture.realPath])
        let report = try RoomRangeRun(plan: RoomPlan(available: .bytes(0), over: [fixture.real]), range: RoomRange(bytes: 0...65_536),
                                      command: command).findMinimum()
        #expect(report.minimum == 4096)
        let below = try #require(report.confirmation?.belowMinimum, "one block below a minimum of one block is the empty room")
        #expect(below.size == 0 && below.room.availableBytes == 0 && !below.isSuccess)
        #expect(report.isConfirmed)
    }

    @Test("a command that needs no room: 0 is its minimum, with nothing below; from one block up, the empty room is run and succeeds: not confirmed")
    func minimumOfZero() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        let plan = RoomPlan(available: .bytes(0), over: [fixture.real])
        let zero = try RoomRangeRun(plan: plan, range: RoomRange(bytes: 0...8192), command: RoomCommand(["/bin/true"])).findMinimum()
        #expect(zero.minimum == 0 && zero.isConfirmed)
        #expect(zero.trials.map(\.size) == [0, 0], "the low end, then once more to confirm; nothing below 0")
        #expect(zero.confirmation?.belowMinimum == nil)
        let fromOne = try RoomRangeRun(plan: plan, range: RoomRange(bytes: 4096...8192), command: RoomCommand(["/bin/true"])).findMinimum()
        #expect(fromOne.minimum == 4096)
        #expect(fromOne.confirmation?.belowMinimum?.size == 0 && fromOne.confirmation?.belowMinimum?.isSuccess == true)
        #expect(!fromOne.isConfirmed, "an empty room is enough: 4096 is the low end, not the minimum")
    }

    @Test("any range can be searched: 0..1 GiB holds 262,145 rooms, more than a run over every size takes, and the bisection runs 23 at most")
    func minimumOverAnyRange() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        let (command, _) = Self.writer(fixture, bytes: 100_000)
        let range = RoomRange(bytes: 0...(1 << 30))
        #expect(throws: StowageError.self, "every size: over the room limit") { try range.rooms(blockSize: 4096) }
        let report = try RoomRangeRun(plan: RoomPlan(available: .bytes(0), over: [fixture.real]), range: range, command: command).findMinimum()
        #expect(report.minimum == 25 * 4096 && report.isConfirmed)
        print("minimum search over 0..1 GiB: \(report.trials.count) rooms")
        #expect(report.trials.count <= 2 + 18 + 2, "the ends, log2(262,144) halvings, the two confirmations")
        let everySize = try RoomRangeRun(plan: RoomPlan(available: .bytes(0), over: [fixture.real]), range: range, command: command)
        #expect(throws: StowageError.self, "a run over every size is still limited") { try everySize.runEverySize() }
    }

    @Test("the minimum of free inodes for three new files is 3; none in the range gives nil")
    func minimumInodes() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        let command = RoomCommand(["/bin/sh", "-c", "cd \"$0\" && touch a b c", fixture.realPath])
        let plan = RoomPlan(available: .bytes(4096), over: [fixture.real])
        let found = try RoomRangeRun(plan: plan, range: RoomRange(inodes: 0...10), command: command).findMinimum()
        #expect(found.minimum == 3 && found.isConfirmed)
        #expect(found.trials.allSatisfy { $0.room.availableInodeCount == $0.size })
        let none = try RoomRangeRun(plan: plan, range: RoomRange(inodes: 0...2), command: command).findMinimum()
        #expect(none.minimum == nil && !none.isConfirmed)
        #expect(none.trials.map(\.size) == [0, 2], "the low end, then the high end: no search")
    }

    @Test("cancel() stops the range: the run throws CancellationError, its processes and mounts are gone")
    func cancel() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        let started = fixture.folder.file("out/started").fileSystemPath
        let command = RoomCommand(["/bin/sh", "-c", "echo $$ >> \"$0\"; sleep 3600", started])
        let run = try RoomRangeRun(plan: RoomPlan(available: .bytes(0), over: [fixture.real]), range: RoomRange(bytes: 0...(10 * 4096)),
                                   command: command)
        // A thread of its own: the run blocks until its rooms are done (never on the cooperative pool).
        let outcome = RangeOutcome()
        let thread = Thread {
            do {
                _ = try run.runEverySize()
                outcome.set("finished")
            } catch is CancellationError {
                outcome.set("cancelled")
            } catch {
                outcome.set("\(error)")
            }
        }
        thread.start()
        for _ in 0..<2_400 where !FileManager.default.fileExists(atPath: started) { Thread.sleep(forTimeInterval: 0.05) }
        #expect(FileManager.default.fileExists(atPath: started), "the first room's command started")
        run.cancel()
        #expect(outcome.wait(seconds: 120) == "cancelled")
        #expect(try hostRoomMounts().isEmpty)
        #expect(try String(contentsOfFile: started, encoding: .utf8).split(separator: "\n").count == 1, "no second room")
    }

    @Test("ext4 and drops are refused for a range")
    func refusedPlans() throws {
        let fixture = try RoomFixture()
        let command = RoomCommand(["/bin/true"])
        let ext4 = try #require(throws: StowageError.self) {
            try RoomRangeRun(plan: RoomPlan(available: .bytes(0), over: [fixture.real], fileSystem: .ext4),
                             range: RoomRange(bytes: 0...8192), command: command)
        }
        #expect(ext4.code == .invalidArgument)
        let drop = try #require(throws: StowageError.self) {
            try RoomRangeRun(plan: RoomPlan(available: .bytes(0), over: [fixture.real], drop: .init(to: .bytes(0), after: .seconds(1))),
                             range: RoomRange(bytes: 0...8192), command: command)
        }
        #expect(drop.code == .invalidArgument)
    }
}

/// What a run on another thread ended with.
final class RangeOutcome: @unchecked Sendable {
    // `@unchecked Sendable`: `value` is read and written only under `condition`.
    private let condition = NSCondition()
    private var value: String?

    func set(_ text: String) {
        condition.withLock {
            value = text
            condition.broadcast()
        }
    }

    /// The outcome, or `nil` when none came within `seconds`.
    func wait(seconds: Double) -> String? {
        let deadline = Date.now.addingTimeInterval(seconds)
        return condition.withLock {
            while value == nil, condition.wait(until: deadline) {}
            return value
        }
    }
}
