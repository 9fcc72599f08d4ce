import Foundation
import Testing
@testable import Stowage

extension CapacityTests {
    @Suite("Mounted volumes")
    struct MountedVolumeTests {
        static func entry(_ device: UInt64, _ point: String, _ type: String = "ext4", root: String = "/") -> MountTable.Entry {
            MountTable.Entry(device: device, root: root, mountPoint: point, type: type, source: "/dev/x\(device)")
        }

        @Test("a mountinfo line gives the device number stat reports, and unescaped names")
        func parsesMountinfo() throws {
            let line = #"36 35 98:0 /sub\040dir /mnt/with\040space rw,noatime master:1 shared:2 - ext3 /dev/my\040disk rw,errors=continue"#
            let entry = try #require(MountTable.parse(line))
            #expect(entry.root == "/sub dir" && entry.mountPoint == "/mnt/with space")
            #expect(entry.type == "ext3" && entry.source == "/dev/my disk")
            #expect(entry.device == MountTable.device(major: 98, minor: 0))
            #expect(MountTable.parse("36 35 98:0 / /mnt rw") == nil, "no separator: not a mount line")
            // The root's device, as the table says and as stat says.
            let root = try #require(try MountTable.entries().last { $0.mountPoint == "/" })
            #expect(root.device == (try Sys.stat("/").device))
        }

        @Test("a mountinfo line keeps a mount point's bytes that are not UTF-8; its text has U+FFFD for them")
        func parsesBytes() throws {
            let line = Array("36 35 0:40 / /mnt/m".utf8) + [0xFF] + Array(#"\040x rw - tmpfs tmpfs rw"#.utf8)
            let entry = try #require(MountTable.parse(bytes: line))
            #expect(entry.mountPointPath.bytes == Array("/mnt/m".utf8) + [0xFF, 0x20, 0x78])
            #expect(entry.mountPoint == "/mnt/m\u{FFFD} x")
            #expect(MountTable.parse(String(decoding: line, as: UTF8.self))?.mountPointPath.bytes == Array("/mnt/m\u{FFFD} x".utf8),
                    "the text form reads the text")
        }

        @Test("a volume mounted at a name that is not UTF-8 is listed, measured and named by its exact bytes",
              .enabled(if: getuid() == 0, "mounting needs root"))
        func mountPointNotUTF8() throws {
            let folder = TestFolder()
            let point = Array((folder.path + "/m").utf8) + [0xFF]
            try mountTmpfs(atBytes: point, size: "1m")
            let mounted = try VolumeCapacity.mountedVolumes()
            let mine = try #require(mounted.volumes.first { $0.mountPointBytes == point },
                                    "listed: \(mounted.volumes.map(\.mountPoint)), issues: \(mounted.issues)")
            #expect(mine.mountPoint == folder.path + "/m\u{FFFD}")
            #expect(mine.capacity.totalBytes == 1 << 20 && mine.fileSystemType == "tmpfs")
            #expect(!mounted.issues.contains { $0.path.hasPrefix(folder.path) })
        }

        @Test("pseudo file systems are left out, a mount hidden by a later one too, and bind mounts count once")
        func groups() {
            let groups = VolumeCapacity.volumeGroups(of: [
                Self.entry(1, "/"), Self.entry(2, "/proc", "proc"), Self.entry(3, "/sys/fs/cgroup", "cgroup2"),
                Self.entry(4, "/srv/data/sub", root: "/sub"), Self.entry(4, "/data"), Self.entry(4, "/b"),
                Self.entry(5, "/dev/shm", "tmpfs"), Self.entry(6, "/dev/shm", "tmpfs"), Self.entry(7, "/snap/x/1", "squashfs"),
            ])
            #expect(groups.map { $0.map(\.mountPoint) } == [["/"], ["/data", "/srv/data/sub", "/b"], ["/dev/shm"]],
                    "the first mount showing the whole file system names it, the others follow in the table's order")
            #expect(groups[2].map(\.device) == [6], "the later mount on /dev/shm hides the earlier one")
        }

        @Test("kinds follow the file system type")
        func kinds() {
            #expect(MountedVolume.Kind(fileSystemType: "ext4") == .local)
            #expect(MountedVolume.Kind(fileSystemType: "overlay") == .local)
            #expect(MountedVolume.Kind(fileSystemType: "nfs4") == .network)
            #expect(MountedVolume.Kind(fileSystemType: "fuse.sshfs") == .network)
            #expect(MountedVolume.Kind(fileSystemType: "tmpfs") == .memory)
            #expect([MountedVolume.Kind.memory, .local, .network].sorted() == [.local, .network, .memory])
        }

        @Test("a volume unmounted after the table was read is not listed and is no issue: its mount point removed, or left on the volume below")
        func unmountedWhileListing() throws {
            // What `info --all` met while other tests' volumes came and went: a mount point
            // missing was an issue (exit 1), and one left behind was listed with the figures of
            // the volume below it.
            let folder = TestFolder()
            let removed = try ScratchVolume.mount(size: "8m", in: folder)
            let left = try ScratchVolume.mount(size: "8m", in: folder)
            let probe = TestProbe()
            probe.on(.mountsRead) { _ in
                for path in [removed.path, left.path] {
                    #expect(try runProcess(URL(filePath: "/bin/umount"), [path]).status == 0)
                }
                try FileManager.default.removeItem(atPath: removed.path)
            }
            let mounted = try TestProbe.$installed.withValue(probe) { try VolumeCapacity.mountedVolumes() }
            #expect(probe.hits(of: .mountsRead) == 1)
            #expect(!mounted.volumes.contains { $0.mountPoint == removed.path || $0.mountPoint == left.path },
                    "\(mounted.volumes.map(\.mountPoint))")
            #expect(!mounted.issues.contains { $0.path == removed.path || $0.path == left.path }, "\(mounted.issues)")
            #expect(mounted.volumes.contains { $0.mountPoint == "/" })
        }

        @Test("a tmpfs mounted twice (bind) is listed once with its figures; proc is not listed")
        func listsScratchVolumeOnce() throws {
            let folder = TestFolder()
            let volume = try ScratchVolume.mount(size: "8m", in: folder)
            try Data(repeating: 1, count: 1 << 20).write(to: volume.url.appending(path: "one-mib"))
            let bind = try ExtraMount(["--bind", volume.path], at: folder.path + "/bound here")
            let proc = try ExtraMount(["-t", "proc", "proc"], at: folder.path + "/proc")
            let mounted = try VolumeCapacity.mountedVolumes()
            let mine = mounted.volumes.filter { $0.mountPoint == volume.path || $0.mountPoint == bind.path }
            try #require(mine.count == 1, "\(mounted.volumes.map(\.mountPoint))")
            let listed = mine[0]
            #expect(listed.mountPoint == volume.path && listed.otherMountPoints == [bind.path])
            #expect(listed.kind == .memory && listed.fileSystemType == "tmpfs" && listed.source == "tmpfs")
            let df = try CapacityTests.df(volume.path)
            #expect(listed.capacity.totalBytes == 8 << 20 && listed.capacity.totalBytes == df.total)
            #expect(listed.capacity.availableBytes == df.available && listed.capacity.usedBytes == 1 << 20)
            #expect(!mounted.volumes.contains { $0.mountPoint == proc.path || $0.mountPoint == "/proc" || $0.fileSystemType == "proc" })
            #expect(mounted.volumes.contains { $0.mountPoint == "/" })
            #expect(mounted.volumes.map(\.kind) == mounted.volumes.map(\.kind).sorted(), "local first, memory last")
        }
    }
}
