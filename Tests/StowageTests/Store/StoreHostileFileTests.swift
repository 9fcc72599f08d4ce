import Foundation
import Testing
@testable import Stowage

/// Files an append or a read must refuse, unchanged (issue 20, findings 10 and 11): arrays whose
/// end is not well formed, and FIFOs and devices in a value's place.
@Suite("Store: malformed arrays and special files")
struct StoreHostileFileTests {
    @Test("an append refuses an array whose end is not well formed, leaving every byte as it was",
          arguments: ["[1,2]]", "[1] [2]", "[1,[2]", "[,]", "[1 2]", "[1,,]", "[1,{]", "[{\"a\":1]", "[1,\"x]", "[ , 2]", "[1,2}]"])
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

    /// Runs `body` on a thread of its own and fails the test if it has not returned within ten
    /// seconds (a read of a FIFO once blocked forever): a hang is a failure, never a stuck suite.
    func withinTenSeconds(_ what: String, _ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body()
            done.signal()
        }
        if done.wait(timeout: .now() + 10) == .timedOut { Issue.record("\(what) did not return within 10 s") }
    }

    @Test("retrieve and append refuse a FIFO in a value's place at once, with wrongKind naming it")
    func fifo() throws {
        let folder = TestFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/container/Documents", withIntermediateDirectories: true)
        #expect(mkfifo(folder.path + "/container/Documents/pipe.json", 0o644) == 0)
        let store = folder.store()
        withinTenSeconds("retrieve of a FIFO") {
            expectStowageError(.wrongKind) { _ = try store.retrieve([Int].self, from: "pipe.json", in: .documents) }
            expectStowageError(.wrongKind) { _ = try store.retrieve(Data.self, from: "pipe.json", in: .documents) }
        }
        withinTenSeconds("append to a FIFO") {
            expectStowageError(.wrongKind) { try store.append(1, to: "pipe.json", in: .documents) }
        }
        do {
            _ = try store.retrieve(Data.self, from: "pipe.json", in: .documents)
        } catch let error as StowageError {
            #expect(error.description.contains("Documents/pipe.json") && error.description.contains("not a regular file"), "\(error)")
        }
    }

    @Test("retrieve and append refuse a character device (a copy of /dev/zero) without reading it")
    func characterDevice() throws {
        let folder = TestFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/container/Documents", withIntermediateDirectories: true)
        let path = folder.path + "/container/Documents/zero.bin"
        guard mknod(path, S_IFCHR | 0o644, dev_t(1 << 8 | 5)) == 0 else {  // major 1, minor 5: what /dev/zero is
            print("SKIPPED: mknod of a character device was refused (\(String(cString: strerror(errno)))); needs root")
            try Test.cancel("mknod refused here")
        }
        let store = folder.store()
        withinTenSeconds("retrieve of a character device") {
            expectStowageError(.wrongKind) { _ = try store.retrieve(Data.self, from: "zero.bin", in: .documents) }
            expectStowageError(.wrongKind) { try store.append(1, to: "zero.bin", in: .documents) }
        }
    }
}
