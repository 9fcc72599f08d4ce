import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

/// Every operation that deletes (clear, sweep, relief, DiskCache, remove) against what an
/// attacker or a careless user puts in its way: links at the location level, mounts and bind
/// mounts inside, pinned folders, names that are not UTF-8, empty folders it did not empty,
/// writes in flight, hard links, a full disk. A sentinel tree beside the container must stay
/// byte for byte and inode for inode as it was.
@Suite("Reliability: deleting operations never reach what is not theirs")
struct SafeDestructionReliabilityTests {
    /// A container with files in every location, and a sentinel folder beside it.
    final class Scene: @unchecked Sendable {  // read-only after init; shared with the swapping thread
        let folder = TestFolder("destroy")
        let container: Container
        let store: Store
        var root: String { folder.path + "/container" }

        init() throws {
            container = folder.container()
            store = Store(container: container)
            try folder.write("sentinel", to: "outside/x")
            try folder.write("sentinel", to: "outside/deep/y")
            try FileManager.default.createDirectory(atPath: folder.path + "/outside/empty", withIntermediateDirectories: true)
            for location in [Location.temporary, .caches, .documents] {
                try store.save(Data(repeating: 1, count: 5000), to: "old/a.bin", in: location)
            }
        }

        func sentinel() throws -> [String: String] { try folder.snapshot("outside") }
    }

    // MARK: Links at the location level

    @Test("a location folder (or Library) that is a link is refused by clear and skipped by relief, its target untouched",
          arguments: ["Library/Caches", "Library", "Documents", "tmp"])
    func linkedLocation(_ linked: String) throws {
        let scene = try Scene()
        let path = scene.root + "/" + linked
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: scene.folder.path + "/outside")
        let before = try scene.sentinel()
        let location: Location = linked == "Documents" ? .documents : linked == "tmp" ? .temporary : .caches
        let error = expectStowageError(.invalidPath) { try scene.store.clear(location) }
        #expect(error?.reason?.contains(path) == true, "the error names the link: \(String(describing: error))")
        try SimulatedCapacity.withFigures(available: 0) {
            let relief = try scene.container.relieve(toAvailableBytes: 1_000_000_000)
            #expect(relief.issues.contains { $0.path.hasPrefix(path) }, "\(relief.issues)")
            _ = try scene.container.audit()
            _ = try scene.container.capacity()
        }
        #expect(try scene.sentinel() == before)
    }

    @Test("the default container's cache folder that is a link is refused, its target untouched")
    func linkedXDGCache() throws {
        let folder = TestFolder("xdglink")
        try folder.write("sentinel", to: "outside/x")
        try FileManager.default.createDirectory(atPath: folder.path + "/cache", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/cache/app", withDestinationPath: folder.path + "/outside")
        let store = Store(container: try .default(appIdentifier: "app", environment: folder.xdgEnvironment))
        let before = try folder.snapshot("outside")
        expectStowageError(.invalidPath) { try store.clear(.caches) }
        expectStowageError(.invalidPath) { try store.save(Data("x".utf8), to: "x", in: .caches) }
        #expect(try folder.snapshot("outside") == before)
    }

    @Test("a location folder swapped for a link while clear, sweep and relief run never leads them outside")
    func swapRace() throws {
        let scene = try Scene()
        let caches = scene.root + "/Library/Caches"
        let aside = scene.root + "/Library/Caches-aside"
        let before = try scene.sentinel()
        let stop = Flag()
        let swapper = Thread {
            while !stop.isSet {
                // Caches becomes a link to the sentinel, then a real folder again.
                _ = rename(caches, aside)
                _ = symlink(scene.folder.path + "/outside", caches)
                _ = unlink(caches)
                _ = rename(aside, caches)
            }
        }
        swapper.start()
        for round in 0..<150 {
            try? scene.store.save(Data(repeating: 2, count: 100), to: "r\(round)/f", in: .caches)
            _ = try? scene.store.clear(.caches)
            _ = try? Sweeper(policy: SweepPolicy(maximumFileAge: .seconds(0))).sweep(URL(filePath: caches), now: Date() + 10)
            _ = try? SimulatedCapacity.withFigures(available: 0) {
                try scene.container.relieve(toAvailableBytes: 1_000_000_000)
            }
        }
        stop.set()
        let stopped = Date()
        while !swapper.isFinished && Date() < stopped + 30 { usleep(1000) }
        #expect(swapper.isFinished, "the swapper stopped within 30 s")
        #expect(try scene.sentinel() == before)
    }

    // MARK: Mounts inside

    @Test("clear and sweep leave a file system mounted inside alone, and report it")
    func mountInside() throws {
        let scene = try Scene()
        let caches = URL(filePath: scene.root + "/Library/Caches", directoryHint: .isDirectory)
        let volume = try ScratchVolume.mount(size: "4m", at: caches, named: "m")
        try Data("on the mount".utf8).write(to: volume.url.appending(path: "keep.bin"))
        let report = try scene.store.clear(.caches)
        #expect(report.issues.contains { $0.path == volume.path && $0.message.contains("mount point") }, "\(report.issues)")
        #expect(try String(contentsOf: volume.url.appending(path: "keep.bin"), encoding: .utf8) == "on the mount")
        #expect(try !scene.store.exists("old/a.bin", in: .caches))
        let sweep = try Sweeper(policy: SweepPolicy(maximumFileAge: .seconds(0))).sweep(caches, now: Date() + 10)
        #expect(sweep.removed.isEmpty && sweep.issues.contains { $0.path == volume.path })
        #expect(FileManager.default.fileExists(atPath: volume.path + "/keep.bin"))
    }

    @Test("a bind mount of an outside folder inside a swept folder is not entered, though it shares the device")
    func bindMountInside() throws {
        let scene = try Scene()
        let target = scene.root + "/Library/Caches/bound"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        let bind = try runProcess(try requireToolURL("mount"), ["--bind", scene.folder.path + "/outside", target])
        guard bind.status == 0 else {
            print("SKIPPED: bind mounting was refused (\(bind.error)); this test needs root")
            try Test.cancel("bind mounting needs root")
        }
        defer { _ = try? runProcess(URL(filePath: "/bin/umount"), [target]) }
        let before = try scene.sentinel()
        let sweep = try Sweeper(policy: SweepPolicy(maximumFileAge: .seconds(0))).sweep(URL(filePath: scene.root + "/Library/Caches"),
                                                                         now: Date() + 10)
        #expect(sweep.issues.contains { $0.path == target && $0.message.contains("mount point") }, "\(sweep.issues)")
        let clear = try scene.store.clear(.caches)
        #expect(clear.issues.contains { $0.path == target })
        expectStowageError(.refused) { try scene.store.remove("bound", from: .caches) }  // never removed across the mount
        #expect(try scene.sentinel() == before)
    }

    // MARK: What a sweep may remove

    @Test("a sweep removes only folders it emptied, never folders that were empty already")
    func emptyFolders() throws {
        let scene = try Scene()
        let caches = scene.root + "/Library/Caches"
        for empty in ["empty", "deep/er/empty", "old/empty"] {
            try FileManager.default.createDirectory(atPath: caches + "/" + empty, withIntermediateDirectories: true)
        }
        try scene.store.save(Data("x".utf8), to: "gone/only.bin", in: .caches)
        let nothing = try Sweeper(policy: SweepPolicy(maximumFileAge: .seconds(1e9))).sweep(URL(filePath: caches))
        #expect(nothing.removed.isEmpty && nothing.removedFolders.isEmpty)
        let report = try Sweeper(policy: SweepPolicy(maximumFileAge: .seconds(0))).sweep(URL(filePath: caches), now: Date() + 10)
        #expect(Set(report.removed.map(\.path)) == ["old/a.bin", "gone/only.bin"])
        #expect(report.removedFolders == ["gone"])
        for empty in ["empty", "deep/er/empty", "old/empty"] {
            #expect(FileManager.default.fileExists(atPath: caches + "/" + empty), "\(empty) was empty before; it stays")
        }
    }

    @Test("relief takes only purgeable files from Documents, never its empty folders or a write in flight, and writes nothing there")
    func reliefInDocuments() throws {
        let scene = try Scene()
        let documents = scene.root + "/Documents"
        try FileManager.default.createDirectory(atPath: documents + "/user folder", withIntermediateDirectories: true)
        try Data("in flight".utf8).write(to: URL(filePath: documents + "/.stowage-tmp-inflight"))
        try scene.store.save(Data(repeating: 3, count: 8192), to: "maps/region.pack", in: .documents)
        try scene.store.mark("maps/region.pack", in: .documents, .purgeable)
        let report = try SimulatedCapacity.withFigures(available: 0) {
            try scene.container.relieve(toAvailableBytes: 1_000_000_000)
        }
        let documentsStep = try #require(report.steps.first { $0.location == .documents })
        #expect(documentsStep.report.removed.map(\.path) == ["maps/region.pack"])
        #expect(documentsStep.report.removedFolders == ["maps"])
        #expect(FileManager.default.fileExists(atPath: documents + "/user folder"))
        #expect(FileManager.default.fileExists(atPath: documents + "/.stowage-tmp-inflight"))
        #expect(try scene.store.exists("old/a.bin", in: .documents))
        #expect(!FileManager.default.fileExists(atPath: documents + "/.stowage-last-sweep"))
    }

    @Test("a pinned folder protects everything under it from sweeps, relief and clear")
    func pinnedFolder() throws {
        let scene = try Scene()
        try scene.store.save(Data(repeating: 4, count: 4096), to: "keep/inner/a.bin", in: .caches)
        try scene.store.mark("keep", in: .caches, .pinned)
        let caches = URL(filePath: scene.root + "/Library/Caches")
        let sweep = try Sweeper(policy: SweepPolicy(maximumAllocatedBytes: 0, maximumFileAge: .seconds(0))).sweep(caches, now: Date() + 10)
        #expect(sweep.removed.map(\.path) == ["old/a.bin"] && sweep.pinnedItemCount == 1)
        _ = try SimulatedCapacity.withFigures(available: 0) {
            try scene.container.relieve(toAvailableBytes: 1_000_000_000)
        }
        // Named itself, a pinned folder still protects what it holds.
        let named = try Sweeper(policy: SweepPolicy(maximumFileAge: .seconds(0))).sweep(caches.appending(path: "keep"), now: Date() + 10)
        #expect(named.removed.isEmpty && named.pinnedItemCount == 1)
        let clear = try scene.store.clear(.caches)
        #expect(clear.pinnedItemCount == 1)
        #expect(try scene.store.retrieve(Data.self, from: "keep/inner/a.bin", in: .caches).count == 4096)
    }

    @Test("names that are not UTF-8 are removed like any other, and JSON keeps their bytes")
    func nonUTF8Names() throws {
        let scene = try Scene()
        let caches = scene.root + "/Library/Caches"
        let badName: [UInt8] = [0xFF, 0xFE] + Array("-bad".utf8)
        let badPath = Array(caches.utf8) + [UInt8(ascii: "/")] + badName
        let fd = (badPath + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o600) }
        }
        #expect(fd >= 0)
        close(fd)
        let report = try Sweeper(policy: SweepPolicy(maximumFileAge: .seconds(0))).sweep(URL(filePath: caches), now: Date() + 10)
        let bad = try #require(report.removed.first { $0.pathBytes == badName })
        #expect(bad.path == "\u{FFFD}\u{FFFD}-bad")
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(bad)) as? [String: Any]
        #expect(json?["pathBase64"] as? String == Data(badName).base64EncodedString())
        #expect(try JSONDecoder().decode(SweptFile.self, from: JSONEncoder().encode(bad)).pathBytes == badName)
        #expect(try FileManager.default.contentsOfDirectory(atPath: caches) == ["CACHEDIR.TAG", ".stowage-last-sweep"].sorted()
                    || FileManager.default.contentsOfDirectory(atPath: caches).sorted() == [".stowage-last-sweep", "CACHEDIR.TAG"])
        // clear too: a name it cannot spell would leave the folder not empty.
        try scene.store.save(Data("x".utf8), to: "sub/f", in: .caches)
        let nested = Array((caches + "/sub/").utf8) + badName
        let fd2 = (nested + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o600) } }
        close(fd2)
        let clear = try scene.store.clear(.caches)
        #expect(clear.issues.isEmpty, "\(clear.issues)")
        #expect(try !scene.store.exists("sub", in: .caches))
    }

    @Test("a removed hard link whose data another name outside keeps frees nothing, and is reported so")
    func hardLinks() throws {
        let scene = try Scene()
        let caches = scene.root + "/Library/Caches"
        try Data(repeating: 5, count: 16384).write(to: URL(filePath: scene.folder.path + "/outside/linked.bin"))
        #expect(link(scene.folder.path + "/outside/linked.bin", caches + "/linked.bin") == 0)
        let report = try Sweeper(policy: SweepPolicy(maximumFileAge: .seconds(0))).sweep(URL(filePath: caches), now: Date() + 10)
        let linked = try #require(report.removed.first { $0.path == "linked.bin" })
        #expect(linked.allocatedBytes == 0)
        #expect(report.freedAllocatedBytes == report.removed.first { $0.path == "old/a.bin" }?.allocatedBytes)
        #expect(try Data(contentsOf: URL(filePath: scene.folder.path + "/outside/linked.bin")).count == 16384)
    }

    @Test("removing a folder by name takes all of it, Stowage's records and staging folders included")
    func removeWholeFolder() throws {
        let scene = try Scene()
        try scene.store.save(Data("x".utf8), to: "F/a.bin", in: .documents)
        _ = try Sweeper(policy: SweepPolicy(maximumFileAge: .seconds(1e9))).sweep(URL(filePath: scene.root + "/Documents/F"))
        try Data().write(to: URL(filePath: scene.root + "/Documents/F/CACHEDIR.TAG"))
        try FileManager.default.createDirectory(atPath: scene.root + "/Documents/F/.stowage-tmp-staging/sub",
                                                withIntermediateDirectories: true)
        #expect(FileManager.default.fileExists(atPath: scene.root + "/Documents/F/.stowage-last-sweep"))
        try scene.store.remove("F", from: .documents)
        #expect(try !scene.store.exists("F", in: .documents))
        // Saving a folder of data over an old one removes the old one the same way.
        try scene.store.saveFolder([Data("1".utf8)], to: "G", in: .documents)
        _ = try Sweeper(policy: SweepPolicy(maximumFileAge: .seconds(1e9))).sweep(URL(filePath: scene.root + "/Documents/G"))
        try scene.store.saveFolder([Data("2".utf8)], to: "G", in: .documents, options: WriteOptions(replacesExistingFolder: true))
        #expect(try scene.store.retrieveFolder(from: "G", in: .documents) == [Data("2".utf8)])
    }

    @Test("an old staging folder of an interrupted write is reclaimed whole by a sweep; a young one stays")
    func leftoverFolders() throws {
        let scene = try Scene()
        let caches = scene.root + "/Library/Caches"
        for name in [".stowage-tmp-old", ".stowage-tmp-young"] {
            try FileManager.default.createDirectory(atPath: caches + "/" + name + "/d", withIntermediateDirectories: true)
            try Data("part".utf8).write(to: URL(filePath: caches + "/" + name + "/d/0"))
        }
        let old = Date(timeIntervalSinceNow: -7200)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: caches + "/.stowage-tmp-old")
        let report = try Sweeper(policy: SweepPolicy(maximumFileAge: .seconds(1e9))).sweep(URL(filePath: caches))
        #expect(report.issues.isEmpty, "\(report.issues)")
        #expect(report.removed.map(\.path) == [".stowage-tmp-old"])
        #expect(!FileManager.default.fileExists(atPath: caches + "/.stowage-tmp-old"))
        #expect(FileManager.default.fileExists(atPath: caches + "/.stowage-tmp-young/d/0"))
    }

    @Test("a folder holding a mount is refused whole by remove: nothing in it is removed")
    func removeRefusesMounts() throws {
        let scene = try Scene()
        let holder = URL(filePath: scene.root + "/Documents/holder", directoryHint: .isDirectory)
        try scene.store.save(Data("mine".utf8), to: "holder/mine.bin", in: .documents)
        let volume = try ScratchVolume.mount(size: "1m", at: holder, named: "m")
        let error = expectStowageError(.refused) { try scene.store.remove("holder", from: .documents) }
        #expect(error?.reason?.contains("mount point") == true && error?.reason?.contains("nothing was removed") == true,
                "\(String(describing: error))")
        #expect(try scene.store.retrieve(Data.self, from: "holder/mine.bin", in: .documents) == Data("mine".utf8))
        _ = volume
    }

    @Test("clear refuses a rooted container at /, the home folder or above, and a shared sticky folder")
    func clearRefusesSystemRoots() throws {
        // A dry run, so that even a broken refusal could remove nothing.
        expectStowageError(.refused) { try Store(container: Container(root: URL(filePath: "/"))).clear(.temporary, dryRun: true) }
        let scene = try Scene()
        let tmp = scene.root + "/tmp"
        #expect(chmod(tmp, 0o1777) == 0)
        let error = expectStowageError(.permissionDenied) { try scene.store.clear(.temporary) }
        #expect(error?.reason?.contains("sticky") == true)
        #expect(try scene.store.exists("old/a.bin", in: .documents))
    }

    // MARK: Refusals

    @Test("sweeping /, or a folder that is a link, is refused before any walk")
    func refusals() throws {
        let scene = try Scene()
        // A dry run, so that even a broken refusal could remove nothing.
        let root = expectStowageError(.refused) { try Sweeper(policy: SweepPolicy(maximumFileAge: .seconds(0))).sweep(URL(filePath: "/"), dryRun: true) }
        #expect(root?.reason?.contains("root folder") == true)
        try FileManager.default.createSymbolicLink(atPath: scene.folder.path + "/link", withDestinationPath: scene.folder.path + "/outside")
        let before = try scene.sentinel()
        expectStowageError(.invalidPath) { try Sweeper(policy: SweepPolicy(maximumFileAge: .seconds(0))).sweep(URL(filePath: scene.folder.path + "/link")) }
        #expect(try scene.sentinel() == before)
    }

    // MARK: A full disk

    @Test("relief and sweeps free space on a volume with 0 bytes available, and succeed")
    func fullDisk() throws {
        let folder = TestFolder("full")
        let volume = try ScratchVolume.mount(size: "4m", in: folder)
        let container = Container(root: volume.url)
        let store = Store(container: container)
        for index in 0..<8 { try store.save(Data(repeating: 6, count: 65536), to: "c\(index).bin", in: .caches) }
        try store.save(Data(repeating: 7, count: 4096), to: "t.bin", in: .temporary)
        try fillVolume(volume.path + "/filler")
        #expect(try VolumeCapacity.forVolume(containing: volume.url).availableBytes == 0)
        let report = try container.relieve(toAvailableBytes: 200_000)
        #expect(report.isSatisfied, "\(report)")
        #expect(report.steps.map(\.location) == [.temporary, .caches])
        #expect(try VolumeCapacity.forVolume(containing: volume.url).availableBytes >= 200_000)
        // A sweep of a full volume frees first; its record, if it cannot be written, is an issue.
        try fillVolume(volume.path + "/filler2")
        let caches = try container.url(for: .caches)
        let nothingToFree = try Sweeper(policy: SweepPolicy(maximumFileAge: .seconds(1e9))).sweep(caches)
        #expect(nothingToFree.removed.isEmpty)
        #expect(nothingToFree.issues.map(\.path) == [caches.fileSystemPath + "/.stowage-last-sweep"], "\(nothingToFree.issues)")
        #expect(nothingToFree.issues.first?.message == "no space left on device")
        let sweep = try Sweeper(policy: SweepPolicy(maximumAllocatedBytes: 0)).sweep(caches)
        #expect(!sweep.removed.isEmpty)
    }

    /// Writes to `path` until the volume has no space left.
    private func fillVolume(_ path: String) throws {
        let fd = open(path, O_CREAT | O_WRONLY | O_APPEND, 0o600)
        #expect(fd >= 0)
        defer { close(fd) }
        let chunk = [UInt8](repeating: 9, count: 4096)
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        #expect(errno == ENOSPC)
    }
}

