import CStowageShims
import Foundation
import Testing
@testable import Stowage

@Suite("Store: saving over a file keeps its markers")
struct StoreResaveMarkersTests {
    @Test("a file marked pinned, purgeable and excluded from backup keeps the marks when saved again")
    func resaveKeepsMarkers() throws {
        let folder = TestFolder("resave-markers")
        let store = folder.store()
        try store.save(Data("one".utf8), to: "maps/europe.pack", in: .applicationSupport)
        try store.mark("maps/europe.pack", in: .applicationSupport, .pinned)
        try store.mark("maps/europe.pack", in: .applicationSupport, .purgeable)
        try store.mark("maps/europe.pack", in: .applicationSupport, .excludedFromBackup)

        try store.save(Data("two".utf8), to: "maps/europe.pack", in: .applicationSupport)

        #expect(try store.retrieve(Data.self, from: "maps/europe.pack", in: .applicationSupport) == Data("two".utf8))
        #expect(try store.markers(of: "maps/europe.pack", in: .applicationSupport)
            == [.pinned, .purgeable, .excludedFromBackup])
        #expect(try store.markers(of: "maps/europe.pack", in: .applicationSupport).contains(.excludedFromBackup))
        #expect(folder.attribute("user.xdg.robots.backup",
                                 of: "container/Library/Application Support/maps/europe.pack") == "false")
    }

    @Test("a Codable value saved again keeps only the markers it had")
    func resaveValueKeepsOnlyItsMarkers() throws {
        let folder = TestFolder("resave-value")
        let store = folder.store()
        try store.save(["a": 1], to: "settings.json", in: .documents)
        try store.mark("settings.json", in: .documents, .pinned)
        try store.save(["a": 2], to: "settings.json", in: .documents)
        #expect(try store.markers(of: "settings.json", in: .documents) == [.pinned])
    }

    @Test("a read-only file keeps its markers and mode; attributes that are not markers stay behind")
    func resaveReadOnlyKeepsMarkersOnly() throws {
        let folder = TestFolder("resave-read-only")
        let store = folder.store()
        try store.save(Data("one".utf8), to: "a.bin", in: .documents)
        try store.mark("a.bin", in: .documents, .pinned)
        let file = folder.path + "/container/Documents/a.bin"
        let descriptor = open(file, O_RDONLY)
        #expect(cstowage_fsetxattr(descriptor, "user.other", "x", 1, 0) == 0)
        close(descriptor)
        #expect(chmod(file, 0o444) == 0)
        try store.save(Data("two".utf8), to: "a.bin", in: .documents)
        #expect(try store.markers(of: "a.bin", in: .documents) == [.pinned])
        #expect(folder.permissions("container/Documents/a.bin") == 0o444)
        #expect(folder.attribute("user.stowage.pinned", of: "container/Documents/a.bin") == "1")
        #expect(folder.attribute("user.other", of: "container/Documents/a.bin") == nil)
    }

    @Test("unmarking before saving again leaves the new file unmarked")
    func unmarkedStaysUnmarked() throws {
        let folder = TestFolder("resave-unmarked")
        let store = folder.store()
        try store.save(Data("one".utf8), to: "a.bin", in: .documents)
        try store.mark("a.bin", in: .documents, .purgeable)
        try store.mark("a.bin", in: .documents, .excludedFromBackup)
        try store.unmark("a.bin", in: .documents, .purgeable)
        try store.unmark("a.bin", in: .documents, .excludedFromBackup)
        try store.save(Data("two".utf8), to: "a.bin", in: .documents)
        #expect(try store.markers(of: "a.bin", in: .documents) == [])
    }

    @Test("a new file gets no markers, even beside marked ones")
    func newFileHasNone() throws {
        let folder = TestFolder("new-file-markers")
        let store = folder.store()
        try store.save(Data("one".utf8), to: "a.bin", in: .caches)
        try store.mark("a.bin", in: .caches, .pinned)
        try store.save(Data("two".utf8), to: "b.bin", in: .caches)
        #expect(try store.markers(of: "b.bin", in: .caches) == [])
        try store.remove("a.bin", from: .caches)
        try store.save(Data("three".utf8), to: "a.bin", in: .caches)
        #expect(try store.markers(of: "a.bin", in: .caches) == [])
    }

    @Test("a folder of data saved over, with replacement, keeps its markers too")
    func folderKeepsMarkers() throws {
        let folder = TestFolder()  // bound, so it lives as long as the test
        let store = folder.store()
        try store.saveFolder([Data("1".utf8)], to: "album", in: .documents)
        try store.mark("album", in: .documents, .pinned)
        try store.mark("album", in: .documents, .excludedFromBackup)
        try store.saveFolder([Data("2".utf8), Data("3".utf8)], to: "album", in: .documents,
                       options: WriteOptions(replacesExistingFolder: true))
        #expect(try store.retrieveFolder(from: "album", in: .documents).count == 2)
        #expect(try store.markers(of: "album", in: .documents) == [.pinned, .excludedFromBackup])
    }
}
