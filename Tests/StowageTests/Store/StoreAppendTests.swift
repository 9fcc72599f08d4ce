import Foundation
import Testing
@testable import Stowage

@Suite("Store: appending values")
struct StoreAppendTests {
    @Test("a missing file becomes a one-element array")
    func missingFile() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.append(Message(id: 1, text: "a"), to: "log/messages.json", in: .documents)
        #expect(try store.retrieve([Message].self, from: "log/messages.json", in: .documents) == [Message(id: 1, text: "a")])
    }

    @Test("an empty or blank file becomes a one-element array", arguments: ["", "  \n"])
    func emptyFile(content: String) throws {
        let folder = TestFolder()
        try folder.write(content, to: "container/Documents/m.json")
        let store = folder.store()
        try store.append(Message(id: 1, text: "a"), to: "m.json", in: .documents)
        #expect(try store.retrieve([Message].self, from: "m.json", in: .documents) == [Message(id: 1, text: "a")])
    }

    @Test("a file holding a single value becomes a two-element array")
    func singleValue() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Message(id: 1, text: "a"), to: "m.json", in: .documents)
        try store.append(Message(id: 2, text: "b"), to: "m.json", in: .documents)
        #expect(try store.retrieve([Message].self, from: "m.json", in: .documents)
            == [Message(id: 1, text: "a"), Message(id: 2, text: "b")])
    }

    @Test("appends to existing arrays: empty, compact, pretty-printed, with trailing blanks or a trailing comma",
          arguments: ["[]", "[ ]", "[\n]\n", #"[{"id":1,"text":"a"}]"#, #"[{"id":1,"text":"a"},]"#, "[{\"id\":1,\"text\":\"a\"},\n]", "[\n  {\n    \"id\" : 1,\n    \"text\" : \"a\"\n  }\n]\n\n"])
    func existingArrays(content: String) throws {
        let folder = TestFolder()
        try folder.write(content, to: "container/Documents/m.json")
        let store = folder.store()
        let before = try JSONDecoder().decode([Message].self, from: Data(content.utf8))
        try store.append(Message(id: 9, text: "z"), to: "m.json", in: .documents)
        try store.append(contentsOf: [Message(id: 10, text: "y"), Message(id: 11, text: "x")], to: "m.json", in: .documents)
        #expect(try store.retrieve([Message].self, from: "m.json", in: .documents)
            == before + [Message(id: 9, text: "z"), Message(id: 10, text: "y"), Message(id: 11, text: "x")])
    }

    @Test("appends in place: the file keeps its inode and only grows by the new element")
    func inPlace() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save((0..<1000).map { Message(id: $0, text: "m\($0)") }, to: "big.json", in: .documents)
        let path = folder.file("container/Documents/big.json").path(percentEncoded: false)
        var before = stat()
        stat(path, &before)
        try store.append(Message(id: 1000, text: "m1000"), to: "big.json", in: .documents)
        var after = stat()
        stat(path, &after)
        #expect(after.st_ino == before.st_ino, "an in-place append must not rewrite the file")
        let element = try JSONEncoder().encode(Message(id: 1000, text: "m1000"))
        #expect(Int(after.st_size) == Int(before.st_size) + 1 + element.count)
        #expect(try store.retrieve([Message].self, from: "big.json", in: .documents).count == 1001)
        #expect(folder.leftoverTemporaryItems().isEmpty)
    }

    @Test("non-JSON formats append by rewriting the array")
    func propertyListAppend() throws {
        let folder = TestFolder()
        let store = folder.store(.propertyList())
        try store.append(Message(id: 1, text: "a"), to: "m.plist", in: .documents)
        try store.append(Message(id: 2, text: "b"), to: "m.plist", in: .documents)
        #expect(try store.retrieve([Message].self, from: "m.plist", in: .documents).map(\.id) == [1, 2])
    }

    /// Starts an append of `{"id":2,"text":"b"}` to `m.json` the way the store does (journal
    /// first), and returns the file, where the element goes, and its bytes, for the test to crash.
    static func beginAppend(in folder: TestFolder) throws -> (OpenFile, Int64, Data) {
        let documents = try OpenFile.openFolder(atPath: folder.path + "/container/Documents", followingLinks: false)
        let file = try documents.open("m.json", flags: Sys.readWrite)
        let status = try file.status()
        let newBytes = Data(#",{"id":2,"text":"b"}]"#.utf8)
        let offset = status.size - 1
        try AppendJournal.begin(.init(device: status.device, inode: status.inode, offset: offset,
                                      anchor: try AppendJournal.anchor(of: file, before: offset),
                                      newLength: offset + Int64(newBytes.count), checksum: AppendJournal.checksum(newBytes),
                                      oldTail: Array("]".utf8)), for: "m.json", in: documents, durable: false)
        return (file, offset, newBytes)
    }

    @Test("an append interrupted before its data landed is undone by the next reader")
    func tornAppendIsRolledBack() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save([Message(id: 1, text: "a")], to: "m.json", in: .documents)
        let (file, offset, newBytes) = try Self.beginAppend(in: folder)
        try file.writeAll(newBytes.prefix(7), at: offset)  // the crash: only part of the element landed
        #expect(try store.retrieve([Message].self, from: "m.json", in: .documents) == [Message(id: 1, text: "a")])
        #expect(folder.leftoverTemporaryItems().isEmpty, "the journal is settled")
        try store.append(Message(id: 3, text: "c"), to: "m.json", in: .documents)
        #expect(try store.retrieve([Message].self, from: "m.json", in: .documents).map(\.id) == [1, 3])
    }

    @Test("an append that completed before its journal was removed is kept")
    func completedAppendIsKept() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save([Message(id: 1, text: "a")], to: "m.json", in: .documents)
        let (file, offset, newBytes) = try Self.beginAppend(in: folder)
        try file.writeAll(newBytes, at: offset)  // the crash: after the data, before the journal went
        #expect(try store.retrieve([Message].self, from: "m.json", in: .documents).map(\.id) == [1, 2])
        #expect(folder.leftoverTemporaryItems().isEmpty)
    }

    @Test("a journal cut short while being written is discarded and the file kept")
    func tornJournal() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save([Message(id: 1, text: "a")], to: "m.json", in: .documents)
        try folder.write("stowage-append-journal-2 12 34", to: "container/Documents/" + AppendJournal.name(for: "m.json"))
        try store.append(Message(id: 2, text: "b"), to: "m.json", in: .documents)
        #expect(try store.retrieve([Message].self, from: "m.json", in: .documents).map(\.id) == [1, 2])
        #expect(folder.leftoverTemporaryItems().isEmpty)
    }

    @Test("a journal whose file is gone is stale for a new file that got the same inode number")
    func staleJournalOfReusedInode() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save([Message(id: 1, text: "a")], to: "m.json", in: .documents)
        let (file, _, _) = try Self.beginAppend(in: folder)
        // The crash left the journal; then another program replaced the file by one that the
        // file system gave the same inode number. Rewriting in place makes exactly that file.
        let replacement = Data(#"[{"id":7,"text":"a different file, of a different length"}]"#.utf8)
        try file.truncate(to: 0)
        try file.writeAll(replacement, at: 0)
        let path = folder.path + "/container/Documents/m.json"
        #expect(try store.retrieve([Message].self, from: "m.json", in: .documents).map(\.id) == [7])
        #expect(try Data(contentsOf: URL(filePath: path)) == replacement, "left exactly as it was")
        #expect(folder.leftoverTemporaryItems().isEmpty, "the stale journal is removed")
    }

    @Test("removing, replacing or moving a file settles or drops its append journal")
    func journalFollowsTheFile() throws {
        let folder = TestFolder()
        let store = folder.store()
        // Removed: the journal goes with the file.
        try store.save([Message(id: 1, text: "a")], to: "m.json", in: .documents)
        _ = try Self.beginAppend(in: folder)
        try store.remove("m.json", from: .documents)
        #expect(folder.leftoverTemporaryItems().isEmpty, "removed with its file")
        // Replaced by a save: the journal described the old file.
        try store.save([Message(id: 1, text: "a")], to: "m.json", in: .documents)
        _ = try Self.beginAppend(in: folder)
        try store.save([Message(id: 5, text: "e")], to: "m.json", in: .documents)
        #expect(folder.leftoverTemporaryItems().isEmpty, "dropped by the save")
        #expect(try store.retrieve([Message].self, from: "m.json", in: .documents).map(\.id) == [5])
        // Renamed and moved in the middle of a torn append: settled first, so the file arrives whole.
        try store.save([Message(id: 1, text: "a")], to: "m.json", in: .documents)
        var (file, offset, newBytes) = try Self.beginAppend(in: folder)
        try file.writeAll(newBytes.prefix(7), at: offset)
        try store.rename("m.json", to: "n.json", in: .documents)
        #expect(folder.leftoverTemporaryItems().isEmpty, "settled before the rename")
        #expect(try store.retrieve([Message].self, from: "n.json", in: .documents).map(\.id) == [1])
        try store.rename("n.json", to: "m.json", in: .documents)
        (file, offset, newBytes) = try Self.beginAppend(in: folder)
        try file.writeAll(newBytes, at: offset)  // this one completed before the crash
        try store.move("m.json", from: .documents, to: .applicationSupport)
        #expect(folder.leftoverTemporaryItems().isEmpty, "settled before the move")
        #expect(try store.retrieve([Message].self, from: "m.json", in: .applicationSupport).map(\.id) == [1, 2])
    }
}

