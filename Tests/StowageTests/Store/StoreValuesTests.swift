import Foundation
import Testing
@testable import Stowage

struct Message: Codable, Equatable {
    var id: Int
    var text: String
}

@Suite("Store: values and data")
struct StoreValuesTests {
    @Test("saves and retrieves a Codable value, creating folders on the way")
    func codableRoundTrip() throws {
        let folder = TestFolder()
        let store = folder.store()
        let message = Message(id: 1, text: "hello")
        try store.save(message, to: "Inbox/2024/message.json", in: .documents)
        #expect(try store.retrieve(Message.self, from: "Inbox/2024/message.json", in: .documents) == message)
        #expect(try folder.read("container/Documents/Inbox/2024/message.json") == #"{"id":1,"text":"hello"}"#
            || folder.read("container/Documents/Inbox/2024/message.json") == #"{"text":"hello","id":1}"#)
    }

    @Test("overwrites a single value atomically and leaves no temporary file")
    func overwrite() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Message(id: 1, text: "a"), to: "m.json", in: .documents)
        try store.save(Message(id: 2, text: "b"), to: "m.json", in: .documents)
        #expect(try store.retrieve(Message.self, from: "m.json", in: .documents) == Message(id: 2, text: "b"))
        #expect(folder.leftoverTemporaryItems().isEmpty)
    }

    @Test("uses the coders it is given")
    func customCoders() throws {
        struct Event: Codable, Equatable { var at: Date }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let folder = TestFolder()
        let store = folder.store(.json(encoder: encoder, decoder: decoder))
        let event = Event(at: Date(timeIntervalSince1970: 1_700_000_000))
        try store.save(event, to: "e.json", in: .documents)
        #expect(try folder.read("container/Documents/e.json") == #"{"at":"2023-11-14T22:13:20Z"}"#)
        #expect(try store.retrieve(Event.self, from: "e.json", in: .documents) == event)
    }

    @Test("plugs in property lists")
    func propertyLists() throws {
        let folder = TestFolder()
        let store = folder.store(.propertyList(.xml))
        try store.save(Message(id: 3, text: "plist"), to: "m.plist", in: .preferences)
        #expect(try folder.read("container/Library/Preferences/m.plist").contains("<plist"))
        #expect(try store.retrieve(Message.self, from: "m.plist", in: .preferences) == Message(id: 3, text: "plist"))
    }

    @Test("saves and retrieves Data byte for byte")
    func dataRoundTrip() throws {
        let folder = TestFolder()
        let store = folder.store()
        let bytes = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try store.save(bytes, to: "blobs/blob.bin", in: .caches)
        #expect(try store.retrieve(Data.self, from: "blobs/blob.bin", in: .caches) == bytes)
        try store.save(Data(), to: "empty.bin", in: .caches)
        #expect(try store.retrieve(Data.self, from: "empty.bin", in: .caches) == Data())
    }

    @Test("a missing file is notFound, naming the location and path")
    func missing() {
        let folder = TestFolder()
        let store = folder.store()
        let error = expectStowageError(.notFound) { try store.retrieve(Message.self, from: "nope/none.json", in: .documents) }
        #expect(error?.location == .documents)
        #expect(error?.path == "nope/none.json")
        #expect(error?.operation == .retrieve)
    }

    @Test("a value that cannot be encoded is encodingFailed and writes nothing")
    func encodingFailure() throws {
        let folder = TestFolder()
        let store = folder.store()
        expectStowageError(.encodingFailed) { try store.save(Double.nan, to: "nan.json", in: .documents) }
        #expect(try !store.exists("nan.json", in: .documents))
    }

    @Test("a folder in the way of a file is wrongKind, in either direction")
    func wrongKind() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data("x".utf8), to: "dir/file", in: .documents)
        expectStowageError(.wrongKind) { try store.save(Data(), to: "dir", in: .documents) }
        expectStowageError(.wrongKind) { try store.retrieve(Data.self, from: "dir", in: .documents) }
        expectStowageError(.wrongKind) { try store.save(Data(), to: "dir/file/below", in: .documents) }
    }

    @Test("protected writes are owner-only on Linux: files 0600, new folders 0700")
    func protection() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data("secret".utf8), to: "keys/token", in: .applicationSupport,
                       options: WriteOptions(protection: .complete))
        #expect(folder.permissions("container/Library/Application Support/keys/token") == 0o600)
        #expect(folder.permissions("container/Library/Application Support/keys") == 0o700)
    }

    @Test("replacing a file keeps its permissions unless a protection is given")
    func keepsPermissions() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data("1".utf8), to: "f", in: .documents)
        #expect(chmod(folder.file("container/Documents/f").path(percentEncoded: false), 0o640) == 0)
        try store.save(Data("2".utf8), to: "f", in: .documents)
        #expect(folder.permissions("container/Documents/f") == 0o640)
        try store.save(Data("3".utf8), to: "f", in: .documents, options: WriteOptions(protection: .completeUnlessOpen))
        #expect(folder.permissions("container/Documents/f") == 0o600)
    }

    @Test("url(for:in:) keeps names exactly, without percent-encoding")
    func urls() throws {
        let folder = TestFolder()
        let store = folder.store()
        let url = try store.url(for: "my folder/100% done.txt", in: .documents)
        #expect(url.path(percentEncoded: false) == folder.path + "/container/Documents/my folder/100% done.txt")
        #expect(url.lastPathComponent == "100% done.txt")
    }
}
