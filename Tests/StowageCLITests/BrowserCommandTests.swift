import Foundation
import Stowage
import StowageTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `stowage usage --interactive` and `stowage locations --interactive` in a real
/// pseudo-terminal: keys typed in, the screen read back as text, the terminal's modes compared
/// before and after. Scratch trees only.
@Suite("Usage browser", .hangLimit)
struct BrowserCommandTests {
    static let up = "\u{1B}[A", down = "\u{1B}[B", right = "\u{1B}[C", left = "\u{1B}[D"

    /// A tree of known sizes: `big/` (three files of 64, 32 and 16 KiB), `medium` (48 KiB),
    /// `small/` (one of 4 KiB), `odd\xffname` (a name that is not UTF-8, 8 KiB).
    static func makeTree(in runner: CommandRunner) throws -> String {
        let root = runner.folderPath + "/tree"
        for folder in ["big/inner", "small"] { try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true) }
        func file(_ path: String, kib: Int, modified: Double) throws {
            try Data(repeating: 7, count: kib * 1024).write(to: URL(filePath: root + "/" + path))
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: modified)], ofItemAtPath: root + "/" + path)
        }
        try file("big/a", kib: 64, modified: 1_000_000)
        try file("big/b", kib: 32, modified: 1_000_000)
        try file("big/inner/c", kib: 16, modified: 1_000_000)
        try file("medium", kib: 48, modified: 2_000_000_000)
        try file("small/d", kib: 4, modified: 1_000_000)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_500_000_000)], ofItemAtPath: root + "/small")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000)], ofItemAtPath: root + "/big")
        let odd = Array((root + "/odd").utf8) + [0xFF] + Array("name".utf8)
        let fd = odd.withUnsafeBufferPointer { bytes -> Int32 in
            var path = Array(bytes) + [0]
            return path.withUnsafeMutableBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY | O_CLOEXEC, 0o644) }
        }
        #expect(fd >= 0)
        let chunk = [UInt8](repeating: 1, count: 8 * 1024)
        _ = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        return root
    }

    /// The rows of the list (between the title and the status bar), trimmed.
    static func names(_ screen: ScreenText) -> [String] {
        screen.lines.dropFirst().dropLast().compactMap { line in
            guard let bracket = line.firstIndex(of: "]") else { return nil }
            return line[line.index(after: bracket)...].split(separator: " ", omittingEmptySubsequences: true).last.map(String.init)
        }
    }

    /// Ends the browser with `q` and checks the ending: status 0, the modes as before, the
    /// shell's screen back and the cursor shown.
    static func quit(_ terminal: InteractiveTerminal, _ process: ChildProcess, modes: [UInt32]) async throws {
        terminal.type("q")
        let result = try await process.finish(within: .seconds(60))
        #expect(result.status == 0)
        #expect(terminal.modes == modes)
        await terminal.waitFor("the shell's screen back, the cursor shown") { !$0.isAlternate && !$0.cursorHidden }
    }

    @Test("descends with enter and the arrows, goes up with left and backspace, vi keys move; non-UTF-8 names escaped")
    func descends() async throws {
        let runner = try CommandRunner()
        let root = try Self.makeTree(in: runner)
        let terminal = try InteractiveTerminal(columns: 200, rows: 14)
        let modes = terminal.modes
        let process = try terminal.start(runner, ["usage", "--interactive", root])
        var screen = await terminal.waitFor(text: "big/")
        #expect(Self.names(screen) == ["big/", "medium", "odd\\xffname", "small/"])
        #expect(screen.lines[0].contains(root))
        terminal.type("\r")
        screen = await terminal.waitFor(text: root + "/big")
        #expect(Self.names(screen) == ["a", "b", "inner/"])
        terminal.type("jj" + Self.right)
        screen = await terminal.waitFor(text: root + "/big/inner")
        #expect(Self.names(screen) == ["c"])
        terminal.type("\u{7F}")  // backspace
        screen = await terminal.waitFor("the folder big again, inner selected") { $0.lines[0].hasSuffix("/big") }
        terminal.type(Self.left + "k")
        screen = await terminal.waitFor("the root again") { $0.lines[0].hasSuffix("tree") }
        #expect(Self.names(screen).first == "big/")
        try await Self.quit(terminal, process, modes: modes)
    }

    @Test("sorts by size, logical size, files inside, name and time, each again reversed")
    func sorts() async throws {
        let runner = try CommandRunner()
        let root = try Self.makeTree(in: runner)
        let terminal = try InteractiveTerminal(columns: 100, rows: 14)
        let modes = terminal.modes
        let process = try terminal.start(runner, ["usage", "--interactive", root])
        await terminal.waitFor(text: "big/")
        terminal.type("n")
        var screen = await terminal.waitFor(text: "Sort: name")
        #expect(Self.names(screen) == ["big/", "medium", "odd\\xffname", "small/"])
        terminal.type("n")
        screen = await terminal.waitFor(text: "Sort: name, reversed")
        #expect(Self.names(screen) == ["small/", "odd\\xffname", "medium", "big/"])
        terminal.type("c")
        screen = await terminal.waitFor(text: "Sort: count")
        #expect(Self.names(screen).first == "big/")  // 3 files
        terminal.type("m")
        screen = await terminal.waitFor(text: "Sort: time")
        #expect(Self.names(screen) == ["medium", "odd\\xffname", "small/", "big/"])  // 2033, now, 2017, 1970
        #expect(screen.contains("2033-05-18 03:33"))
        terminal.type("s")
        screen = await terminal.waitFor(text: "Sort: size  ")
        #expect(Self.names(screen) == ["big/", "medium", "odd\\xffname", "small/"])
        terminal.type("s")
        screen = await terminal.waitFor(text: "Sort: size, reversed")
        #expect(Self.names(screen).last == "big/")
        terminal.type("a")
        screen = await terminal.waitFor(text: "logical")
        #expect(screen.contains("Total"))
        try await Self.quit(terminal, process, modes: modes)
    }

    @Test("d deletes through the removal walk after a question naming what and how much; pins kept, the home folder refused; figures follow without a rescan")
    func deletes() async throws {
        let runner = try CommandRunner()
        let root = try Self.makeTree(in: runner)
        // Documents/ (the tree is a container's root) holds a pinned file and a loose one; the home
        // folder is inside the tree too.
        let store = Store(container: Container(root: URL(filePath: root, directoryHint: .isDirectory)))
        try store.save(Data(repeating: 3, count: 4096), to: "pinned", in: .documents)
        try store.save(Data(repeating: 3, count: 4096), to: "loose", in: .documents)
        do {
            try store.mark("pinned", in: .documents, .pinned)
        } catch let error as StowageError where error.code == .unsupported {
            print("SKIPPED: no extended attributes in \(root): \(error)")
            return
        }
        let pinned = root + "/Documents/pinned"
        try FileManager.default.createDirectory(atPath: root + "/home", withIntermediateDirectories: true)
        let terminal = try InteractiveTerminal(columns: 120, rows: 14)
        let modes = terminal.modes
        let process = try terminal.start(runner, ["usage", "--interactive", root], environment: ["HOME": root + "/home"])
        var screen = await terminal.waitFor(text: "odd\\xffname")
        // By name (bytes: capitals first). The file whose name is not UTF-8, by its bytes; asked
        // first, "n" keeps it.
        terminal.type("n")
        screen = await terminal.waitFor(text: "Sort: name")
        #expect(Self.names(screen) == ["Documents/", "big/", "home/", "medium", "odd\\xffname", "small/"])
        terminal.type("gjjjjd")
        screen = await terminal.waitFor(text: "Delete 'odd\\xffname', 8.2 kB? [y/N]")
        terminal.type("n")
        screen = await terminal.waitFor(text: "Nothing deleted.")
        terminal.type("d")
        await terminal.waitFor(text: "[y/N]")
        terminal.type("y")
        screen = await terminal.waitFor(text: "Deleted odd\\xffname: 1 file, 8.2 kB freed")
        #expect(!Self.names(screen).contains("odd\\xffname"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).count == 5)  // Documents, big, home, medium, small
        // A folder with a pinned file: the rest goes, the pin stays, the folder with it.
        terminal.type("gd")
        screen = await terminal.waitFor(text: "Delete folder 'Documents' (2 files, ")
        terminal.type("y")
        screen = await terminal.waitFor(text: "From Documents: removed 1 file, 4.1 kB freed; kept 1 pinned")
        #expect(FileManager.default.fileExists(atPath: pinned))
        #expect(!FileManager.default.fileExists(atPath: root + "/Documents/loose"))
        // The home folder is refused, as sweep refuses it.
        terminal.type("gjjd")
        await terminal.waitFor(text: "Delete folder 'home'")
        terminal.type("y")
        screen = await terminal.waitFor(text: "Refused:")
        #expect(screen.contains("it is the home folder"))
        #expect(FileManager.default.fileExists(atPath: root + "/home"))
        // The figures followed the removals: the total is a fresh scan's.
        let check = try await runner.run("usage", "--json", root)
        let total = try #require(try check.json()["allocatedBytes"] as? Int)
        terminal.type("k")
        await terminal.waitFor(text: "Total \(ByteCount(Int64(total)).formatted(.decimal)) allocated, 6 files")
        try await Self.quit(terminal, process, modes: modes)
    }

    @Test("a refusal of a mount point inside the tree: nothing removed", .enabled(if: getuid() == 0, "mounting needs root"))
    func refusesMountPoint() async throws {
        let runner = try CommandRunner()
        let root = runner.folderPath + "/tree"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let volume = try ScratchVolume.mount(size: "1m", in: URL(filePath: root), named: "mounted")
        let mountPoint = volume.path
        try Data(repeating: 1, count: 4096).write(to: URL(filePath: mountPoint + "/kept"))
        let terminal = try InteractiveTerminal(columns: 250, rows: 10)
        let modes = terminal.modes
        let process = try terminal.start(runner, ["usage", "--interactive", root])
        await terminal.waitFor(text: "mounted/")
        terminal.type("d")
        await terminal.waitFor(text: "Delete folder 'mounted'")
        terminal.type("y")
        let screen = await terminal.waitFor(text: "Refused:")
        #expect(screen.contains("mount point"))
        #expect(FileManager.default.fileExists(atPath: mountPoint + "/kept"))
        try await Self.quit(terminal, process, modes: modes)
    }

    /// The ways a browser ends, each leaving the terminal's modes as they were.
    enum Ending: String, CaseIterable, CustomTestStringConvertible {
        case q, controlC, interrupt, terminate, hangUpSignal, terminalClosed, keyboardClosed, scanCrash
        var testDescription: String { rawValue }
    }

    @Test("every ending gives the terminal back as it was: q, Ctrl-C, SIGINT, SIGTERM, SIGHUP, the terminal closed, the keyboard's terminal closed (the screen's still open), a crash of the scan",
          arguments: Ending.allCases)
    func endings(_ ending: Ending) async throws {
        let runner = try CommandRunner()
        let root = try Self.makeTree(in: runner)
        let terminal = try InteractiveTerminal(columns: 80, rows: 12)
        // Standard input on a terminal of its own, hung up while the screen's stays open: what
        // the browser reads says it is gone, though writes still succeed.
        let keyboard = ending == .keyboardClosed ? try InteractiveTerminal(columns: 80, rows: 12) : nil
        let modes = terminal.modes
        // Swift's backtracer stays on for the crash (as for users), but does not ask: on a terminal
        // it waits 30 s for a key before it exits, and this test would wait with it.
        let crash = ending == .scanCrash ? ["STOWAGE_TEST_BROWSER_CRASH": "scan", "SWIFT_BACKTRACE": "interactive=no"] : [:]
        let process = try terminal.start(runner, ["usage", "--interactive", root], environment: crash, keyboard: keyboard)
        if ending != .scanCrash { await terminal.waitFor(text: "big/") }
        switch ending {
        case .q: terminal.type("q")
        case .controlC: terminal.type("\u{3}")
        case .interrupt: process.signal(SIGINT)
        case .terminate: process.signal(SIGTERM)
        case .hangUpSignal: process.signal(SIGHUP)
        case .terminalClosed: terminal.hangUp()
        case .keyboardClosed: keyboard?.hangUp()
        case .scanCrash: break
        }
        let result = try await process.finish(within: .seconds(60))
        switch ending {
        case .q, .controlC: #expect(result.status == 0)
        case .interrupt: #expect(result.status == 130)
        case .terminate: #expect(result.status == 143)
        case .hangUpSignal, .terminalClosed, .keyboardClosed: #expect(result.status == 129)
        case .scanCrash: #expect(result.signal != nil, "a crash ends the process by its signal: \(result.status)")
        }
        if ending != .terminalClosed {
            #expect(terminal.modes == modes)
            await terminal.waitFor("the shell's screen back, the cursor shown") { !$0.isAlternate && !$0.cursorHidden }
        }
        #expect(terminal.received.contains("\u{1B}[?1049h"), "it had taken the screen over")
    }

    @Test("a window resize (SIGWINCH) redraws at the new size")
    func resizes() async throws {
        let runner = try CommandRunner()
        let root = try Self.makeTree(in: runner)
        let terminal = try InteractiveTerminal(columns: 80, rows: 12)
        let modes = terminal.modes
        let process = try terminal.start(runner, ["usage", "--interactive", root])
        var screen = await terminal.waitFor(text: "big/")
        #expect(screen.row(containing: "Total") == 11)
        terminal.resize(columns: 120, rows: 20, telling: process)
        screen = await terminal.waitFor("the status bar on the new last row") { $0.row(containing: "Total") == 19 }
        #expect(Self.names(screen) == ["big/", "medium", "odd\\xffname", "small/"])
        terminal.resize(columns: 40, rows: 8, telling: process)
        screen = await terminal.waitFor("the status bar on row 8") { $0.row(containing: "Total") == 7 }
        #expect(screen.lines.allSatisfy { $0.unicodeScalars.count <= 40 })
        try await Self.quit(terminal, process, modes: modes)
    }

    /// The browser on the test tree, in big/, once `kib` KiB were written at big/`name` and `r` typed.
    static func openBig(writingThen name: String, kib: Int) async throws
        -> (CommandRunner, String, InteractiveTerminal, [UInt32], ChildProcess) {
        let runner = try CommandRunner()
        let root = try makeTree(in: runner)
        let terminal = try InteractiveTerminal(columns: 200, rows: 14)
        let modes = terminal.modes
        let process = try terminal.start(runner, ["usage", "--interactive", root])
        await terminal.waitFor(text: "big/")
        terminal.type("\r")
        await terminal.waitFor(text: root + "/big")
        try Data(repeating: 9, count: kib * 1024).write(to: URL(filePath: root + "/big/" + name))
        terminal.type("r")
        return (runner, root, terminal, modes, process)
    }

    @Test("r scans the folder shown again: what changed outside the browser appears, the folders above follow")
    func rescans() async throws {
        let (runner, root, terminal, modes, process) = try await Self.openBig(writingThen: "new", kib: 200)
        var screen = await terminal.waitFor(text: "Scanned again")
        #expect(Self.names(screen) == ["new", "a", "b", "inner/"])
        terminal.type(Self.left)
        screen = await terminal.waitFor(text: "Total")
        let check = try await runner.run("usage", "--json", root)
        let total = try #require(try check.json()["allocatedBytes"] as? Int)
        #expect(screen.contains("Total \(ByteCount(Int64(total)).formatted(.decimal)) allocated, 7 files"))
        try await Self.quit(terminal, process, modes: modes)
    }

    @Test("after r, the folders below the one scanned again open on what they hold now, and lead back up")
    func rescannedFoldersOpen() async throws {
        // The runner is kept to the end: released, it removes the tree the browser shows.
        let (runner, root, terminal, modes, process) = try await Self.openBig(writingThen: "inner/e", kib: 100)
        defer { withExtendedLifetime(runner) {} }
        var screen = await terminal.waitFor(text: "Scanned again")
        #expect(Self.names(screen) == ["inner/", "a", "b"])
        terminal.type("kk\r")  // up to the first row, inner/, and into it
        screen = await terminal.waitFor(text: root + "/big/inner")
        #expect(Self.names(screen) == ["e", "c"])
        terminal.type(Self.left)
        await terminal.waitFor("big again, as scanned again") { Self.names($0) == ["inner/", "a", "b"] }
        terminal.type(Self.left)
        await terminal.waitFor("the top again") { Self.names($0).first == "big/" }
        try await Self.quit(terminal, process, modes: modes)
    }

    @Test("? shows the keys; any key closes the help")
    func help() async throws {
        let runner = try CommandRunner()
        let root = try Self.makeTree(in: runner)
        let terminal = try InteractiveTerminal(columns: 100, rows: 24)
        let modes = terminal.modes
        let process = try terminal.start(runner, ["usage", "--interactive", root])
        await terminal.waitFor(text: "big/")
        terminal.type("?")
        let screen = await terminal.waitFor(text: "keys")
        #expect(screen.contains("delete (asks first; pins, mounts and system folders refused)"))
        terminal.type(" ")
        await terminal.waitFor(text: "big/")
        try await Self.quit(terminal, process, modes: modes)
    }

    @Test("colours only on a colour terminal without NO_COLOR", arguments: [
        (["TERM": "xterm-256color"], true), (["TERM": "xterm-256color", "NO_COLOR": "1"], false), (["TERM": "vt100"], false),
    ])
    func colours(_ environment: [String: String], _ coloured: Bool) async throws {
        let runner = try CommandRunner()
        let root = try Self.makeTree(in: runner)
        let terminal = try InteractiveTerminal(columns: 80, rows: 12)
        let modes = terminal.modes
        let process = try terminal.start(runner, ["usage", "--interactive", root], environment: environment)
        let screen = await terminal.waitFor(text: "big/")
        #expect((screen.colourCodes > 0) == coloured)
        #expect(terminal.received.contains("\u{1B}[7m"), "reverse video marks the bars either way")
        try await Self.quit(terminal, process, modes: modes)
    }

    @Test("refuses to start without a terminal, or on a dumb one, with status 64 and a hint to --json")
    func refusesWithoutTerminal() async throws {
        let runner = try CommandRunner()
        let root = try Self.makeTree(in: runner)
        let result = try await runner.run("usage", "--interactive", root)
        #expect(result.status == 64)
        #expect(result.error.contains("--json"))
        #expect(result.output.isEmpty)
        let json = try await runner.run("usage", "--interactive", "--json", root)
        #expect(json.status == 64)
        let terminal = try InteractiveTerminal(columns: 80, rows: 12)
        let modes = terminal.modes
        let dumb = try terminal.start(runner, ["usage", "--interactive", root], environment: ["TERM": "dumb"])
        await #expect(try dumb.finish(within: .seconds(60)).status == 64)
        #expect(terminal.received.contains("--json"))
        #expect(terminal.modes == modes)
    }

    @Test("locations --interactive: the app's locations with their purge policy; d clears a location as clear does")
    func locations() async throws {
        let runner = try CommandRunner()
        let app = "org.example.browser"
        let caches = runner.folderPath + "/cache/" + app
        try FileManager.default.createDirectory(atPath: caches + "/feed", withIntermediateDirectories: true)
        try Data(repeating: 1, count: 40_000).write(to: URL(filePath: caches + "/feed/page"))
        let documents = runner.folderPath + "/data/" + app + "/documents"
        try FileManager.default.createDirectory(atPath: documents, withIntermediateDirectories: true)
        try Data(repeating: 1, count: 4096).write(to: URL(filePath: documents + "/note"))
        let terminal = try InteractiveTerminal(columns: 220, rows: 14)
        let modes = terminal.modes
        let process = try terminal.start(runner, ["locations", "--interactive", "--app", app])
        var screen = await terminal.waitFor(text: "Caches; purged under pressure")
        #expect(screen.contains("Documents; never purged; backed up"))
        let row = try #require(screen.lines.firstIndex { $0.contains("Caches;") }) - 1  // below the title bar
        terminal.type("g" + String(repeating: "j", count: row) + "d")
        screen = await terminal.waitFor(text: "Clear Caches")
        terminal.type("y")
        screen = await terminal.waitFor(text: "From ")
        #expect(!FileManager.default.fileExists(atPath: caches + "/feed/page"))
        #expect(FileManager.default.fileExists(atPath: documents + "/note"))
        try await Self.quit(terminal, process, modes: modes)
    }
}
