import Foundation
import Testing
@testable import Stowage

@Suite("Store: materialize")
struct StoreMaterializeTests {
    @Test("copies a read-only resource once into a writable location, then reuses the copy")
    func materialize() throws {
        let folder = TestFolder()
        try folder.write("seed v1", to: "bundle/seed.db")
        #expect(chmod(folder.path + "/bundle/seed.db", 0o444) == 0)
        let store = folder.store()
        let url = try store.materialize(folder.file("bundle/seed.db"), to: "db/seed.db")
        #expect(url.path(percentEncoded: false) == folder.path + "/container/Library/Application Support/db/seed.db")
        #expect(try folder.read("container/Library/Application Support/db/seed.db") == "seed v1")
        #expect(folder.permissions("container/Library/Application Support/db/seed.db") & 0o200 != 0, "the copy is writable")
        try Data("edited".utf8).write(to: url)
        try folder.write("seed v2", to: "bundle/other")
        let again = try store.materialize(folder.file("bundle/seed.db"), to: "db/seed.db")
        #expect(again == url)
        #expect(try folder.read("container/Library/Application Support/db/seed.db") == "edited", "later calls keep the copy")
    }

    @Test("copies a folder resource recursively")
    func folderResource() throws {
        let folder = TestFolder()
        try folder.write("1", to: "bundle/templates/a.txt")
        try folder.write("2", to: "bundle/templates/sub/b.txt")
        let store = folder.store()
        try store.materialize(folder.file("bundle/templates"), to: "templates", in: .documents)
        #expect(try folder.read("container/Documents/templates/sub/b.txt") == "2")
        #expect(folder.leftoverTemporaryItems().isEmpty)
    }

    @Test("a missing resource is notFound naming the resource")
    func missingResource() throws {
        let folder = TestFolder()
        let error = expectStowageError(.notFound) { try folder.store().materialize(folder.file("bundle/none"), to: "x") }
        #expect(error?.path == folder.path + "/bundle/none")
        #expect(try !folder.store().exists("x", in: .applicationSupport))
    }
}
