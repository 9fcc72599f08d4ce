import Foundation
import Testing

/// Every command with a standard stream closed (`>&-`, `<&-`, `2>&-`; issue 30, item 12): it ends
/// as it does with the stream open, what it would print there dropped. Before, a range of rooms
/// died in a write to the closed descriptor (a `try!` in Foundation, SIGILL), any error message
/// with standard error closed did the same, and with standard input and output closed a range
/// read its own table row through the signal trap's pipe, which had taken descriptor 1, and
/// ended "interrupted" with no signal sent.
@Suite("stowage with closed standard streams")
struct ClosedStreamCommandTests {
    /// The streams closed in turn: output, input, both, error, all three.
    static let closings: [Set<Int32>] = [[1], [0], [0, 1], [2], [0, 1, 2]]

    @Test("every subcommand ends with the status it has with its streams open, and no signal",
          .long("19 command lines, each with every standard stream closed in turn: 23 s"))
    func everySubcommand() async throws {
        let runner = try CommandRunner()
        let root = runner.folderPath + "/app"
        let tree = runner.folderPath + "/tree"
        try FileManager.default.createDirectory(atPath: root + "/Library/Caches/c", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: tree + "/sub", withIntermediateDirectories: true)
        try Data(count: 5000).write(to: URL(filePath: tree + "/sub/f"))
        let volume = try ScratchVolume.mount(size: "64m", in: runner.folder)
        let invocations: [[String]] = [
            ["--root", root], ["locations", "--root", root], ["info", "--root", root], ["info", "--root", root, "--json"],
            ["usage", tree], ["usage", tree, "--json"], ["usage", runner.folderPath + "/missing"],
            ["sweep", tree, "--max-count", "0", "--dry-run"], ["sweep", tree, "--max-size", "12XB"],
            ["relieve", "--available", "1KB", "--root", root, "--dry-run"], ["clear", "caches", "--root", root],
            ["clear", "documents", "--root", root, "--dry-run", "--json"], ["audit", "--root", root],
            ["watch", "--available", "1GB", "--interval", "0s", "--root", root],
            ["fill", volume.path, "--consume", "1MB"], ["fill", volume.path, "--status"], ["release", volume.path],
            ["fill", volume.path, "--consume", "1MB", "--json-lines"], ["release", volume.path, "--json"],
        ]
        var expected: [Int32] = []
        for arguments in invocations {
            let open = try await runner.run(arguments)
            #expect(open.signal == nil, "\(arguments): \(open.error)")
            expected.append(open.status)
        }
        #expect(expected.contains(0) && expected.contains(1) && expected.contains(64), "\(expected)")
        for closed in Self.closings {
            for (arguments, status) in zip(invocations, expected) {
                let result = try await runner.run(arguments, closing: closed)
                #expect(result.signal == nil && result.status == status,
                        "\(arguments) with \(closed.sorted()) closed: status \(result.status), signal \(result.signal ?? 0): \(result.error)")
            }
        }
        #expect(FillCommandTests.available(volume.path) > 60_000_000, "every fill released: its manifest was not written over")
    }

    @Test("run over a range with standard output (and input) closed: every room runs, exit 0, nothing interrupted")
    func runRange() async throws {
        let runner = try await RunCommandTests.runner()
        let real = runner.folderPath + "/real"
        for extra in [[], ["--json-lines"]] as [[String]] {
            for closed in Self.closings {
                let arguments = ["run", "--available", "0..8KB", "--over", real] + extra
                    + ["--check", "test -f '\(real)/made'", "--", "/bin/sh", "-c", "touch \"$0\"/made", real]
                let result = try await runner.run(arguments, closing: closed)
                #expect(result.signal == nil && result.status == 0,
                        "\(extra) with \(closed.sorted()) closed: status \(result.status): \(result.error)")
                #expect(!result.error.contains("interrupted"), "\(result.error)")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: real).isEmpty)
        #expect(try hostRoomMounts().isEmpty)
    }

    @Test("run in one room with standard output closed passes the command's status through")
    func runSingle() async throws {
        let runner = try await RunCommandTests.runner()
        for closed in Self.closings {
            let result = try await runner.run(["run", "--available", "4KB", "--over", runner.folderPath + "/real", "--", "/bin/sh", "-c", "echo x; exit 7"],
                                        closing: closed)
            #expect(result.signal == nil && result.status == 7, "\(closed.sorted()): status \(result.status): \(result.error)")
        }
    }
}
