import Foundation
import Testing
@testable import Stowage

/// What code ported from the `Disk` library expects of `exists` and `rename`.
@Suite("Store: exists and rename as a Disk user expects")
struct StoreItemsPortTests {
    @Test("exists is false for a missing item and for a path through a file, and throws when it cannot tell")
    func existsTellsNoFromCannotTell() throws {
        let folder = TestFolder("exists")
        let store = folder.store()
        try store.save(Data("x".utf8), to: "a", in: .documents)
        try store.save(Data("x".utf8), to: "Album/photo.png", in: .documents)
        #expect(try store.exists("a", in: .documents))
        #expect(try store.exists("Album", in: .documents))
        #expect(try store.exists("Album/photo.png", in: .documents))
        #expect(try !store.exists("missing", in: .documents))
        #expect(try !store.exists("Album/missing.png", in: .documents))
        #expect(try !store.exists("a/b", in: .documents))  // a file on the way: nothing can be there
        #expect(try !store.exists("a/b/c", in: .documents))
        // Invalid paths are rejected as by every path operation: a bug to hear about, not a "no".
        expectStowageError(.invalidPath) { try store.exists("", in: .documents) }
        expectStowageError(.invalidPath) { try store.exists("../x", in: .documents) }
        expectStowageError(.invalidPath) { try store.exists("/etc/passwd", in: .documents) }
    }

    @Test("renaming a folder into itself says so, names both paths, and touches nothing")
    func renameIntoItself() throws {
        let folder = TestFolder("into-itself")
        let store = folder.store()
        try store.save(Data("x".utf8), to: "album/photo.png", in: .documents)
        let before = try folder.snapshot()
        let error = expectStowageError(.invalidPath) { try store.rename("album", to: "album/sub", in: .documents) }
        #expect(error?.description
            == "rename 'Documents/album' to 'Documents/album/sub' failed: a folder cannot be moved into itself")
        expectStowageError(.invalidPath) { try store.rename("album", to: "album/x/y/sub", in: .documents) }
        expectStowageError(.invalidPath) {
            try store.move("album", from: .documents, to: .documents, as: "album/sub")
        }
        #expect(try folder.snapshot() == before)  // no folder made on the way, nothing moved
        #expect(error?.path == "album")
        #expect(error?.destinationPath == "album/sub")
        #expect(error?.destinationLocation == .documents)
        #expect(error?.errno == nil)  // found by Stowage, not by the kernel
    }

    @Test("a folder can still move beside itself, into a sibling, and up")
    func renameBesideItself() throws {
        let folder = TestFolder("beside-itself")
        let store = folder.store()
        try store.save(Data("x".utf8), to: "album/photo.png", in: .documents)
        try store.save(Data("y".utf8), to: "albums/old/a.png", in: .documents)
        try store.rename("album", to: "album2/sub", in: .documents)  // a name that starts the same
        try store.rename("album2/sub", to: "albums/sub", in: .documents)
        try store.rename("albums/old", to: "old", in: .documents)
        #expect(try store.retrieve(Data.self, from: "albums/sub/photo.png", in: .documents) == Data("x".utf8))
        #expect(try store.retrieve(Data.self, from: "old/a.png", in: .documents) == Data("y".utf8))
        try store.move("albums", from: .documents, to: .caches, as: "albums/inside")  // another location
        #expect(try store.retrieve(Data.self, from: "albums/inside/sub/photo.png", in: .caches) == Data("x".utf8))
    }

    @Test("moving a file below itself, or a missing item, says so: not 'a folder moved into itself'")
    func renameMessages() throws {
        let folder = TestFolder()  // bound, so it lives as long as the test
        let store = folder.store()
        try store.save(Data("x".utf8), to: "g.bin", in: .documents)
        let file = expectStowageError(.invalidPath) { try store.rename("g.bin", to: "g.bin/x", in: .documents) }
        #expect(file?.reason?.contains("below a file") == true, "\(String(describing: file))")
        expectStowageError(.notFound) { try store.rename("missing", to: "missing/x", in: .documents) }
        #expect(try store.retrieve(Data.self, from: "g.bin", in: .documents) == Data("x".utf8))
    }
}
