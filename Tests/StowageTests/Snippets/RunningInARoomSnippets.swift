import Foundation
import Testing
@testable import Stowage

/// The snippet of "Low storage for one command" (RunningInARoom.md), run in a room over a folder
/// of the test's own (skipped, saying why, where rooms cannot be made).
@Suite("Snippets: Low storage for one command")
struct RunningInARoomSnippets {
    static func room(project: URL) async throws -> (Room, RoomReport, [String]) {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet RunningInARoom/program
        let plan = RoomPlan(available: .bytes(5_000_000), over: [project])
        let output = project.appending(path: "big.bin").path(percentEncoded: false)
        let process = try RoomProcess.start(plan, command: ["dd", "if=/dev/zero", "of=\(output)", "bs=1000000", "count=6"])
        print(process.room.availableBytes)   // 5001216: 5 MB, rounded up to a 4 KiB page
        let report = try await process.wait()
        print(report.ending)                 // exited(1): dd met "No space left on device" after 5 MB
        // end snippet
        return (process.room, report, printed)
    }

    @Test("dd fails on the full room, and nothing it wrote is left in the real folder")
    func room() async throws {
        try requireRooms()
        _ = try requireTool("dd")
        let folder = TestFolder("snippet-room")
        let project = folder.file("project")
        try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
        let (room, report, printed) = try await Self.room(project: project)
        #expect(room.availableBytes == 5_001_216)
        #expect(printed == ["5001216", "exited(1)"])
        #expect(report.ending == .exited(1))
        #expect(!folder.exists("project/big.bin"))
    }
}
