import Foundation
import Testing
@testable import Stowage

/// Files an append or a read must refuse, unchanged (issue 20, findings 10 and 11): arrays whose
/// end is not well formed, and FIFOs and devices in a value's place.
@Suite("Store: malformed arrays and special files")
struct StoreHostileFileTests {
    @Test("an append refuses an array whose end is not well formed, leaving every byte as it was",
          arguments: ["[1,2]]", "[1] [2]", "[1,[2]", "[,]", "[1 2]", "[1,,]", "[1,{]", "[{\"a\":1]", "[1,\"x]", "[ , 2]", "[1,2}]",
                      // Damage before the last element (issue 30, item 10): the whole file is checked.
                      "[1,\"x,2]", "[,1,2]", "[1],2]", "[1,[2,3]", "[1,,2,3]", "[1,\u{0}2]", "[01,2]", "[\"\\ud800\",2]"])
    func malformedEnds(content: String) throws {
        let folder = TestFolder()
        try folder.write(content, to: "container/Documents/n.json")
        let store = folder.store()
        do {
            try store.append(7, to: "n.json", in: .documents)
            Issue.record("\(content) became \(try folder.read("container/Documents/n.json"))")
        } catch let error as StowageError {
            #expect(error.code == .decodingFailed, "\(error)")
            #expect(error.description.contains("not a well-formed JSON array") || error.description.contains("neither"), "\(error)")
        }
        #expect(try folder.read("container/Documents/n.json") == content, "unchanged")
        #expect(folder.leftoverTemporaryItems(in: "container/Documents").isEmpty)
    }

    @Test("well-formed ends still append in place: nested values, strings holding brackets, quotes and backslashes",
          // Each starts with a string, the type appended (only the first element's type is checked).
          arguments: ["[\"s\",[1],[2]]", "[\"s\",{\"a\":[1,{\"b\":\"]\"}]}]", "[\"a]\\\"\",\"b\\\\\"]", "[\"[\",\"{\"]", "[\"s\",1,]",
                      "[ \"s\" , [ ] ]", "[\"\\\\\\\"],\"]", "[\"s\",null,true,-1.5e3]"])
    func wellFormedEnds(content: String) throws {
        let folder = TestFolder()
        try folder.write(content, to: "container/Documents/j.json")
        let store = folder.store()
        let before = try #require(try JSONSerialization.jsonObject(with: Data(content.utf8)) as? [Any])
        try store.append("z", to: "j.json", in: .documents, options: WriteOptions())
        let data = Data(try folder.read("container/Documents/j.json").utf8)
        let after = try #require(try JSONSerialization.jsonObject(with: data) as? [Any], "\(String(decoding: data, as: UTF8.self))")
        #expect(after.count == before.count + 1)
        #expect(after.last as? String == "z")
    }

    /// The one reason given for every special file, whatever the operation.
    static func specialFileReason(_ kind: String) -> String {
        "it is \(kind), a special file; the Store reads and writes only regular files and folders"
    }

    @Test("retrieve, append and append(Data) refuse every special file at once, with one message naming the path and its kind",
          arguments: [("a FIFO", S_IFIFO, 0), ("a socket", S_IFSOCK, 0), ("a character device", S_IFCHR, 1 << 8 | 5),
                      ("a block device", S_IFBLK, 7 << 8 | 250)] as [(String, mode_t, Int)])
    func specialFiles(kind: String, type: mode_t, device: Int) throws {
        let folder = TestFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/container/Documents", withIntermediateDirectories: true)
        guard mknod(folder.path + "/container/Documents/special", type | 0o644, dev_t(device)) == 0 else {
            print("SKIPPED: mknod of \(kind) was refused (\(String(cString: strerror(errno)))); devices need root")
            try Test.cancel("mknod refused here")
        }
        let store = folder.store()
        expectReturns(within: 10, "the calls on \(kind)") {
            let errors = [
                expectStowageError(.wrongKind) { _ = try store.retrieve([Int].self, from: "special", in: .documents) },
                expectStowageError(.wrongKind) { _ = try store.retrieve(Data.self, from: "special", in: .documents) },
                expectStowageError(.wrongKind) { try store.append(1, to: "special", in: .documents) },
                expectStowageError(.wrongKind) { try store.appendToFolder(Data("x".utf8), to: "special", in: .documents) },
            ]
            for error in errors {
                #expect(error?.reason == Self.specialFileReason(kind), "\(String(describing: error))")
                #expect(error?.description.contains("Documents/special") == true, "\(String(describing: error))")
            }
        }
    }
}
