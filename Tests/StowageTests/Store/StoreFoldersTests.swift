import Foundation
import Testing
@testable import Stowage

@Suite("Store: folders of data")
struct StoreFoldersTests {
    func items(_ count: Int) -> [Data] { (0..<count).map { Data("item \($0)".utf8) } }

    @Test("saves [Data] as numbered files and retrieves them in numeric order (10 after 9)")
    func numbered() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.saveFolder(items(12), to: "album", in: .documents)
        #expect(try store.retrieveFolder(from: "album", in: .documents) == items(12))
        #expect(try folder.read("container/Documents/album/10") == "item 10")
        #expect(try store.isFolder("album", in: .documents))
    }

    @Test("uses the chosen file extension; files that are not numbered come after the numbered ones, by name")
    func extensionsAndStrangers() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.saveFolder(items(3), to: "scans", in: .documents, fileExtension: "png")
        #expect(folder.exists("container/Documents/scans/2.png"))
        try folder.write("not mine", to: "container/Documents/scans/notes.txt")
        try folder.write("not mine", to: "container/Documents/scans/01.png")
        // Every file is returned, as Disk does (issue 11); "01.png" is not a number's name.
        #expect(try store.retrieveFolder(from: "scans", in: .documents)
            == items(3) + [Data("not mine".utf8), Data("not mine".utf8)])
        expectStowageError(.invalidArgument) { try store.saveFolder(items(1), to: "bad", in: .documents, fileExtension: "a/b") }
        // A slash glued into one Character by the marks around it is still a slash byte.
        expectStowageError(.invalidArgument) { try store.saveFolder(items(1), to: "bad", in: .documents, fileExtension: "\u{600}/\u{301}b") }
    }

    @Test("saving over an existing folder is an error unless replacement is asked for")
    func replace() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.saveFolder(items(5), to: "album", in: .documents)
        expectStowageError(.alreadyExists) { try store.saveFolder(items(2), to: "album", in: .documents) }
        #expect(try store.retrieveFolder(from: "album", in: .documents) == items(5))
        try store.saveFolder([Data("new".utf8)], to: "album", in: .documents, options: .replacingExistingFolder)
        #expect(try store.retrieveFolder(from: "album", in: .documents) == [Data("new".utf8)])
        #expect(folder.leftoverTemporaryItems().isEmpty)
    }

    @Test("appends data as the next number after the highest present, keeping the extension")
    func appendNumbered() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.appendToFolder(Data("first".utf8), to: "new-folder", in: .caches)
        #expect(try folder.read("container/Library/Caches/new-folder/0") == "first")
        try store.saveFolder(items(3), to: "pics", in: .documents, fileExtension: "jpg")
        try store.remove("pics/1.jpg", from: .documents)
        try store.appendToFolder(Data("x".utf8), to: "pics", in: .documents)
        try store.appendToFolder(contentsOf: [Data("y".utf8), Data("z".utf8)], to: "pics", in: .documents)
        #expect(try folder.read("container/Documents/pics/3.jpg") == "x")
        #expect(try folder.read("container/Documents/pics/5.jpg") == "z")
        #expect(try store.retrieveFolder(from: "pics", in: .documents).count == 5)
    }

    @Test("appending to a file as if it were a folder is wrongKind")
    func appendToFile() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data("x".utf8), to: "file", in: .documents)
        expectStowageError(.wrongKind) { try store.appendToFolder(Data(), to: "file", in: .documents) }
        expectStowageError(.wrongKind) { try store.retrieveFolder(from: "file", in: .documents) }
    }

    @Test("8 threads appending data to one folder lose nothing")
    func concurrentThreads() async throws {
        let folder = TestFolder()
        let store = folder.store()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for index in 0..<25 { try store.appendToFolder(Data("\(thread)-\(index)".utf8), to: "shared", in: .documents) }
                }
            }
            try await group.waitForAll()
        }
        let all = try store.retrieveFolder(from: "shared", in: .documents).map { String(decoding: $0, as: UTF8.self) }
        #expect(all.count == 200)
        #expect(Set(all).count == 200)
    }
}
