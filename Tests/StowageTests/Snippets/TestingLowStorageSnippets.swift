import Foundation
import Testing
@testable import Stowage

/// The snippet of "Testing low storage" (TestingLowStorage.md). Compiled, not run: it would start
/// `./myapp`; RunningInARoomSnippets runs a room from a program.
enum TestingLowStorageSnippets {
    static func room() throws -> RoomReport {
        // snippet TestingLowStorage/program
        let plan = RoomPlan(available: .bytes(5_000_000), over: [URL(filePath: "/home/me/.cache/myapp")])
        let report = try RoomProcess.start(plan, command: ["./myapp", "--sync"]).wait()
        // end snippet
        return report
    }
}
