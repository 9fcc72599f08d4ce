import Foundation
import Testing
@testable import Stowage

@Suite("Store: backup exclusion")
struct StoreBackupTests {
    @Test("excludes and includes files and folders with the xdg backup attribute")
    func roundTrip() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data("big".utf8), to: "videos/clip.mov", in: .documents)
        #expect(try !store.markers(of: "videos/clip.mov", in: .documents).contains(.excludedFromBackup))
        try store.mark("videos/clip.mov", in: .documents, .excludedFromBackup)
        try store.mark("videos", in: .documents, .excludedFromBackup)
        #expect(try store.markers(of: "videos/clip.mov", in: .documents).contains(.excludedFromBackup))
        #expect(try store.markers(of: "videos", in: .documents).contains(.excludedFromBackup))
        #expect(folder.attribute("user.xdg.robots.backup", of: "container/Documents/videos/clip.mov") == "false",
                "what backup tools read")
        try store.unmark("videos/clip.mov", in: .documents, .excludedFromBackup)
        #expect(try !store.markers(of: "videos/clip.mov", in: .documents).contains(.excludedFromBackup))
        try store.unmark("videos/clip.mov", in: .documents, .excludedFromBackup)  // idempotent
        expectStowageError(.notFound) { try store.mark("none", in: .documents, .excludedFromBackup) }
    }

    @Test("a file system without extended attributes gives unsupported, not a silent no-op")
    func unsupported() throws {
        let folder = TestFolder()
        let volume = try ScratchVolume.mount("ramfs", in: folder)
        let store = Store(container: Container(root: volume.url))
        try store.save(Data("x".utf8), to: "f", in: .documents)
        let error = expectStowageError(.unsupported) { try store.mark("f", in: .documents, .excludedFromBackup) }
        #expect(error?.description.contains("extended attributes") == true)
        #expect(error?.path == "f")
    }
}
