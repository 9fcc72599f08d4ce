import Foundation
import Testing

/// The test terminal's own waits: what they decide must be what the screen showed.
@Suite("Interactive terminal (test support)")
struct InteractiveTerminalTests {
    @Test("a wait whose deadline has passed still looks at the screen once: what it shows counts")
    func lateWaitLooksOnce() async throws {
        let terminal = try InteractiveTerminal(columns: 40, rows: 5)
        terminal.show("\u{1B}[1;1Hready\r\n")
        await terminal.waitFor(text: "ready")
        // A wait that gets its thread back only after its deadline (a loaded run: CI failed five
        // browser tests so, each quoting a screen that showed the awaited text).
        let screen = await terminal.waitFor(text: "ready", within: .zero)
        #expect(screen.contains("ready"))
    }

    @Test("a wait for what the screen never shows fails, quoting the screen")
    func missingTextFails() async throws {
        let terminal = try InteractiveTerminal(columns: 40, rows: 5)
        terminal.show("\u{1B}[1;1Hshown\r\n")
        await terminal.waitFor(text: "shown")
        await withKnownIssue("the screen never shows 'absent'") {
            await terminal.waitFor(text: "absent", within: .milliseconds(100))
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("never showed 'absent'") && $0.rawValue.contains("shown") }
        }
    }
}
