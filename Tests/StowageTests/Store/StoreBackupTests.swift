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
        #expect(try !store.isExcludedFromBackup("videos/clip.mov", in: .documents))
        try store.excludeFromBackup("videos/clip.mov", in: .documents)
        try store.excludeFromBackup("videos", in: .documents)
        #expect(try store.isExcludedFromBackup("videos/clip.mov", in: .documents))
        #expect(try store.isExcludedFromBackup("videos", in: .documents))
        #expect(folder.attribute("user.xdg.robots.backup", of: "container/Documents/videos/clip.mov") == "false",
                "what backup tools read")
        try store.includeInBackup("videos/clip.mov", in: .documents)
        #expect(try !store.isExcludedFromBackup("videos/clip.mov", in: .documents))
        try store.includeInBackup("videos/clip.mov", in: .documents)  // idempotent
        expectStowageError(.notFound) { try store.excludeFromBackup("none", in: .documents) }
    }

    @Test("a file system without extended attributes gives unsupported, not a silent no-op")
    func unsupported() throws {
        let folder = TestFolder()
        let volume = try ScratchVolume.mount("ramfs", in: folder)
        let store = Store(container: Container(root: volume.url))
        try store.save(Data("x".utf8), to: "f", in: .documents)
        let error = expectStowageError(.unsupported) { try store.excludeFromBackup("f", in: .documents) }
        #expect(error?.description.contains("extended attributes") == true)
        #expect(error?.path == "f")
    }
}
