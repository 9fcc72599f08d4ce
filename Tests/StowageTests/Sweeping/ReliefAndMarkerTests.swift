import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

@Suite("Pressure relief and markers", .serialized)
struct ReliefAndMarkerTests {
    @Test("relief frees tmp first, then caches LRU, then purgeable files; stops once the target is met")
    func reliefOrder() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data(count: 8192), to: "t1", in: .temporary)
        for index in 0..<5 { try store.save(Data(count: 4096), to: "c\(index)", in: .caches) }
        try store.save(Data(count: 4096), to: "precious.doc", in: .documents)
        try store.save(Data(count: 4096), to: "maps.pack", in: .applicationSupport)
        try store.mark("maps.pack", in: .applicationSupport, .purgeable)
        let capacity = try store.container.capacity()
        // Pretend 4 KiB are available and ask for 4 + 8 (tmp) + 8 (two caches) KiB.
        let report = try SimulatedCapacity.withFigures(available: 4096, total: ByteCount(capacity.total)) {
            try store.container.relieve(toAvailable: 4096 + 16_384, dryRun: false)
        }
        #expect(report.isSimulated)
        #expect(report.neededBytes == 16_384)
        #expect(report.isSatisfied)
        #expect(report.steps.map(\.location) == ["temporary", "caches"])
        #expect(report.steps[0].report.removed.map(\.path) == ["t1"])
        #expect(report.steps[1].report.removed.count == 2)
        #expect(try store.exists("precious.doc", in: .documents))
        #expect(try store.exists("maps.pack", in: .applicationSupport))

        let more = try SimulatedCapacity.withFigures(available: 0, total: ByteCount(capacity.total)) {
            try store.container.relieve(toAvailable: 4 * 4096 + 4096, dryRun: true)
        }
        #expect(more.steps.filter { !$0.report.removed.isEmpty }.map(\.location) == ["caches", "applicationSupport"])
        #expect(more.steps.last?.report.removed.map(\.path) == ["maps.pack"], "purgeable files go last")
        #expect(!more.steps.contains { $0.location == "documents" && !$0.report.removed.isEmpty }, "unmarked documents never go")
        #expect(try store.exists("c4", in: .caches), "a dry run removes nothing")
        let none = try SimulatedCapacity.withFigures(available: 1_000_000, total: ByteCount(capacity.total)) {
            try store.container.relieve(toAvailable: 1000)
        }
        #expect(none.steps.isEmpty && none.neededBytes == 0)
    }

    @Test("markers are set, read and removed; pinned and purgeable are extended attributes")
    func markers() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data(), to: "f", in: .documents)
        #expect(try store.markers(of: "f", in: .documents).isEmpty)
        try store.mark("f", in: .documents, .pinned)
        try store.mark("f", in: .documents, .purgeable)
        try store.mark("f", in: .documents, .excludedFromBackup)
        #expect(try store.markers(of: "f", in: .documents) == Set(Marker.all))
        #expect(folder.attribute("user.stowage.pinned", of: "container/Documents/f") == "1")
        try store.unmark("f", in: .documents, .pinned)
        #expect(try store.markers(of: "f", in: .documents) == [.purgeable, .excludedFromBackup])
        // Sweeps and audits read markers by folder and name after listing a folder; a file
        // removed in between carries no marker, rather than failing the whole sweep.
        let documents = try OpenFile.openFolder(atPath: folder.path + "/container/Documents", followingLinks: false)
        let isPurgeable = { try ExtendedAttributes.has(Marker.purgeable.attribute, value: Marker.setValue,
                                                       entry: RawPath("f"), inFolder: documents.descriptor) }
        #expect(try isPurgeable())
        try store.remove("f", from: .documents)
        #expect(try !isPurgeable())
    }

    @Test("markers on a file system without extended attributes are unsupported")
    func unsupported() throws {
        let folder = TestFolder()
        let volume = try ScratchVolume.mount("ramfs", in: folder)
        let store = Store(container: Container(root: volume.url))
        try store.save(Data(), to: "f", in: .caches)
        expectStowageError(.unsupported) { try store.mark("f", in: .caches, .pinned) }
        #expect(try store.markers(of: "f", in: .caches).isEmpty)
    }

    @Test("the caches folder carries a CACHEDIR.TAG that clear keeps")
    func cacheDirectoryTag() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data(), to: "x", in: .caches)
        let tag = try folder.read("container/Library/Caches/CACHEDIR.TAG")
        #expect(tag.hasPrefix("Signature: 8a477f597d28d172789f06886806bc55"))
        try store.clear(.caches)
        #expect(try folder.read("container/Library/Caches/CACHEDIR.TAG") == tag)
        #expect(try !store.exists("x", in: .caches))
    }

    @Test("tar --exclude-caches skips the caches' contents by their CACHEDIR.TAG, and archives the rest")
    func tarSkipsCaches() throws {
        let tar = try requireTool("tar")  // the backup tool this test asks
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data("cached".utf8), to: "x", in: .caches)
        try store.save(Data("kept".utf8), to: "d", in: .documents)
        let arguments = ["-cvf", "/dev/null", "-C", folder.path, "container"]
        // Without the option the cache file is archived: the check below can fail.
        let everything = try runProcess(URL(filePath: tar), arguments)
        #expect(everything.status == 0, "\(everything.error)")
        #expect(everything.output.contains("container/Library/Caches/x"), "\(everything.output)")
        let excluding = try runProcess(URL(filePath: tar), ["--exclude-caches"] + arguments)
        #expect(excluding.status == 0, "\(excluding.error)")
        #expect(excluding.output.contains("container/Documents/d"), "\(excluding.output)")
        #expect(!excluding.output.contains("container/Library/Caches/x"), "\(excluding.output)")
    }
}
