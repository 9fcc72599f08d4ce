import Foundation
import Stowage
import StowageTestSupport
import Testing

/// The deleting commands against a linked location, a full disk, system folders and another
/// user's folder: what they refuse, what they skip and report, and that they still do their job.
@Suite("stowage clear, sweep, relieve, watch: safe destruction")
struct SafeDestructionCommandTests {
    /// Writes to `path` until its volume has no space left.
    func fill(_ path: String) {
        let fd = open(path, O_CREAT | O_WRONLY | O_APPEND, 0o600)
        defer { close(fd) }
        let chunk = [UInt8](repeating: 9, count: 4096)
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// A rooted container on a 4 MiB tmpfs: 8 cache files of 64 KiB, one tmp file, then the
    /// volume filled to 0 bytes available.
    func fullContainer(_ runner: CommandRunner) throws -> ScratchVolume {
        let volume = try ScratchVolume.mount(size: "4m", in: runner.folder)
        for (folder, count) in [("Library/Caches", 8), ("tmp", 1)] {
            try FileManager.default.createDirectory(atPath: volume.path + "/" + folder, withIntermediateDirectories: true)
            for index in 0..<count {
                try Data(repeating: 1, count: 65536).write(to: URL(filePath: volume.path + "/\(folder)/f\(index)"))
            }
        }
        fill(volume.path + "/filler")
        return volume
    }

    @Test("clear refuses a location folder that is a link, naming it, and leaves its target alone")
    func linkedLocation() async throws {
        let runner = try CommandRunner()
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/app/Library", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/victim", withIntermediateDirectories: true)
        try Data("precious".utf8).write(to: URL(filePath: runner.folderPath + "/victim/keep.txt"))
        try FileManager.default.createSymbolicLink(atPath: runner.folderPath + "/app/Library/Caches",
                                                   withDestinationPath: runner.folderPath + "/victim")
        let clear = try await runner.run("clear", "caches", "--root", "app")
        #expect(clear.status == 1)
        #expect(clear.error.contains(runner.folderPath + "/app/Library/Caches is a symbolic link"), "\(clear.error)")
        let relieve = try await runner.run("relieve", "--available", "1GB", "--root", "app", "--json",
                                     environment: ["STOWAGE_SIMULATED_AVAILABLE": "0"])
        #expect(relieve.status == 0 || relieve.status == 3, "\(relieve.error)")  // not enough could be freed
        #expect(try FileManager.default.contentsOfDirectory(atPath: runner.folderPath + "/victim") == ["keep.txt"])
    }

    @Test("relieve frees tmp, then caches, on a volume with 0 bytes available, and exits 0 when the goal is met")
    func relieveOnFullDisk() async throws {
        let runner = try CommandRunner()
        let volume = try fullContainer(runner)
        let result = try await runner.run("relieve", "--available", "200kB", "--root", volume.path, "--json")
        #expect(result.status == 0, "\(result.error)")
        let json = try result.json()
        #expect(json["isSatisfied"] as? Bool == true)
        let steps = try #require(json["steps"] as? [[String: Any]])
        #expect(steps.compactMap { $0["location"] as? String } == ["temporary", "caches"])
        #expect(statvfsAvailable(volume.path) >= 200_000)
    }

    @Test("watch frees caches on a volume with 0 bytes available, without an error")
    func watchOnFullDisk() async throws {
        let runner = try CommandRunner()
        let volume = try fullContainer(runner)
        let process = try runner.start(["watch", "--available", "200kB", "--interval", "0.2s", "--root", volume.path])
        _ = try await process.read(until: "freed", within: .seconds(120))
        process.signal(SIGTERM)
        let ended = try await process.finish(within: .seconds(60))
        let (text, errorOutput) = (ended.output, ended.error)
        #expect(ended.signal == nil && ended.status == 0)
        #expect(text.contains("from temporary, caches"), "\(text) \(errorOutput)")
        #expect(errorOutput.isEmpty, "\(errorOutput)")
        // As JSON lines: one short line per relief, with its date, not every file removed.
        let jsonWatch = try runner.start(["watch", "--available", "1GB", "--interval", "0.2s", "--root", volume.path, "--json-lines"],
                                         environment: ["STOWAGE_SIMULATED_AVAILABLE": "0"])
        let lines = try await jsonWatch.read(within: .seconds(120)) { $0.filter { $0 == "\n" }.count >= 2 }.split(separator: "\n")
        let (started, line) = (String(lines[0]), String(lines[1]))
        jsonWatch.signal(SIGTERM)
        await #expect(try jsonWatch.finish(within: .seconds(60)).status == 0)
        #expect(started.contains(#""event":"started""#), "\(started)")
        let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        #expect(event["event"] as? String == "relief", "\(line)")
        #expect((event["date"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) } != nil, "\(event)")
        #expect(event["steps"] is [[String: Any]] && !line.contains("\"removed\""), "\(line)")
        #expect(statvfsAvailable(volume.path) >= 200_000)
    }

    @Test("sweep refuses the home folder and the folders above it unless --force")
    func systemFolders() async throws {
        let runner = try CommandRunner()
        for relative in ["home/file", "file"] {
            try FileManager.default.createDirectory(atPath: runner.folderPath + "/home", withIntermediateDirectories: true)
            try Data("mine".utf8).write(to: URL(filePath: runner.folderPath + "/" + relative))
        }
        for folder in [runner.folderPath + "/home", runner.folderPath, "/"] {
            let result = try await runner.run("sweep", folder, "--max-age", "0s", "--dry-run")
            #expect(result.status == 1, "\(folder): \(result.output)")
            #expect(result.error.contains("pass --force"), "\(result.error)")
        }
        let forced = try await runner.run("sweep", runner.folderPath + "/home", "--max-age", "0s", "--dry-run", "--force", "--json")
        #expect(forced.status == 0, "\(forced.error)")
        #expect((try forced.json()["removed"] as? [[String: Any]])?.count == 1)
        #expect(FileManager.default.fileExists(atPath: runner.folderPath + "/home/file"))
        #expect(FileManager.default.fileExists(atPath: runner.folderPath + "/file"))
    }

    @Test("sweep refuses, unless --force, when the home folder cannot be examined: the folder might be it")
    func unexaminableHome() async throws {
        let runner = try CommandRunner()
        let folder = runner.folderPath + "/work"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: URL(filePath: folder + "/file"))
        // HOME is a link to itself: stat(2) of it fails with ELOOP.
        let home = runner.folderPath + "/looping-home"
        try FileManager.default.createSymbolicLink(atPath: home, withDestinationPath: home)
        let refused = try await runner.run(["sweep", folder, "--max-age", "0s"], environment: ["HOME": home])
        #expect(refused.status == 1, "\(refused.output)")
        #expect(refused.error.contains("could not tell whether it is or holds the home folder"), "\(refused.error)")
        #expect(refused.error.contains("stat '\(home)' failed"), "\(refused.error)")
        #expect(FileManager.default.fileExists(atPath: folder + "/file"))
        let forced = try await runner.run(["sweep", folder, "--max-age", "0s", "--force"], environment: ["HOME": home])
        #expect(forced.status == 0, "\(forced.error)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/file"))
    }

    @Test("a $TMPDIR/<app> made by another user is skipped and reported; info, audit and relief still work")
    func squattedTemporary() async throws {
        guard getuid() == 0 else {
            print("SKIPPED: making a folder another user's needs root")
            try Test.cancel("chown needs root")
        }
        let runner = try CommandRunner()
        let squatted = runner.folderPath + "/tmp/app"
        try FileManager.default.createDirectory(atPath: squatted, withIntermediateDirectories: true)
        try Data("theirs".utf8).write(to: URL(filePath: squatted + "/theirs.bin"))
        #expect(chown(squatted, 54321, 54321) == 0)
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/cache/app", withIntermediateDirectories: true)
        try Data(count: 8192).write(to: URL(filePath: runner.folderPath + "/cache/app/mine.bin"))
        for command in [["info"], ["locations"], [], ["audit"]] {
            let result = try await runner.run(command + ["--app", "app"])
            #expect(result.status == 0, "\(command): \(result.error)")
        }
        let audit = try await runner.run("audit", "--app", "app", "--json").json()
        let auditIssues = try #require(audit["issues"] as? [[String: Any]])
        #expect(auditIssues.filter { ($0["path"] as? String) == squatted }.count == 1, "reported once: \(auditIssues)")
        let relief = try await runner.run("relieve", "--available", "1GB", "--app", "app", "--json",
                                    environment: ["STOWAGE_SIMULATED_AVAILABLE": "0"])
        let json = try relief.json()
        let reliefIssues = try #require(json["issues"] as? [[String: Any]])
        #expect(reliefIssues.contains { ($0["path"] as? String) == squatted }, "\(reliefIssues)")
        #expect(!FileManager.default.fileExists(atPath: runner.folderPath + "/cache/app/mine.bin"), "relief reached the caches")
        #expect(FileManager.default.fileExists(atPath: squatted + "/theirs.bin"))
    }

    @Test("clear of a folder with thousands of sub-folders holds few descriptors: everything goes under ulimit -n 64")
    func wideFolder() async throws {
        let runner = try CommandRunner()
        let caches = runner.folderPath + "/app/Library/Caches"
        for index in 0..<600 {
            try FileManager.default.createDirectory(atPath: caches + "/d\(index)", withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(filePath: caches + "/d\(index)/f"))
        }
        let binary = try CommandRunner.binary().path(percentEncoded: false)
        let result = try await runProcess(URL(filePath: "/bin/sh"), ["-c", "ulimit -n 64 && exec \"$0\" clear caches --root app --json", binary],
                                    environment: runner.environment, directory: runner.folder)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.isEmpty, "\(result.error.prefix(500))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: caches).isEmpty)
    }

    @Test("clear refuses a container rooted at / or at the home folder")
    func clearSystemRoots() async throws {
        let runner = try CommandRunner()
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/home/Documents", withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: URL(filePath: runner.folderPath + "/home/Documents/thesis.txt"))
        for (location, root) in [("temporary", "/"), ("documents", runner.folderPath + "/home")] {
            let result = try await runner.run("clear", location, "--root", root, "--dry-run")
            #expect(result.status == 1 && result.error.contains("the container's root"), "\(root): \(result.error)")
        }
        #expect(FileManager.default.fileExists(atPath: runner.folderPath + "/home/Documents/thesis.txt"))
    }

    @Test("clear of a container whose root cannot be read (only passed through) is refused, not cleared unchecked")
    func unreadableRoot() async throws {
        let runner = try CommandRunner()
        let app = runner.folderPath + "/app"
        try FileManager.default.createDirectory(atPath: app + "/Library/Caches", withIntermediateDirectories: true)
        try Data("cached".utf8).write(to: URL(filePath: app + "/Library/Caches/c.bin"))
        _ = try await runProcess(URL(filePath: "/bin/chmod"), ["-R", "a+rX", runner.folderPath])
        _ = try await runProcess(URL(filePath: "/bin/chown"), ["-R", "65534:65534", app])
        _ = try await runProcess(URL(filePath: "/bin/chmod"), ["0311", app])  // write and search, no read
        let (setpriv, nobody) = try await CommandRunner.asNobody()
        let binary = try CommandRunner.binary().path(percentEncoded: false)
        let result = try await runProcess(setpriv, nobody + [binary, "clear", "caches", "--root", app],
                                    environment: runner.environment, directory: runner.folder)
        #expect(result.status == 1, "\(result.output)")
        #expect(result.error.contains("permission denied"), "\(result.error)")
        #expect(FileManager.default.fileExists(atPath: app + "/Library/Caches/c.bin"))
    }

    @Test("a pin above the root that this user cannot read counts as a pin: as nobody, sweep under a pinned 0711 folder removes nothing and says why")
    func unreadablePinAbove() async throws {
        let runner = try CommandRunner()
        let documents = runner.folderPath + "/app/Documents"
        for tree in ["pq", "open"] {
            try FileManager.default.createDirectory(atPath: documents + "/\(tree)/sub/deeper", withIntermediateDirectories: true)
            for name in ["sub/a", "sub/deeper/b"] {
                try Data("precious".utf8).write(to: URL(filePath: documents + "/\(tree)/\(name)"))
            }
        }
        let pq = documents + "/pq"
        try Store(container: Container(root: URL(filePath: runner.folderPath + "/app", directoryHint: .isDirectory)))
            .mark("pq", in: .documents, .pinned)
        _ = try await runProcess(URL(filePath: "/bin/chmod"), ["-R", "a+rX", runner.folderPath])
        _ = try await runProcess(URL(filePath: "/bin/chown"), ["-R", "65534:65534", pq + "/sub", documents + "/open/sub"])
        _ = try await runProcess(URL(filePath: "/bin/chmod"), ["0711", pq])  // search, no read: its pin cannot be read
        let (setpriv, nobody) = try await CommandRunner.asNobody()
        let binary = try CommandRunner.binary().path(percentEncoded: false)
        let result = try await runProcess(setpriv, nobody + [binary, "sweep", pq + "/sub", "--max-size", "0", "--json"],
                                    environment: runner.environment, directory: runner.folder)
        #expect(FileManager.default.fileExists(atPath: pq + "/sub/a") && FileManager.default.fileExists(atPath: pq + "/sub/deeper/b"),
                "\(result.output) \(result.error)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], "\(result.error)")
        #expect((json["removed"] as? [Any])?.isEmpty == true)
        let issues = (json["issues"] as? [[String: Any]]) ?? []
        #expect(issues.contains { ($0["path"] as? String) == pq && ($0["message"] as? String)?.contains("its pin could not be read") == true },
                "\(issues)")
        // The same tree without the 0711 pinned folder above: the folders above are readable, and the sweep removes.
        let control = try await runProcess(setpriv, nobody + [binary, "sweep", documents + "/open/sub", "--max-size", "0"],
                                     environment: runner.environment, directory: runner.folder)
        #expect(control.status == 0, "\(control.error)")
        #expect(!FileManager.default.fileExists(atPath: documents + "/open/sub/a"))
    }

    private func statvfsAvailable(_ path: String) -> Int64 {
        var figures = statvfs()
        guard statvfs(path, &figures) == 0 else { return -1 }
        return Int64(figures.f_bavail) * Int64(figures.f_frsize)
    }
}
