import Foundation
import StowageTestSupport
import Testing

/// `stowage info --all`: every mounted volume, as `df` and `duf` list them.
@Suite("stowage info --all")
struct InfoAllCommandTests {
    @Test("a tmpfs mounted twice is one volume in JSON, with its other mount point; proc is left out")
    func json() async throws {
        let runner = try CommandRunner()
        let volume = try ScratchVolume.mount(size: "8m", in: runner.folder, named: "scratch volume")
        let bound = try ExtraMount(["--bind", volume.path], at: runner.folderPath + "/bound")
        defer { withExtendedLifetime(bound) {} }
        let result = try await runner.run("info", "--all", "--json")
        #expect(result.status == 0, "\(result.error)")
        let volumes = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
        let mine = volumes.filter { [volume.path, runner.folderPath + "/bound"].contains($0["mountPoint"] as? String) }
        try #require(mine.count == 1, "\(volumes.map { $0["mountPoint"] ?? "" })")
        #expect(mine[0]["mountPoint"] as? String == volume.path)
        #expect(mine[0]["otherMountPoints"] as? [String] == [runner.folderPath + "/bound"])
        #expect(mine[0]["kind"] as? String == "memory" && mine[0]["source"] as? String == "tmpfs")
        #expect(mine[0]["fileSystemType"] as? String == "tmpfs")
        #expect(mine[0]["totalBytes"] as? Int64 == 8 << 20)
        #expect(!volumes.contains { ["proc", "sysfs", "cgroup2", "devpts"].contains($0["fileSystemType"] as? String) })
        #expect(volumes.contains { $0["mountPoint"] as? String == "/" && $0["kind"] as? String == "local" })
    }

    @Test("a volume mounted at a name that is not UTF-8: the table shows it escaped, JSON gives its bytes in mountPointBase64",
          .enabled(if: getuid() == 0, "mounting needs root"))
    func mountPointNotUTF8() async throws {
        let runner = try CommandRunner()
        let point = Array((runner.folderPath + "/m").utf8) + [0xFF]
        try mountTmpfs(atBytes: point, size: "1m")
        let table = try await runner.run("info", "--all")
        #expect(table.status == 0, "\(table.error)")
        #expect(table.output.contains(runner.folderPath + "/m\\xff"), "\(table.output)")
        let result = try await runner.run("info", "--all", "--json")
        #expect(result.status == 0, "\(result.error)")
        let volumes = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
        let mine = try #require(volumes.first { $0["mountPointBase64"] as? String == Data(point).base64EncodedString() },
                                "\(volumes.map { $0["mountPoint"] ?? "" })")
        #expect(mine["mountPoint"] as? String == runner.folderPath + "/m\u{FFFD}")
        #expect(mine["totalBytes"] as? Int64 == 1 << 20)
        #expect(volumes.contains { $0["mountPoint"] as? String == "/" && $0["mountPointBase64"] == nil },
                "a mount point that is UTF-8 has no mountPointBase64")
    }

    @Test("the table has a section per kind, local first, and fits 80 columns on a terminal")
    func table() async throws {
        let runner = try CommandRunner()
        let volume = try ScratchVolume.mount(size: "8m", in: runner.folder,
                                             named: "a-mount-point-with-a-name-far-longer-than-any-column-has-room-for")
        let piped = try await runner.run("info", "--all")
        #expect(piped.status == 0, "\(piped.error)")
        #expect(piped.output.range(of: #"^\d+ local volumes?\nMOUNTED ON"#, options: .regularExpression) != nil, "\(piped.output)")
        #expect(piped.output.contains("volumes in memory\nMOUNTED ON") || piped.output.contains("volume in memory\nMOUNTED ON"))
        #expect(piped.output.contains(volume.path + "  "), "off a terminal, names are whole: \(piped.output)")
        let terminal = try PseudoTerminal(columns: 80, rows: 24)
        let run = try await terminal.run(try CommandRunner.binary(), ["info", "--all"], environment: runner.environment,
                                   directory: runner.folder, outputOnTerminal: true)
        #expect(run.status == 0, "\(run.terminal)")
        for line in run.terminal.split(separator: "\n") {
            #expect(line.unicodeScalars.count <= 80, "\(line.unicodeScalars.count) columns: \(line)")
        }
        #expect(!run.terminal.contains(volume.path), "a long mount point is shortened on a terminal")
        #expect(run.terminal.contains("…"))
    }

    @Test("--all with a path is a usage error")
    func allWithPath() async throws {
        let runner = try CommandRunner()
        let result = try await runner.run("info", "--all", "/")
        #expect(result.status == 64)
        #expect(result.error.contains("Give a PATH or --all, not both."))
    }
}
