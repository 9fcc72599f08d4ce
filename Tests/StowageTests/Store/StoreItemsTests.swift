import Foundation
import Testing
@testable import Stowage

@Suite("Store: remove, exists, move, rename, clear")
struct StoreItemsTests {
    @Test("removes files and whole folders; a missing item is notFound")
    func remove() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data("1".utf8), to: "a/b/c.bin", in: .documents)
        try store.save(Data("2".utf8), to: "a/d.bin", in: .documents)
        try store.remove("a/b/c.bin", from: .documents)
        #expect(try !store.exists("a/b/c.bin", in: .documents))
        #expect(try store.exists("a/b", in: .documents))
        try store.remove("a", from: .documents)
        #expect(try !store.exists("a", in: .documents))
        expectStowageError(.notFound) { try store.remove("a", from: .documents) }
        expectStowageError(.notFound) { try store.remove("x/y", from: .caches) }
    }

    @Test("exists and isFolder tell files from folders")
    func inspect() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data(), to: "dir/file", in: .documents)
        #expect(try store.exists("dir", in: .documents))
        #expect(try store.isFolder("dir", in: .documents))
        #expect(try !store.isFolder("dir/file", in: .documents))
        #expect(try !store.exists("none", in: .documents))
        expectStowageError(.notFound) { try store.isFolder("none", in: .documents) }
    }

    @Test("moves between locations, keeping names with spaces, Unicode and % exactly")
    func move() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data("payload".utf8), to: "my file 100% ünï.bin", in: .temporary)
        try store.move("my file 100% ünï.bin", from: .temporary, to: .documents)
        #expect(try folder.read("container/Documents/my file 100% ünï.bin") == "payload")
        #expect(!folder.exists("container/Documents/my%20file%20100%25%20%C3%BCn%C3%AF.bin"))
        #expect(try !store.exists("my file 100% ünï.bin", in: .temporary))
        try store.saveFolder([Data("x".utf8)], to: "album", in: .caches)
        try store.move("album", from: .caches, to: .documents, as: "kept/album")
        #expect(try store.retrieveFolder(from: "kept/album", in: .documents) == [Data("x".utf8)])
    }

    @Test("a move never replaces what is at the destination")
    func moveConflict() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data("old".utf8), to: "f", in: .documents)
        try store.save(Data("new".utf8), to: "f", in: .caches)
        let error = expectStowageError(.alreadyExists) { try store.move("f", from: .caches, to: .documents) }
        #expect(error?.location == .documents)
        #expect(try store.retrieve(Data.self, from: "f", in: .documents) == Data("old".utf8))
        #expect(try store.retrieve(Data.self, from: "f", in: .caches) == Data("new".utf8))
        expectStowageError(.notFound) { try store.move("missing", from: .caches, to: .documents) }
    }

    @Test("moves across file systems by copying, then removing the original")
    func moveAcrossVolumes() throws {
        let folder = TestFolder()
        let (store, volume) = try folder.storeWithTemporaryOnItsOwnVolume()
        try store.saveFolder([Data("a".utf8), Data("b".utf8)], to: "download/parts", in: .temporary)
        try store.save(Data("single".utf8), to: "one file.bin", in: .temporary)
        try store.move("download", from: .temporary, to: .documents)
        try store.move("one file.bin", from: .temporary, to: .documents)
        #expect(try store.retrieveFolder(from: "download/parts", in: .documents) == [Data("a".utf8), Data("b".utf8)])
        #expect(try store.retrieve(Data.self, from: "one file.bin", in: .documents) == Data("single".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: volume.path).isEmpty)
        #expect(folder.leftoverTemporaryItems().isEmpty)
    }

    @Test("renames within a location, creating folders for the new path")
    func rename() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Message(id: 1, text: "a"), to: "draft.json", in: .documents)
        try store.rename("draft.json", to: "Sent/2024/final.json", in: .documents)
        #expect(try store.retrieve(Message.self, from: "Sent/2024/final.json", in: .documents) == Message(id: 1, text: "a"))
        #expect(try !store.exists("draft.json", in: .documents))
        try store.save(Data(), to: "other.json", in: .documents)
        expectStowageError(.alreadyExists) { try store.rename("other.json", to: "Sent/2024/final.json", in: .documents) }
    }

    @Test("clear empties one location and nothing else; a never-created location is already clear")
    func clear() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data("c".utf8), to: "a/b/c", in: .caches)
        try store.save(Data("d".utf8), to: "d", in: .documents)
        try store.clear(.caches)
        try store.clear(.temporary)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path + "/container/Library/Caches") == ["CACHEDIR.TAG"])
        #expect(try store.retrieve(Data.self, from: "d", in: .documents) == Data("d".utf8))
    }
}
