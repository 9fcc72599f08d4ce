import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

@Suite("Markers", .serialized)
struct MarkerTests {
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
