import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

/// A pinned folder protects everything under it, wherever the removal walk starts (issue 20,
/// finding 4: `stowage sweep pinned/sub --max-age 0s` removed every file of `sub`, since pins
/// were looked for only from the walk's root down).
@Suite("pins above the walk's root")
struct PinAboveRootTests {
    func pin(_ url: URL) throws {
        let folder = try OpenFile.openFolder(atPath: url.fileSystemPath, followingLinks: false)
        try withExtendedLifetime(folder) {
            try ExtendedAttributes.set(Marker.pinned.attribute, to: Marker.setValue, on: folder.descriptor)
        }
    }

    func files(_ folder: TestFolder, _ relatives: [String]) throws {
        for relative in relatives { try folder.write("data", to: relative) }
    }

    @Test("a sweep started inside a pinned folder, at any depth, removes nothing and counts what it kept as pinned")
    func sweepBelowPin() throws {
        let folder = TestFolder()
        try files(folder, ["pinned/sub/a", "pinned/sub/b", "pinned/x/y/deep/c"])
        try pin(folder.file("pinned"))
        let sweeper = Sweeper(policy: SweepPolicy(maximumFileAge: .seconds(0)))
        for start in ["pinned/sub", "pinned/x/y/deep", "pinned"] {
            let report = try sweeper.sweep(folder.file(start), now: Date().addingTimeInterval(3600))
            #expect(report.removed.isEmpty, "\(start): \(report.removed.map(\.path))")
            #expect(report.issues.isEmpty, "\(report.issues)")
        }
        #expect(try sweeper.sweep(folder.file("pinned/sub"), now: Date().addingTimeInterval(3600)).pinnedItemCount == 2)
        #expect(folder.exists("pinned/sub/a") && folder.exists("pinned/sub/b") && folder.exists("pinned/x/y/deep/c"))
    }

    @Test("a sweep above the pinned folder still removes what the pin does not cover")
    func sweepBesidePin() throws {
        let folder = TestFolder()
        try files(folder, ["top/pinned/kept", "top/loose/gone", "top/alone"])
        try pin(folder.file("top/pinned"))
        let report = try Sweeper(policy: SweepPolicy(maximumFileAge: .seconds(0))).sweep(folder.file("top"), now: Date().addingTimeInterval(3600))
        #expect(report.removed.map(\.path).sorted() == ["alone", "loose/gone"])
        #expect(folder.exists("top/pinned/kept"))
    }

    @Test("clearing a location and relief keep a container whose root is pinned")
    func clearAndReliefBelowPin() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data(count: 4096), to: "cached.bin", in: .caches)
        try store.save(Data(count: 4096), to: "scratch.bin", in: .temporary)
        try pin(folder.file("container"))
        let cleared = try store.clear(.caches)
        #expect(cleared.removed.isEmpty && cleared.pinnedItemCount >= 1, "\(cleared.removed.map(\.path))")
        #expect(try store.exists("cached.bin", in: .caches))
        let relief = try folder.container().relieve(toAvailableBytes: Int64.max / 2, dryRun: false)
        #expect(relief.freedAllocatedBytes == 0, "\(relief.steps.map { $0.report.removed.map(\.path) })")
        #expect(try store.exists("scratch.bin", in: .temporary) && store.exists("cached.bin", in: .caches))
    }

    @Test("a pin on a folder of another mount above the root does not reach into this mount")
    func pinStopsAtTheMount() throws {
        let folder = TestFolder()
        try FileManager.default.createDirectory(at: folder.file("pinned"), withIntermediateDirectories: true)
        try pin(folder.file("pinned"))
        let volume = try ScratchVolume.mount(size: "4m", in: folder.file("pinned"), named: "mnt")
        try Data("data".utf8).write(to: volume.url.appending(path: "gone"))
        let report = try Sweeper(policy: SweepPolicy(maximumFileAge: .seconds(0))).sweep(volume.url, now: Date().addingTimeInterval(3600))
        #expect(report.removed.map(\.path) == ["gone"], "the volume's own files are its own: \(report.issues)")
    }

    @Test("removing a named tree (Store.remove) is not a sweep: a pin above it does not stop it")
    func namedTreeBelowPin() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data(count: 10), to: "album/one.bin", in: .documents)
        try pin(folder.file("container"))
        try store.remove("album", from: .documents)
        #expect(!(try store.exists("album", in: .documents)))
    }

    @Test("a bind mount of a pinned folder's sub-folder (same file system) is still under the pin; a bind of an unpinned one is swept")
    func bindMountBelowPin() throws {
        let folder = TestFolder()
        try files(folder, ["pinned/sub/a", "pinned/sub/deeper/b", "plain/sub/c"])
        try pin(folder.file("pinned"))
        let bound = try ExtraMount(["--bind", folder.path + "/pinned/sub"], at: folder.path + "/bound")
        let plain = try ExtraMount(["--bind", folder.path + "/plain/sub"], at: folder.path + "/plain-bound")
        let sweeper = Sweeper(policy: SweepPolicy(maximumFileAge: .seconds(0)))
        for start in [bound.path, bound.path + "/deeper"] {
            let report = try sweeper.sweep(URL(filePath: start), now: Date().addingTimeInterval(3600))
            #expect(report.removed.isEmpty, "\(start): \(report.removed.map(\.path))")
            #expect(report.issues.isEmpty, "\(report.issues)")
        }
        #expect(folder.exists("pinned/sub/a") && folder.exists("pinned/sub/deeper/b"))
        let report = try sweeper.sweep(URL(filePath: plain.path), now: Date().addingTimeInterval(3600))
        #expect(report.removed.map(\.path) == ["c"], "\(report.issues)")
    }
}
