import Foundation
import Testing

/// `stowage fill` and `stowage release` as a tester uses them, on a tmpfs the test mounts.
@Suite("stowage fill, release")
struct FillCommandTests {
    /// `statvfs` available bytes of `path`.
    static func available(_ path: String) -> Int64 {
        var figures = statvfs()
        _ = statvfs(path, &figures)
        return Int64(figures.f_bavail) * Int64(figures.f_frsize)
    }

    /// JSON lines on standard output, as objects.
    static func events(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test("release leaves a stranger's file that the manifest names with its inode but that lacks the fill's marker")
    func releaseChecksTheMarker() async throws {
        let runner = try CommandRunner()
        let volume = try ScratchVolume.mount(size: "32m", in: runner.folder)
        let fill = try await runner.run("fill", volume.path, "--consume", "4MB")
        #expect(fill.status == 0, "\(fill.error)")
        // What a fill file removed and replaced by a new file that got its inode number back leaves.
        let fillPath = volume.path + "/.stowage-fill"
        let stranger = Data("a stranger's file\n".utf8)
        try stranger.write(to: URL(filePath: fillPath + "/fill-000002"))
        var status = stat()
        try #require(lstat(fillPath + "/fill-000002", &status) == 0)
        let manifestURL = URL(filePath: fillPath + "/manifest.json")
        var manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
        let files = try #require(manifest["files"] as? [[String: Any]])
        manifest["files"] = files + [["name": "fill-000002", "device": UInt64(status.st_dev), "inode": UInt64(status.st_ino)]]
        try JSONSerialization.data(withJSONObject: manifest).write(to: manifestURL)
        await #expect(try runner.run("fill", "--status", volume.path).output.hasPrefix("\(fillPath): 1 fill file, "))
        let release = try await runner.run("release", volume.path, "--json")
        #expect(release.status == 0, "\(release.error)")
        #expect(try release.json()["removedFileCount"] as? Int == 1)
        #expect(try Data(contentsOf: URL(filePath: fillPath + "/fill-000002")) == stranger)
    }

    /// Starts `stowage` with `arguments`, standard output to a pipe.
    @Test("fill --leave, --status and release, as JSON lines and text")
    func fillStatusRelease() async throws {
        let runner = try CommandRunner()
        let volume = try ScratchVolume.mount(size: "64m", in: runner.folder)
        let before = Self.available(volume.path)
        let fill = try await runner.run("fill", volume.path, "--leave", "10MB", "--method", "zeros", "--chunk", "1MB", "--json-lines")
        #expect(fill.status == 0, "\(fill.error)")
        let last = try #require(try Self.events(fill.output).last)
        #expect(last["event"] as? String == "filled")
        #expect((last["date"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) } != nil, "\(last)")
        #expect(last["availableBytesBefore"] as? Int64 == before)
        #expect(last["availableBytesAfter"] as? Int64 == Self.available(volume.path))
        #expect(abs(Self.available(volume.path) - 10_000_000) < 4096)
        let status = try await runner.run("fill", "--status", volume.path)
        #expect(status.output.hasPrefix("\(volume.path)/.stowage-fill: 1 fill file, "), "\(status.output)")
        #expect(status.output.contains("before the fill"))
        let partial = try await runner.run("release", volume.path, "--amount", "2MB", "--json")
        #expect(try partial.json()["releasedBytes"] as? Int64 == 2_002_944, "2 MB rounded up to whole 4 KiB blocks")
        let rest = try await runner.run("release", volume.path)
        #expect(rest.status == 0)
        #expect(rest.output.hasPrefix("Released "))
        #expect(Self.available(volume.path) == before)
        let nothing = try await runner.run("fill", "--status", volume.path, "--json")
        #expect(nothing.status == 0, "\(nothing.error)")
        #expect(try nothing.json()["error"] == nil)
        #expect(try nothing.json()["status"] is NSNull, "null, not missing")
    }

    @Test("a fill killed with SIGKILL is released by a new process, back to the original available bytes")
    func killedFill() async throws {
        let runner = try CommandRunner()
        let volume = try ScratchVolume.mount(size: "256m", in: runner.folder)
        let before = Self.available(volume.path)
        // Killed by a fault point (debug builds) right after its 20th step of 1 MB: mid-fill
        // whatever the machine's speed, never after the fill ended by itself.
        let killed = try await runner.run(["fill", volume.path, "--leave", "0", "--method", "random", "--chunk", "1MB"],
                                    environment: ["STOWAGE_TEST_FAULTS": "fill.step-written@20=kill"])
        #expect(killed.signal == SIGKILL, "killed mid-fill: \(killed.status) \(killed.error)")
        let step: Int64 = 1_000_000 / 4096 * 4096  // the chunk, in whole blocks
        #expect(Self.available(volume.path) <= before - 20 * step, "20 steps filled")
        #expect(Self.available(volume.path) > before - 21 * step - 65536, "and not a 21st")
        let release = try await runner.run("release", volume.path, "--json")
        #expect(release.status == 0, "\(release.error)")
        #expect(Self.available(volume.path) == before)
        #expect(!FileManager.default.fileExists(atPath: volume.path + "/.stowage-fill"))
    }

    @Test("--hold keeps the space until SIGTERM; after SIGKILL the system gives it back by itself")
    func hold() async throws {
        let runner = try CommandRunner()
        let volume = try ScratchVolume.mount(size: "64m", in: runner.folder)
        let before = Self.available(volume.path)
        for signal in [SIGTERM, SIGKILL] {
            let process = try runner.start(["fill", volume.path, "--leave", "5MB", "--hold", "--json-lines"])
            let text = try await process.read(until: "\"holding\"", within: .seconds(120))
            #expect(text.contains("\"holding\""), "\(text)")
            #expect(abs(Self.available(volume.path) - 5_000_000) < 4096)
            process.signal(signal)
            let ended = try await process.finish(within: .seconds(60))
            if signal == SIGTERM {
                #expect(ended.signal == nil && ended.status == 0)
                #expect(ended.output.contains("\"released\""))
            } else {
                #expect(ended.signal == SIGKILL)
            }
            #expect(Self.available(volume.path) == before, "after \(signal == SIGTERM ? "SIGTERM" : "SIGKILL")")
        }
    }

    @Test("bad input is a clear error that changes nothing; the volume of / is refused without --force")
    func badInput() async throws {
        let runner = try CommandRunner()
        let volume = try ScratchVolume.mount(size: "16m", in: runner.folder)
        let before = Self.available(volume.path)
        for arguments in [["--leave", "-5MB"], ["--leave", "12XB"], ["--leave", "101%"], ["--consume", "MB"],
                          ["--leave", "1MB", "--consume", "1MB"], [], ["--leave", "1MB", "--method", "sparse"]] {
            let result = try await runner.run(["fill", volume.path] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.error)")
        }
        let tooMuch = try await runner.run("fill", volume.path, "--leave", "1TB", "--json")
        #expect(tooMuch.status == 64, "a goal the volume cannot hold is refused before anything is done")
        #expect((try tooMuch.json()["error"] as? [String: Any])?["code"] as? String == "invalidArgument")
        #expect(tooMuch.error.contains("cannot leave 1 TB available on a volume of 16.8 MB"), "\(tooMuch.error)")
        let nowhere = try await runner.run("fill", volume.path + "/missing", "--leave", "1MB")
        #expect(nowhere.status == 1)
        #expect(nowhere.error.contains("no such file or directory"))
        #expect(Self.available(volume.path) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: volume.path).isEmpty)
        try requireOnRootVolume(runner.folderPath)
        let system = try await runner.run("fill", runner.folderPath, "--leave", "0", "--json")
        #expect(system.status == 1)
        #expect((try system.json()["error"] as? [String: Any])?["code"] as? String == "refused")
        #expect(system.error.contains("the safety floor of 1 GiB"), "the floor as it is defined, not 1.1 GB: \(system.error)")
        #expect(!FileManager.default.fileExists(atPath: runner.folderPath + "/.stowage-fill"))
    }

    @Test("fill --status and release with nothing filled report nothing, and create no folder")
    func nothingFilledCreatesNothing() async throws {
        let runner = try CommandRunner()
        let status = try await runner.run("fill", "--status", "--app", "x")
        #expect(status.status == 0, "\(status.error)")
        #expect(status.output.hasPrefix("Nothing is filled"))
        let release = try await runner.run("release", "--app", "x", "--json")
        #expect(release.status == 0, "\(release.error)")
        #expect(try release.json()["releasedBytes"] as? Int == 0)
        #expect(!FileManager.default.fileExists(atPath: runner.folderPath + "/data/x"), "the container's Documents was made")
    }

    @Test("a home folder that cannot be examined keeps the safety floor: refused, saying why, unless --force")
    func unreadableHomeKeepsTheSafetyFloor() async throws {
        let runner = try CommandRunner()
        let volume = try ScratchVolume.mount(size: "16m", in: runner.folder)
        // HOME is a link to itself: stat(2) of it fails with ELOOP, so nobody can tell which
        // volume holds it; it might be this one.
        let home = runner.folderPath + "/looping-home"
        try FileManager.default.createSymbolicLink(atPath: home, withDestinationPath: home)
        let before = Self.available(volume.path)
        let refused = try await runner.run(["fill", volume.path, "--leave", "0", "--json"], environment: ["HOME": home])
        #expect(refused.status == 1, "\(refused.output)")
        let error = try #require(try refused.json()["error"] as? [String: Any])
        #expect(error["code"] as? String == "refused")
        #expect(refused.error.contains("could not tell whether this volume holds your home folder"), "\(refused.error)")
        #expect(refused.error.contains(home), "\(refused.error)")
        #expect(Self.available(volume.path) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: volume.path).isEmpty)
        let forced = try await runner.run(["fill", volume.path, "--leave", "0", "--force", "--json"], environment: ["HOME": home])
        #expect(forced.status == 0 || forced.status == 3, "\(forced.error)")
        #expect(Self.available(volume.path) < before)
        await #expect(try runner.run("release", volume.path).status == 0)
    }

    @Test("fill on XFS: goalReached and exit 0 with the settled available bytes on the goal; release reports them after XFS freed its blocks")
    func fillOnXFS() async throws {
        let runner = try CommandRunner()
        let volume = try ScratchVolume.mountXFS(megabytes: 400, in: runner.folder)
        let before = Self.available(volume.path)
        let fill = try await runner.run("fill", volume.path, "--leave", "100MB", "--method", "zeros", "--json")
        let report = try fill.json()
        #expect(fill.status == 0, "\(fill.error)")
        #expect(report["ending"] as? String == "goalReached")
        #expect(report["availableBytesAfter"] as? Int64 == 100_003_840, "\(report)")
        sync()
        #expect(Self.available(volume.path) == 100_003_840)
        let release = try await runner.run("release", volume.path, "--json")
        #expect(release.status == 0, "\(release.error)")
        #expect(try release.json()["availableBytesAfter"] as? Int64 == before)
    }

    @Test("a fill whose volume another writer keeps moving cannot settle: goalMissed, exit 3, the report as usual")
    func fillOnAMovingVolume() async throws {
        let runner = try CommandRunner()
        let volume = try ScratchVolume.mount(size: "64m", in: runner.folder)
        let writer = MovingWriter(path: volume.path + "/other.bin")
        let fill = try await runner.run("fill", volume.path, "--leave", "20MB", "--method", "zeros", "--chunk", "1MB", "--json")
        writer.stop()
        #expect(fill.status == 3, "\(fill.error)")
        let report = try fill.json()
        #expect(report["ending"] as? String == "goalMissed", "\(report)")
        await #expect(try runner.run("release", volume.path).status == 0)
    }
}

/// Another program writing all along: appends 4 KiB every 5 ms to a file, emptied again at
/// 1 MiB, so the volume's available bytes never stay put for 20 ms, until ``stop()``. The
/// thread runs at a real-time priority where this process may set one (root), so that a loaded
/// machine cannot hold it back for the 20 ms in which a fill would see the volume settled; it
/// sleeps between writes, so it takes little from anything else.
///
/// `@unchecked Sendable`: `running` is read and written only under `lock`.
final class MovingWriter: @unchecked Sendable {
    private let lock = NSLock()
    private var running = true
    private let done = DispatchSemaphore(value: 0)

    init(path: String) {
        let thread = Thread { [self] in
            defer { done.signal() }
            var priority = sched_param()
            priority.sched_priority = 10
            _ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &priority)  // refused without root: an ordinary thread then
            guard let file = FileHandle(forUpdatingAtPath: path) ?? {
                _ = FileManager.default.createFile(atPath: path, contents: nil)
                return FileHandle(forUpdatingAtPath: path)
            }() else { return }
            let block = Data(count: 4096)
            var size = 0
            while lock.withLock({ running }) {
                if size >= 1 << 20 {
                    try? file.truncate(atOffset: 0)
                    size = 0
                }
                try? file.seek(toOffset: UInt64(size))
                try? file.write(contentsOf: block)
                size += block.count
                Thread.sleep(forTimeInterval: 0.005)
            }
            try? file.close()
        }
        thread.start()
    }

    /// Stops writing, and waits for the writer to stop.
    func stop() {
        let wasRunning = lock.withLock { () -> Bool in
            defer { running = false }
            return running
        }
        guard wasRunning else { return }
        done.wait()
    }
}
