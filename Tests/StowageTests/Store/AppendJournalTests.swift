import Foundation
import Testing
@testable import Stowage

/// An append stopped between its journal and its bytes, and between its bytes and the
/// journal's removal (fault points, debug builds): the next reader or appender settles both.
@Suite("AppendJournal: appends stopped half-way")
struct AppendJournalTests {
    struct Stopped: Error {}

    static let original = Data("[1,2,3]".utf8)

    func arrayFile(_ folder: TestFolder) throws -> (Store, String) {
        let store = folder.store()
        try store.save(Data(), to: "placeholder", in: .documents)
        let path = folder.path + "/container/Documents/a.json"
        try Self.original.write(to: URL(filePath: path))
        return (store, path)
    }

    func journals(_ folder: TestFolder) -> [String] {
        folder.leftoverTemporaryItems(in: "container/Documents", prefixes: [AppendJournal.prefix])
    }

    @Test("stopped after the journal, with a torn tail written: the next reader puts the array back as it was")
    func stoppedAfterTheJournal() throws {
        for settler in ["reader", "appender"] {
            let folder = TestFolder()
            let (store, path) = try arrayFile(folder)
            let probe = TestProbe()
            // What a crash in the middle of writing the bytes leaves: part of them over the `]`.
            probe.on(.appendJournalWritten) { _ in
                let handle = try FileHandle(forWritingTo: URL(filePath: path))
                try handle.seek(toOffset: 6)
                try handle.write(contentsOf: Data(",{\"to".utf8))
                try handle.close()
                throw Stopped()
            }
            #expect(throws: Stopped.self) {
                try TestProbe.$installed.withValue(probe) { try store.append(4, to: "a.json", in: .documents) }
            }
            #expect(journals(folder).count == 1, "the journal was written before the bytes")
            #expect(try Data(contentsOf: URL(filePath: path)) == Data("[1,2,3,{\"to".utf8), "torn, as a crash left it")
            if settler == "reader" {
                #expect(try store.retrieve([Int].self, from: "a.json", in: .documents) == [1, 2, 3])
                #expect(try Data(contentsOf: URL(filePath: path)) == Self.original, "byte for byte")
            } else {
                try store.append(5, to: "a.json", in: .documents)
                #expect(try store.retrieve([Int].self, from: "a.json", in: .documents) == [1, 2, 3, 5])
            }
            #expect(journals(folder).isEmpty, "settled by the \(settler)")
        }
    }

    @Test("stopped after the bytes, before the journal's removal: the next reader keeps the completed append")
    func stoppedAfterTheBytes() throws {
        for settler in ["reader", "appender"] {
            let folder = TestFolder()
            let (store, path) = try arrayFile(folder)
            let probe = TestProbe()
            probe.on(.appendBytesWritten) { _ in throw Stopped() }
            #expect(throws: Stopped.self) {
                try TestProbe.$installed.withValue(probe) { try store.append(4, to: "a.json", in: .documents) }
            }
            #expect(journals(folder).count == 1, "the journal outlived the bytes")
            #expect(try Data(contentsOf: URL(filePath: path)) == Data("[1,2,3,4]".utf8))
            if settler == "reader" {
                #expect(try store.retrieve([Int].self, from: "a.json", in: .documents) == [1, 2, 3, 4])
            } else {
                try store.append(5, to: "a.json", in: .documents)
                #expect(try store.retrieve([Int].self, from: "a.json", in: .documents) == [1, 2, 3, 4, 5])
            }
            #expect(journals(folder).isEmpty, "settled by the \(settler)")
        }
    }
}
