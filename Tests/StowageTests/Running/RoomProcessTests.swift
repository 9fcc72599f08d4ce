import Foundation
import Testing
@testable import Stowage

/// `RoomProcess` on real mounts: the room is exact, the kernel says ENOSPC, the host is
/// untouched, and the command's own ending passes through.
@Suite("RoomProcess")
struct RoomProcessTests {
    @Test("a write past the room fails with ENOSPC from the kernel, after exactly the room was written")
    func writePastTheRoom() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        let plan = RoomPlan(available: .bytes(1 << 20), over: [fixture.real])
        let (report, output) = try fixture.run(plan, """
            dd if=/dev/zero of="$1/big" bs=65536 count=100
            echo status=$?
            echo size=$(stat -c %s "$1/big")
            """, arguments: [fixture.realPath])
        #expect(report.ending == .exited(0))
        #expect(output.contains("No space left on device"), "\(output)")
        #expect(RoomFixture.value("status", in: output) == "1")
        #expect(RoomFixture.value("size", in: output) == "\(1 << 20)", "exactly the room was written")
        #expect(!fixture.folder.exists("real/big"), "nothing reached the real folder")
        #expect(try hostRoomMounts().isEmpty)
    }

    @Test("df inside reports the room within a block", arguments: [Int64(0), 5_000_000, 1 << 20, 123_456_789])
    func dfReportsTheRoom(bytes: Int64) throws {
        try requireRooms()
        let fixture = try RoomFixture()
        let process = try RoomProcess.start(RoomPlan(available: .bytes(bytes), over: [fixture.real]),
                                            command: ["/bin/sh", "-c", RoomFixture.availableFunction + "echo avail=$(avail \"$1\") > \"$2\"",
                                                      "sh", fixture.realPath, fixture.folder.file("out/df").fileSystemPath])
        #expect(process.room.availableBytes >= bytes && process.room.availableBytes < bytes + 4096)
        #expect(process.room.totalBytes == max(4096, process.room.availableBytes), "a tmpfs room is its size")
        #expect(try process.wait().ending == .exited(0))
        let shown = try #require(Int64(RoomFixture.value("avail", in: try fixture.folder.read("out/df")) ?? ""))
        #expect(shown == process.room.availableBytes, "df inside: \(shown)")
        #expect(shown >= bytes && shown - bytes < 4096)
    }

    @Test("the real folder and the real volume are unchanged afterwards")
    func hostUnchanged() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        let volume = try ScratchVolume.mount(size: "16m", in: fixture.folder)
        let real = volume.url.appending(path: "data", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
        try Data(repeating: 1, count: 300_000).write(to: real.appending(path: "kept.bin"))
        try Data("note".utf8).write(to: real.appending(path: "note.txt"))
        let relative = volume.url.lastPathComponent + "/data"
        let before = try fixture.folder.snapshot(relative)
        let volumeBefore = try OpenFile.openFolder(atPath: volume.path, followingLinks: true).spaceFigures()

        let (report, output) = try fixture.run(RoomPlan(available: .bytes(2 << 20), over: [real]), """
            echo more >> "$1/kept.bin" && echo appended
            rm "$1/note.txt" && echo removed
            mkdir -p "$1/new/deeper" && head -c 500000 /dev/zero > "$1/new/deeper/file" && echo created
            chmod 600 "$1/kept.bin" && echo chmoded
            """, arguments: [real.fileSystemPath])
        #expect(report.ending == .exited(0))
        #expect(output.contains("appended") && output.contains("removed") && output.contains("created") && output.contains("chmoded"), "\(output)")
        #expect(try fixture.folder.snapshot(relative) == before, "every name, byte, inode, mode and time as before")
        let volumeAfter = try OpenFile.openFolder(atPath: volume.path, followingLinks: true).spaceFigures()
        #expect(volumeAfter == volumeBefore, "the real volume's figures are as before")
        #expect(try hostRoomMounts().isEmpty)
    }

    @Test("a Store write from the test helper inside a room is noSpace naming its path, and loses nothing")
    func storeWriteInsideTheRoom() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        let root = fixture.real.appending(path: "container", directoryHint: .isDirectory)
        let store = Store(container: Container(root: root))
        let original = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try store.save(original, to: "value.bin", in: .documents)
        let before = try fixture.folder.snapshot("real")

        let helper = try builtProduct("stowage-test-helper")
        let (report, output) = try fixture.run(RoomPlan(available: .bytes(256 << 10), over: [fixture.real]),
                                               "exec \"$1\" save-over \"$2\" value.bin 1000000",
                                               arguments: [helper.fileSystemPath, root.fileSystemPath])
        #expect(report.ending == .exited(0), "\(output)")
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.first == "error noSpace Documents/value.bin", "\(output)")
        #expect(lines.contains { $0.hasPrefix("save 'Documents/value.bin' failed: no space left on device") }, "\(output)")
        #expect(lines.contains("unchanged 100000"), "the old value read back whole inside the room: \(output)")
        #expect(lines.contains("entries: value.bin"), "no temporary file left inside the room: \(output)")
        #expect(try fixture.folder.snapshot("real") == before)
        #expect(try store.retrieve(Data.self, from: "value.bin", in: .documents) == original)
    }

    @Test("a drop makes a write that succeeded before fail after")
    func dropMakesWritesFail() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        let plan = RoomPlan(available: .bytes(5_000_000), over: [fixture.real],
                            drop: RoomPlan.Drop(to: .bytes(1_000_000), after: .seconds(10)))
        // Ten seconds: the script measures and writes before the drop, however slowly a loaded
        // machine starts df and head; then it waits for the drop.
        let (report, output) = try fixture.run(plan, RoomFixture.availableFunction + """
            echo before=$(avail "$1")
            head -c 1500000 /dev/zero > "$1/first" && echo first=written
            while [ "$(avail "$1")" -gt 2000000 ]; do sleep 0.05; done
            # The drop settles its figure (a page given back or filled near the goal): read it
            # once two readings 0.1 s apart agree, as the drop's own report does.
            previous=-1; current=$(avail "$1")
            while [ "$current" != "$previous" ]; do previous=$current; sleep 0.1; current=$(avail "$1"); done
            echo after=$current
            head -c 1500000 /dev/zero > "$1/second" && echo second=written || echo second=failed
            """, arguments: [fixture.realPath])
        #expect(report.ending == .exited(0))
        #expect(RoomFixture.value("before", in: output) == "5001216")
        #expect(RoomFixture.value("first", in: output) == "written", "\(output)")
        #expect(RoomFixture.value("after", in: output) == "1003520", "1 MB, rounded up to a page: \(output)")
        #expect(RoomFixture.value("second", in: output) == "failed", "\(output)")
        #expect(output.contains("No space left on device"))
        let drop = try #require(report.drop)
        #expect(drop.availableBytesAfter == 1_003_520)
        #expect(drop.availableBytesBefore == 5_001_216 - 1_503_232, "the room less the first file (in pages)")
        #expect(report.dropError == nil)
    }

    @Test("a drop after the command ended does not happen")
    func dropAfterTheEnd() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        // An hour's delay, and ten minutes to end: a wait that sat the delay out fails here
        // (and no machine is loaded enough to take ten minutes over `exit 0`).
        let plan = RoomPlan(available: .bytes(1 << 20), over: [fixture.real], drop: RoomPlan.Drop(to: .bytes(0), after: .seconds(3600)))
        let outcome = Outcome<RoomReport>()
        Thread.detachNewThread { outcome.set(Result { try fixture.run(plan, "exit 0").report }) }
        let report = try #require(try outcome.wait(within: .seconds(600)), "wait sat out the drop's delay")
        #expect(report.drop == nil && report.dropError == nil)
    }

    @Test("--inodes makes file creation fail while bytes remain", arguments: ["tmpfs", "ext4"])
    func inodeLimit(fileSystem: String) throws {
        let layer = try #require(RoomPlan.FileSystem(name: fileSystem))
        try requireRooms(fileSystem: layer)
        let fixture = try RoomFixture()
        let plan = RoomPlan(available: .bytes(1 << 20), over: [fixture.real], fileSystem: layer, availableInodes: 3)
        let (report, output) = try fixture.run(plan, RoomFixture.availableFunction + """
            echo inodes=$(df --output=iavail "$1" | tail -1 | tr -d ' ')
            touch "$1/a" "$1/b" "$1/c" && echo three=made
            touch "$1/d" || echo fourth=failed
            echo avail=$(avail "$1")
            """, arguments: [fixture.realPath])
        #expect(report.ending == .exited(0))
        #expect(report.room.availableInodeCount == 3)
        #expect(RoomFixture.value("inodes", in: output) == "3", "\(output)")
        #expect(RoomFixture.value("three", in: output) == "made")
        #expect(RoomFixture.value("fourth", in: output) == "failed")
        #expect(output.contains("No space left on device"))
        #expect(RoomFixture.value("avail", in: output) == "\(1 << 20)", "every byte still there")
    }

    @Test("the command's exit status and the signal that ended it pass through")
    func endingPassesThrough() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        let plan = RoomPlan(available: .bytes(1 << 20), over: [fixture.real])
        #expect(try fixture.run(plan, "exit 7").report.ending == .exited(7))
        #expect(try fixture.run(plan, "kill -TERM $$").report.ending == .signalled(.terminate))

        let process = try RoomProcess.start(plan, command: ["/bin/sleep", "3600"])
        killing(process)
        try process.send(.user1)
        #expect(try process.wait().ending == .signalled(.user1))
        #expect(throws: StowageError.self) { try process.send(.terminate) }
        #expect(try process.wait().ending == .signalled(.user1), "waiting again gives the same report")
    }

    @Test("every process of the room ends with the command: one it left running in the background does not outlive it")
    func backgroundProcessesEndWithTheRoom() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        let output = fixture.folder.file("out/background").fileSystemPath
        let go = fixture.folder.file("out/go").fileSystemPath
        let process = try RoomProcess.start(RoomPlan(available: .bytes(1 << 20), over: [fixture.real]), command: [
            "/bin/sh", "-c", "exec >\"$0\" 2>&1; echo namespace=$(readlink /proc/self/ns/mnt)\nsleep 300 &\nsleep 301 &\n"
                + "while [ ! -e \"$1\" ]; do sleep 0.02; done; exit 3", output, go])
        // The room's processes, looked up while it runs (once gone, its namespace's number may be another's).
        var room: [ProcessIdentity] = []
        for _ in 0..<2_400 where room.filter({ $0.isSleep(seconds: 300) || $0.isSleep(seconds: 301) }).count < 2 {
            Thread.sleep(forTimeInterval: 0.05)
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            if let namespace = RoomFixture.value("namespace", in: text) { room = processes(inMountNamespace: namespace) }
        }
        defer { end(room) }  // a failure leaves nothing running
        #expect(room.filter { $0.isSleep(seconds: 300) || $0.isSleep(seconds: 301) }.count == 2, "both sleeps run: \(room)")
        try fixture.folder.write("", to: "out/go")
        #expect(try process.wait().ending == .exited(3), "the command's own status")
        #expect(room.filter(\.exists).isEmpty, "wait() returns once every process of the room has ended")
    }

    @Test("wait() from the main actor runs off it; cancelling the waiting task stops the command with SIGTERM and still reports its end")
    @MainActor
    func asyncWait() async throws {
        try requireRooms()
        let fixture = try RoomFixture()
        let quick = try RoomProcess.start(RoomPlan(available: .bytes(1 << 20), over: [fixture.real]), command: ["/bin/true"])
        #expect(try await quick.wait().ending == .exited(0))
        // An hour: only the SIGTERM of the cancellation can end it within the test run, however
        // late a loaded machine's cooperative pool gets to the waiting task (it once started it
        // after a 60-second command had ended on its own).
        let slow = try RoomProcess.start(RoomPlan(available: .bytes(1 << 20), over: [fixture.real]), command: ["/bin/sleep", "3600"])
        defer { try? slow.send(.kill) }  // a failed expectation leaves nothing running
        killing(slow)
        let waiting = Task { @MainActor in try await slow.wait() }
        // The main actor is free while the command runs: this runs, and cancels the wait, while
        // the command sleeps.
        try await Task.sleep(for: .milliseconds(200))
        waiting.cancel()
        let report = try await waiting.value
        #expect(report.ending == .signalled(.terminate), "\(report.ending)")
        #expect(try hostRoomMounts().isEmpty)
    }

    @Test("a signal reaches the command however it is sent, and ends it; the command is not its PID namespace's init",
          arguments: [SIGTERM, SIGINT, SIGHUP, SIGUSR2, SIGQUIT])
    func signalsReachTheCommand(signal: Int32) throws {
        try requireRooms()
        let fixture = try RoomFixture()
        let process = try RoomProcess.start(RoomPlan(available: .bytes(1 << 20), over: [fixture.real]), command: ["/bin/sleep", "3600"])
        killing(process)
        try process.send(Signal(rawValue: signal))
        #expect(try process.wait().ending == .signalled(Signal(rawValue: signal)), "sleep has no handler: PID 1 would ignore it")
    }

    @Test("the command gets descriptors 0, 1 and 2 only: one this process opened without CLOEXEC is not inherited",
          arguments: ["tmpfs", "ext4"])
    func onlyStandardDescriptors(fileSystem: String) throws {
        try requireRooms(fileSystem: fileSystem == "ext4" ? .ext4 : .tmpfs)
        let fixture = try RoomFixture()
        try fixture.folder.write("real\n", to: "out/real.txt")
        let descriptor = open(fixture.folder.file("out/real.txt").fileSystemPath, O_WRONLY | O_APPEND)  // no O_CLOEXEC
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let plan = RoomPlan(available: .bytes(4 << 20), over: [fixture.real], fileSystem: fileSystem == "ext4" ? .ext4 : .tmpfs)
        let (report, output) = try fixture.run(plan, """
            echo changed >> /proc/$$/fd/\(descriptor) && echo wrote=yes  # (dash takes no fd above 9 in >&N)
            echo open:
            exec ls /proc/self/fd
            """)
        #expect(report.ending == .exited(0))
        // The shell's descriptors become ls's, which adds one, 3, to read the folder.
        #expect(output.hasSuffix("open:\n0\n1\n2\n3\n"), "\(output)")
        #expect(RoomFixture.value("wrote", in: output) == nil, "\(output)")
        #expect(try fixture.folder.read("out/real.txt") == "real\n", "the real file is unchanged")
    }

    @Test("no process of the room holds a descriptor this process had open: a file closed and removed here frees its space while the room runs")
    func roomHoldsNoDescriptorOfThisProcess() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        // Open with O_CLOEXEC, as every descriptor of the library and of Foundation is: the room's
        // child, its init and the command before its execve never exec, so only an explicit close
        // keeps them from holding it (and a file removed here from freeing its blocks, a flock
        // from being released, a mount from being unmounted).
        try fixture.folder.write("held\n", to: "out/held.txt")
        let heldPath = fixture.folder.file("out/held.txt").fileSystemPath
        let descriptor = open(heldPath, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        // 3601 s: no other test's command, so this one is found once it runs (it then holds only 0, 1 and 2).
        let process = try RoomProcess.start(RoomPlan(available: .bytes(1 << 20), over: [fixture.real]),
                                            command: ["/bin/sleep", "3601"])
        defer { try? process.send(.kill) }
        killing(process)
        close(descriptor)
        func isCommand(_ pid: String) -> Bool {
            (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) == "/bin/sleep\u{0}3601\u{0}"
        }
        for _ in 0..<2_400 where !((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).contains(where: isCommand) {
            Thread.sleep(forTimeInterval: 0.05)
        }
        let own = getpid()
        var holders: [String] = []
        var sleepsRead = 0  // the room's command, if its descriptors could be read
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), pid != own else { continue }
            let folder = "/proc/\(pid)/fd"
            guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            let name = ((try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "?").trimmingCharacters(in: .newlines)
            if isCommand(entry) { sleepsRead += 1 }
            for fd in descriptors where (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(fd)")) == heldPath {
                holders.append("\(pid) (\(name)) fd \(fd)")
            }
        }
        #expect(sleepsRead == 1, "the room's command was not found, or /proc hides its descriptors")
        #expect(holders.isEmpty, "\(holders)")
        try process.send(.terminate)
        #expect(try process.wait().ending == .signalled(.terminate))
    }

    @Test("the command sees only the room's processes: it is PID 2 under the room's init, and this process is not there")
    func ownProcessesOnly() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        let plan = RoomPlan(available: .bytes(1 << 20), over: [fixture.real])
        let (report, output) = try fixture.run(plan, """
            echo pid=$$
            echo namespaces=$(for p in /proc/[0-9]*; do readlink $p/ns/mnt; done | sort -u | wc -l)
            [ -e /proc/\(getpid())/root ] && echo parent=visible
            echo escaped > /proc/\(getpid())/root\(fixture.folder.file("out").fileSystemPath)/escaped || echo write=refused
            """)
        #expect(report.ending == .exited(0))
        #expect(RoomFixture.value("pid", in: output) == "2", "\(output)")
        #expect(RoomFixture.value("namespaces", in: output) == "1", "every process in /proc is the room's: \(output)")
        #expect(RoomFixture.value("parent", in: output) == nil, "\(output)")
        #expect(RoomFixture.value("write", in: output) == "refused", "\(output)")
        #expect(!fixture.folder.exists("out/escaped"))
    }

    @Test("nothing of the host is reachable through /proc in a single room: no descriptor of any process there is a folder, the real folder unchanged")
    func noEscapeThroughProc() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        let probe = try fixture.escapeProbe()
        let process = try RoomProcess.start(RoomPlan(available: .bytes(1 << 20), over: [fixture.real]), command: probe.command)
        #expect(try process.wait().ending == .exited(0))
        try probe.check(1)
    }

    @Test("two rooms at once over the same folder are independent")
    func twoRoomsAtOnce() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        func start(_ name: String, _ bytes: Int64) throws -> RoomProcess {
            let script = RoomFixture.availableFunction + """
                echo "$2" > "$1/$2"
                while [ ! -e "$3/go" ]; do sleep 0.02; done
                echo avail=$(avail "$1") > "$3/$2"
                echo seen=$(ls "$1" | tr '\\n' ' ') >> "$3/$2"
                """
            return try RoomProcess.start(RoomPlan(available: .bytes(bytes), over: [fixture.real]),
                                         command: ["/bin/sh", "-c", script, "sh", fixture.realPath, name,
                                                   fixture.folder.file("out").fileSystemPath])
        }
        let first = try start("first", 1 << 20)
        let second = try start("second", 3 << 20)
        try fixture.folder.write("", to: "out/go")  // both are running now, each with its file written
        #expect(try first.wait().ending == .exited(0))
        #expect(try second.wait().ending == .exited(0))
        let firstOutput = try fixture.folder.read("out/first")
        let secondOutput = try fixture.folder.read("out/second")
        #expect(RoomFixture.value("avail", in: firstOutput) == "\((1 << 20) - 4096)")
        #expect(RoomFixture.value("avail", in: secondOutput) == "\((3 << 20) - 4096)")
        #expect(RoomFixture.value("seen", in: firstOutput) == "first", "only its own file: \(firstOutput)")
        #expect(RoomFixture.value("seen", in: secondOutput) == "second", "only its own file: \(secondOutput)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.realPath).isEmpty)
    }

    @Test("copy-up: modifying a real file costs its whole size; truncating it, or removing it, costs no bytes but inodes")
    func copyUpCost() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        try Data(repeating: 9, count: 600_000).write(to: fixture.real.appending(path: "big.bin"))
        try Data(repeating: 9, count: 600_000).write(to: fixture.real.appending(path: "truncated.bin"))
        try Data(repeating: 9, count: 600_000).write(to: fixture.real.appending(path: "removed.bin"))
        try Data(repeating: 9, count: 600_000).write(to: fixture.real.appending(path: "removed-too.bin"))
        try FileManager.default.createDirectory(at: fixture.real.appending(path: "a/b/c"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: fixture.real.appending(path: "a/b/c/deep.txt"))
        let plan = RoomPlan(available: .bytes(1 << 20), over: [fixture.real], availableInodes: 100)
        let (report, output) = try fixture.run(plan, RoomFixture.availableFunction + """
            inodes() { df --output=iavail "$1" | tail -1 | tr -d ' '; }
            echo start=$(avail "$1"),$(inodes "$1")
            echo x >> "$1/big.bin"; echo appended=$(avail "$1"),$(inodes "$1")
            echo x > "$1/truncated.bin"; echo truncated=$(avail "$1"),$(inodes "$1")
            rm "$1/removed.bin"; echo removed=$(avail "$1"),$(inodes "$1")
            rm "$1/removed-too.bin"; echo removed2=$(avail "$1"),$(inodes "$1")
            echo y >> "$1/a/b/c/deep.txt"; echo deep=$(avail "$1"),$(inodes "$1")
            """, arguments: [fixture.realPath])
        #expect(report.ending == .exited(0))
        let room = 1 << 20
        let copied = (600_001 + 4095) / 4096 * 4096
        #expect(RoomFixture.value("start", in: output) == "\(room),100")
        #expect(RoomFixture.value("appended", in: output) == "\(room - copied),99", "the whole file copied up: \(output)")
        #expect(RoomFixture.value("truncated", in: output) == "\(room - copied - 4096),98", "only the new byte: \(output)")
        // A whiteout is a link to overlayfs's one shared whiteout, made at the first removal, and
        // tmpfs counts every link as an inode.
        #expect(RoomFixture.value("removed", in: output) == "\(room - copied - 4096),96", "a whiteout: two inodes the first time, no bytes: \(output)")
        #expect(RoomFixture.value("removed2", in: output) == "\(room - copied - 4096),95", "then one inode: \(output)")
        #expect(RoomFixture.value("deep", in: output) == "\(room - copied - 8192),91", "three folders copied up, then the file: \(output)")
    }

    @Test("keep copies what the command wrote and lists what it removed")
    func keepCopiesWrites() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        try Data("old".utf8).write(to: fixture.real.appending(path: "old.txt"))
        try Data("gone".utf8).write(to: fixture.real.appending(path: "gone.txt"))
        let keep = fixture.folder.file("kept")
        let plan = RoomPlan(available: .bytes(1 << 20), over: [fixture.real], keepingWritesIn: keep)
        let (report, _) = try fixture.run(plan, """
            echo new >> "$1/old.txt"
            rm "$1/gone.txt"
            mkdir "$1/folder" && echo inside > "$1/folder/file.txt" && ln -s file.txt "$1/folder/link"
            """, arguments: [fixture.realPath])
        #expect(report.ending == .exited(0))
        let kept = try #require(report.kept, "\(String(describing: report.keepError))")
        let base = "kept" + fixture.realPath
        #expect(try fixture.folder.read(base + "/old.txt") == "oldnew\n")
        #expect(try fixture.folder.read(base + "/folder/file.txt") == "inside\n")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: fixture.folder.file(base + "/folder/link").fileSystemPath) == "file.txt")
        #expect(!fixture.folder.exists(base + "/gone.txt"))
        #expect(kept.removedPaths == [fixture.realPath + "/gone.txt"])
        #expect(kept.fileCount == 2 && kept.folderCount == 1 && kept.symbolicLinkCount == 1)
        #expect(kept.copiedBytes == 7 + 7, "\(kept)")
        #expect(try fixture.folder.read("real/old.txt") == "old", "the real file is unchanged")
    }

    @Test("a mount inside a covered folder is covered too: its writes land in the room")
    func mountInsideIsCovered() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        let inner = try ScratchVolume.mount(size: "8m", at: fixture.real, named: "mounted")
        try Data("inner".utf8).write(to: inner.url.appending(path: "inner.txt"))
        let before = try fixture.folder.snapshot("real")
        let process = try RoomProcess.start(RoomPlan(available: .bytes(1 << 20), over: [fixture.real]),
                                            command: ["/bin/sh", "-c", RoomFixture.availableFunction + """
                                                cat "$1/mounted/inner.txt" > "$2"; echo >> "$2"
                                                head -c 600000 /dev/zero > "$1/mounted/a"; head -c 600000 /dev/zero > "$1/b" 2>/dev/null
                                                echo b=$? >> "$2"
                                                """, "sh", fixture.realPath, fixture.folder.file("out/mounted").fileSystemPath])
        #expect(process.room.folders == [fixture.realPath, inner.path])
        #expect(process.room.hiddenMounts.isEmpty)
        #expect(try process.wait().ending == .exited(0))
        let output = try fixture.folder.read("out/mounted")
        #expect(output.hasPrefix("inner\n"), "the mount's real content is seen: \(output)")
        #expect(RoomFixture.value("b", in: output) == "1", "both share the one room: \(output)")
        #expect(try fixture.folder.snapshot("real") == before)
    }

    @Test("an ext4 layer: the room within a block, ENOSPC past it, the loop device gone afterwards")
    func ext4Layer() throws {
        try requireRooms(fileSystem: .ext4)
        let fixture = try RoomFixture()
        let plan = RoomPlan(available: .bytes(20_000_000), over: [fixture.real], fileSystem: .ext4)
        let (report, output) = try fixture.run(plan, RoomFixture.availableFunction + """
            echo avail=$(avail "$1")
            echo loop=$(grep " $1 " /proc/self/mountinfo | grep -o '/dev/loop[0-9]*' | head -1)
            dd if=/dev/zero of="$1/big" bs=1M count=30 2>&1 | grep -c 'No space left'
            """, arguments: [fixture.realPath])
        #expect(report.ending == .exited(0))
        #expect(report.room.fileSystem == "ext4")
        let available = try #require(Int64(RoomFixture.value("avail", in: output) ?? ""), "\(output)")
        #expect(available >= 20_000_000 && available < 20_000_000 + 4096)
        #expect(output.split(separator: "\n").contains("1"), "dd met ENOSPC: \(output)")
        let loop = try #require(RoomFixture.value("loop", in: output).flatMap { $0.isEmpty ? nil : $0 }, "\(output)")
        let backing = "/sys/block/\(loop.split(separator: "/").last ?? "")/loop/backing_file"
        var gone = false
        for _ in 0..<2_400 where !gone {  // the device detaches itself once the namespace's mounts go (kernel work, late on a loaded machine)
            gone = !FileManager.default.fileExists(atPath: backing)
            if !gone { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(gone, "\(loop) still attached")
    }

    @Test("bad plans are refused before anything is made")
    func badPlans() throws {
        let fixture = try RoomFixture()
        let missing = fixture.folder.file("missing")
        expectStowageError(.notFound) { try RoomProcess.start(RoomPlan(available: .bytes(1), over: [missing]), command: ["/bin/true"]) }
        try Data().write(to: fixture.folder.file("file"))
        expectStowageError(.wrongKind) {
            try RoomProcess.start(RoomPlan(available: .bytes(1), over: [fixture.folder.file("file")]), command: ["/bin/true"])
        }
        expectStowageError(.invalidArgument) { try RoomProcess.start(RoomPlan(available: .bytes(1), over: [URL(filePath: "/")]), command: ["/bin/true"]) }
        expectStowageError(.invalidArgument) { try RoomProcess.start(RoomPlan(available: .bytes(1), over: []), command: ["/bin/true"]) }
        expectStowageError(.invalidArgument) { try RoomProcess.start(RoomPlan(available: .bytes(-1), over: [fixture.real]), command: ["/bin/true"]) }
        for percent in [-1, 101, Double.nan, .infinity] {
            let error = expectStowageError(.invalidArgument) {
                try RoomProcess.start(RoomPlan(available: .percentOfVolume(percent), over: [fixture.real]), command: ["/bin/true"])
            }
            #expect(error?.reason?.contains("between 0 and 100") == true, "refused as a percentage: \(String(describing: error))")
        }
        expectStowageError(.invalidArgument) {
            try RoomProcess.start(RoomPlan(available: .bytes(1000), over: [fixture.real], drop: RoomPlan.Drop(to: .bytes(1000), after: .zero)),
                                  command: ["/bin/true"])
        }
        expectStowageError(.invalidArgument) {
            try RoomProcess.start(RoomPlan(available: .bytes(1000), over: [fixture.real], availableInodes: -1), command: ["/bin/true"])
        }
        expectStowageError(.invalidArgument) { try RoomProcess.start(RoomPlan(available: .bytes(1000), over: [fixture.real]), command: []) }
        let error = expectStowageError(.notFound) {
            try RoomProcess.start(RoomPlan(available: .bytes(1000), over: [fixture.real]), command: ["stowage-no-such-program"],
                                  environment: ["PATH": "/usr/bin:/bin"])
        }
        #expect(error?.systemCall == "execve")
        let inside = expectStowageError(.invalidArgument) {
            try RoomProcess.start(RoomPlan(available: .bytes(1000), over: [fixture.real], keepingWritesIn: fixture.real.appending(path: "keep")),
                                  command: ["/bin/true"])
        }
        #expect(inside?.reason?.contains("which the room covers") == true, "\(String(describing: inside))")
        try fixture.folder.write("x", to: "keep/something")
        expectStowageError(.alreadyExists) {
            try RoomProcess.start(RoomPlan(available: .bytes(1000), over: [fixture.real], keepingWritesIn: fixture.folder.file("keep")),
                                  command: ["/bin/true"])
        }
        #expect(try hostRoomMounts().isEmpty)
    }

    @Test("a command that cannot be run is an error from start, with nothing left running")
    func commandCannotRun() throws {
        try requireRooms()
        let fixture = try RoomFixture()
        try fixture.folder.write("not a program", to: "real/plain.txt")
        let error = expectStowageError(.permissionDenied) {
            try RoomProcess.start(RoomPlan(available: .bytes(1000), over: [fixture.real]), command: [fixture.realPath + "/plain.txt"])
        }
        #expect(error?.systemCall == "execve")
        #expect(error?.path == fixture.realPath + "/plain.txt")
    }

    @Test("default folders: a container's location folders, or their nearest existing folders")
    func defaultFolders() throws {
        let fixture = try RoomFixture()
        let root = fixture.folder.file("container")
        #expect(try RoomPlan.defaultFolders(for: Container(root: root)).map(\.fileSystemPath) == [fixture.folder.path])
        try FileManager.default.createDirectory(at: root.appending(path: "Documents"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appending(path: "Library/Caches"), withIntermediateDirectories: true)
        let folders = try RoomPlan.defaultFolders(for: Container(root: root)).map(\.fileSystemPath)
        #expect(folders == [root.fileSystemPath + "/Documents", root.fileSystemPath + "/Library",
                            root.fileSystemPath + "/Library/Caches", root.fileSystemPath])
        #expect(try RoomPlan.defaultFolders(for: nil, environment: fixture.folder.xdgEnvironment).map(\.fileSystemPath)
                == [fixture.folder.path + "/home", fixture.folder.path + "/tmp"])
        #expect(try RoomPlan.defaultFolders(for: nil, environment: ["HOME": "/srv/me"]).map(\.fileSystemPath) == ["/srv/me", "/tmp"])
    }
}
