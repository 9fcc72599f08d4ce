import Foundation
import Testing
@testable import Stowage

@Suite("Store: no path escapes the container")
struct StoreSafetyTests {
    static let hostile = ["../outside/x", "/etc/passwd", "a/../../b", "..", "a\0b", "", ".", "./x", "a/./b",
                          String(repeating: "y", count: 256), ".stowage-tmp-1"]

    /// A folder with a container and, beside it, a sentinel tree that must never change.
    func setUp() throws -> (TestFolder, Store, [String: String]) {
        let folder = TestFolder()
        try folder.write("sentinel", to: "outside/x")
        try folder.write("sentinel", to: "outside/deep/y")
        let store = folder.store()
        try store.save(Data("inside".utf8), to: "inside.bin", in: .documents)
        return (folder, store, try folder.snapshot("outside"))
    }

    @Test("hostile paths are invalidPath for every operation, and nothing outside changes", arguments: hostile)
    func hostilePaths(path: String) throws {
        let (folder, store, before) = try setUp()
        let operations: [(String, () throws -> Void)] = [
            ("save", { try store.save(Data("evil".utf8), to: path, in: .documents) }),
            ("save value", { try store.save(Message(id: 0, text: "evil"), to: path, in: .documents) }),
            ("save folder", { try store.save([Data("evil".utf8)], to: path, in: .documents) }),
            ("retrieve", { _ = try store.retrieve(Data.self, from: path, in: .documents) }),
            ("retrieve folder", { _ = try store.retrieve([Data].self, from: path, in: .documents) }),
            ("append", { try store.append(Message(id: 0, text: "evil"), to: path, in: .documents) }),
            ("append data", { try store.append(Data("evil".utf8), to: path, in: .documents) }),
            ("remove", { try store.remove(path, from: .documents) }),
            ("exists", { _ = try store.exists(path, in: .documents) }),
            ("isFolder", { _ = try store.isFolder(path, in: .documents) }),
            ("move from", { try store.move(path, from: .documents, to: .caches) }),
            ("move to", { try store.move("inside.bin", from: .documents, to: .caches, as: path) }),
            ("rename to", { try store.rename("inside.bin", to: path, in: .documents) }),
            ("url", { _ = try store.url(for: path, in: .documents) }),
            ("exclude", { try store.excludeFromBackup(path, in: .documents) }),
            ("materialize", { try store.materialize(folder.file("outside/x"), to: path, in: .documents) }),
        ]
        for (name, operation) in operations {
            let error = expectStowageError(.invalidPath, operation)
            #expect(error?.path == path || error?.path == "inside.bin" || name == "move to", "\(name)")
        }
        #expect(try folder.snapshot("outside") == before)
        #expect(try store.retrieve(Data.self, from: "inside.bin", in: .documents) == Data("inside".utf8))
    }

    @Test("a link planted inside the container that points outside is never followed")
    func plantedLink() throws {
        let (folder, store, before) = try setUp()
        let documents = folder.path + "/container/Documents"
        try FileManager.default.createSymbolicLink(atPath: documents + "/escape", withDestinationPath: folder.path + "/outside")
        try FileManager.default.createSymbolicLink(atPath: documents + "/file-link", withDestinationPath: folder.path + "/outside/x")

        expectStowageError(.invalidPath) { try store.save(Data("evil".utf8), to: "escape/x", in: .documents) }
        expectStowageError(.invalidPath) { try store.save(Data("evil".utf8), to: "escape/new/y", in: .documents) }
        expectStowageError(.invalidPath) { try store.retrieve(Data.self, from: "escape/x", in: .documents) }
        expectStowageError(.invalidPath) { try store.retrieve(Data.self, from: "file-link", in: .documents) }
        expectStowageError(.invalidPath) { try store.append(Message(id: 1, text: "evil"), to: "file-link", in: .documents) }
        expectStowageError(.invalidPath) { try store.append(Data("evil".utf8), to: "escape", in: .documents) }
        expectStowageError(.invalidPath) { try store.retrieve([Data].self, from: "escape", in: .documents) }
        expectStowageError(.invalidPath) { try store.remove("escape/x", from: .documents) }
        expectStowageError(.invalidPath) { try store.excludeFromBackup("file-link", in: .documents) }
        expectStowageError(.invalidPath) { try store.move("escape/x", from: .documents, to: .caches) }
        #expect(try folder.snapshot("outside") == before)

        // Saving over the link replaces the link itself; removing it removes only the link.
        try store.save(Data("replaced".utf8), to: "file-link", in: .documents)
        #expect(try store.retrieve(Data.self, from: "file-link", in: .documents) == Data("replaced".utf8))
        try store.remove("escape", from: .documents)
        try store.clear(.documents)
        #expect(try folder.snapshot("outside") == before)
    }

    @Test("a folder swapped for a link after it was opened cannot redirect the write")
    func swappedFolder() throws {
        let (folder, store, before) = try setUp()
        try store.save(Data("1".utf8), to: "work/a", in: .documents)
        let documents = folder.path + "/container/Documents"
        // Swap: the real folder moves away, a link to the outside takes its name.
        try FileManager.default.moveItem(atPath: documents + "/work", toPath: documents + "/work-moved")
        try FileManager.default.createSymbolicLink(atPath: documents + "/work", withDestinationPath: folder.path + "/outside")
        expectStowageError(.invalidPath) { try store.save(Data("evil".utf8), to: "work/x", in: .documents) }
        expectStowageError(.invalidPath) { try store.remove("work/x", from: .documents) }
        try store.clear(.documents)  // removes the link itself, never what it points to
        #expect(try folder.snapshot("outside") == before)
    }
}
