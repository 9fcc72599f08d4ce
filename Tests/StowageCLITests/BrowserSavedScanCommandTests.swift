import Foundation
import Stowage
import StowageTestSupport
import Testing

/// The usage browser over saved scans: `stowage usage --import FILE --interactive` (the saved
/// tree, never the disk: `d` and `r` refused) and `stowage usage --compare OLD [NEW|PATH]
/// --interactive` (the "changed since" mode), in a real pseudo-terminal as
/// ``BrowserCommandTests``: keys typed in, the screen read back, the terminal's modes compared
/// before and after. Scratch trees only.
@Suite("Usage browser: saved scans and what changed", .hangLimit)
struct BrowserSavedScanCommandTests {
    static let left = BrowserCommandTests.left

    /// The time a saved scan says it was taken, as the title bar writes it (`2026-11-28 16:03 UTC`).
    static func takenAt(_ file: String) throws -> String {
        let text = try String(contentsOf: URL(filePath: file), encoding: .isoLatin1)
        let match = try #require(text.firstMatch(of: /"timestamp":(\d+)/))
        let date = Date(timeIntervalSince1970: try #require(Double(String(match.1))))
        return String(ISO8601DateFormatter().string(from: date).prefix(16)).replacing("T", with: " ") + " UTC"
    }

    /// The rows of the "changed since" mode (between the title and the status bar): each row's
    /// name (its last word) with the whole row.
    static func changes(_ screen: ScreenText) -> [(name: String, row: String)] {
        screen.lines.dropFirst().dropLast().compactMap { line in
            let words = line.split(separator: " ")
            guard words.contains(where: { ["added", "removed", "grown", "shrunk", "rearranged"].contains($0) }), let name = words.last else { return nil }
            return (String(name), line)
        }
    }

    static func write(kib: Int, to path: String) throws {
        try Data(repeating: 5, count: kib * 1024).write(to: URL(filePath: path))
    }

    /// Changes ``BrowserCommandTests/makeTree(in:)``'s tree in known ways: `big/a` grown by 200
    /// KiB, `big/b` shrunk by 28 KiB (`big/` grown by 172 KiB), `medium` (48 KiB) removed,
    /// `aardvark` (20 KiB) added; `small/`, `big/inner/` and `odd\xffname` as they were.
    static func change(_ root: String) throws {
        try write(kib: 264, to: root + "/big/a")
        try write(kib: 4, to: root + "/big/b")
        try FileManager.default.removeItem(atPath: root + "/medium")
        try write(kib: 20, to: root + "/aardvark")
    }

    @Test("--import FILE --interactive browses the saved scan, not the disk: the title says so and when; descends and sorts; d and r refused")
    func browsesSavedScan() async throws {
        let runner = try CommandRunner()
        let root = try BrowserCommandTests.makeTree(in: runner)
        let file = runner.folderPath + "/saved.json"
        let saved = try await runner.run("usage", root, "--export", file)
        #expect(saved.status == 0, "\(saved.error)")
        // The disk moves on; the saved scan does not.
        try FileManager.default.removeItem(atPath: root + "/medium")
        let terminal = try InteractiveTerminal(columns: 200, rows: 16)
        let modes = terminal.modes
        let process = try terminal.start(runner, ["usage", "--import", file, "--interactive"])
        var screen = await terminal.waitFor(text: "big/")
        #expect(screen.lines[0].contains("saved scan taken \(try Self.takenAt(file))  \(root)"), "\(screen.lines[0])")
        #expect(BrowserCommandTests.names(screen) == ["big/", "medium", "odd\\xffname", "small/"])
        terminal.type("m")
        screen = await terminal.waitFor(text: "Sort: time")
        #expect(BrowserCommandTests.names(screen) == ["medium", "odd\\xffname", "small/", "big/"])  // the times the file carries
        terminal.type("n")
        screen = await terminal.waitFor(text: "Sort: name")
        terminal.type("g\r")
        screen = await terminal.waitFor(text: root + "/big")
        #expect(BrowserCommandTests.names(screen) == ["a", "b", "inner/"])
        terminal.type("d")
        screen = await terminal.waitFor(text: "A saved scan: nothing is deleted")
        #expect(!screen.contains("[y/N]"))
        terminal.type("y")  // no question was asked: nothing to say yes to
        terminal.type("r")
        screen = await terminal.waitFor(text: "A saved scan: nothing is scanned again")
        #expect(FileManager.default.fileExists(atPath: root + "/big/a"))
        terminal.type("?")
        screen = await terminal.waitFor(text: "keys")
        #expect(screen.contains("not in a saved scan: it is not the disk"))
        terminal.type(" " + Self.left)
        screen = await terminal.waitFor("the saved root again") { $0.lines[0].hasSuffix(root) }
        #expect(BrowserCommandTests.names(screen).contains("medium"), "the saved scan still lists what the disk lost")
        try await BrowserCommandTests.quit(terminal, process, modes: modes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/big").sorted() == ["a", "b", "inner"])
    }

    @Test("--interactive refuses a saved scan from standard input (the keys come from there) and --export (it saves without browsing): 64")
    func refusesStandardInputAndExport() async throws {
        let runner = try CommandRunner()
        let root = try BrowserCommandTests.makeTree(in: runner)
        let file = runner.folderPath + "/saved.json"
        await #expect(try runner.run("usage", root, "--export", file).status == 0)
        for arguments in [["usage", "--import", "-", "--interactive"], ["usage", "--compare", "-", root, "--interactive"],
                          ["usage", "--compare", file, "-", "--interactive"]] {
            let result = try await runner.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.error.contains("reads its keys from the terminal on standard input"), "\(arguments): \(result.error)")
        }
        let export = try await runner.run("usage", root, "--export", runner.folderPath + "/again.json", "--interactive")
        #expect(export.status == 64)
        #expect(export.error.contains("as ncdu -o does"), "\(export.error)")
        #expect(!FileManager.default.fileExists(atPath: runner.folderPath + "/again.json"))
    }

    @Test("--compare OLD PATH --interactive: added, removed, grown and shrunk, the largest change first; sorts; descends; d deletes on the live side and compares again")
    func browsesChangesSinceLive() async throws {
        let runner = try CommandRunner()
        let root = try BrowserCommandTests.makeTree(in: runner)
        let old = runner.folderPath + "/old.json"
        await #expect(try runner.run("usage", root, "--export", old).status == 0)
        try Self.change(root)
        let terminal = try InteractiveTerminal(columns: 160, rows: 14)
        let modes = terminal.modes
        let process = try terminal.start(runner, ["usage", "--compare", old, root, "--interactive"])
        var screen = await terminal.waitFor(text: "Sort: change")
        #expect(screen.lines[0].contains("changes since \(try Self.takenAt(old))  \(root)"), "\(screen.lines[0])")
        var rows = Self.changes(screen)
        // Only what changed, by the size of the change (gained or lost): +176.1 kB, -49.2 kB, +20.5 kB.
        #expect(rows.map(\.name) == ["big/", "medium", "aardvark"])
        #expect(rows.count == 3 && rows[0].row.contains("+176.1 kB") && rows[0].row.contains("grown"), "\(rows)")
        #expect(rows.count == 3 && rows[1].row.contains("-49.2 kB") && rows[1].row.contains("-1  removed") && rows[1].row.contains(" -  "), "\(rows)")
        #expect(rows.count == 3 && rows[2].row.contains("+20.5 kB") && rows[2].row.contains("+1  added"), "\(rows)")
        #expect(screen.contains("Change +147.5 kB allocated"), "the root: +176.1 - 49.2 + 20.5 kB")
        terminal.type("c")
        screen = await terminal.waitFor(text: "Sort: change, reversed")
        #expect(Self.changes(screen).map(\.name) == ["aardvark", "medium", "big/"])
        terminal.type("n")
        screen = await terminal.waitFor(text: "Sort: name")
        #expect(Self.changes(screen).map(\.name) == ["aardvark", "big/", "medium"])
        terminal.type("s")
        screen = await terminal.waitFor(text: "Sort: size  ")
        #expect(Self.changes(screen).map(\.name) == ["big/", "aardvark", "medium"])  // sizes now: 284 KiB and more, 20 KiB, none
        terminal.type("c")
        screen = await terminal.waitFor(text: "Sort: change  ")
        // What is not on disk any more is not deleted.
        terminal.type("gjd")
        screen = await terminal.waitFor(text: "'medium' was removed since the old scan: nothing to delete")
        // Into the grown folder: its grown and shrunk files, not the unchanged inner/.
        terminal.type("g\r")
        screen = await terminal.waitFor(text: root + "/big")
        rows = Self.changes(screen)
        #expect(rows.map(\.name) == ["a", "b"])
        #expect(rows.count == 2 && rows[0].row.contains("+204.8 kB") && rows[0].row.contains("grown") && rows[0].row.contains("270.3 kB"), "\(rows)")
        #expect(rows.count == 2 && rows[1].row.contains("-28.7 kB") && rows[1].row.contains("shrunk"), "\(rows)")
        // d on the live side: the same question and removal walk as the browser's; then the
        // changes are made again from a new scan, in the same folder: b now removed since.
        terminal.type("jd")
        screen = await terminal.waitFor(text: "Delete 'b', 4.1 kB? [y/N]")
        terminal.type("y")
        screen = await terminal.waitFor(text: "Deleted b: 1 file, 4.1 kB freed")
        #expect(!FileManager.default.fileExists(atPath: root + "/big/b"))
        #expect(screen.lines[0].hasSuffix(root + "/big"), "\(screen.lines[0])")
        rows = Self.changes(screen)
        #expect(rows.map(\.name) == ["a", "b"])
        #expect(rows.count == 2 && rows[1].row.contains("-32.8 kB") && rows[1].row.contains("removed"), "\(rows)")
        try await BrowserCommandTests.quit(terminal, process, modes: modes)
    }

    @Test("--compare OLD NEW --interactive between two saved scans: the same changes; d and r refused, nothing removed")
    func browsesChangesBetweenSavedScans() async throws {
        let runner = try CommandRunner()
        let root = try BrowserCommandTests.makeTree(in: runner)
        let old = runner.folderPath + "/old.json", new = runner.folderPath + "/new.json"
        await #expect(try runner.run("usage", root, "--export", old).status == 0)
        try Self.change(root)
        await #expect(try runner.run("usage", root, "--export", new).status == 0)
        let terminal = try InteractiveTerminal(columns: 160, rows: 14)
        let modes = terminal.modes
        let process = try terminal.start(runner, ["usage", "--compare", old, new, "--interactive"])
        var screen = await terminal.waitFor(text: "Sort: change")
        #expect(Self.changes(screen).map(\.name) == ["big/", "medium", "aardvark"])
        terminal.type("gjjd")
        screen = await terminal.waitFor(text: "Two saved scans: nothing is deleted")
        terminal.type("y")
        terminal.type("r")
        screen = await terminal.waitFor(text: "Two saved scans: nothing is scanned again")
        #expect(FileManager.default.fileExists(atPath: root + "/aardvark"))
        terminal.type("g\r")
        screen = await terminal.waitFor(text: root + "/big")
        #expect(Self.changes(screen).map(\.name) == ["a", "b"])
        try await BrowserCommandTests.quit(terminal, process, modes: modes)
    }
}
