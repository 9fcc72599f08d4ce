import Foundation
import Testing
@testable import Stowage

/// Files that are not what they should be: truncated, garbage, empty, the wrong type. Reading
/// them is a `decodingFailed` error naming the path, never a crash, and changes nothing; a
/// corrupt DiskCache entry is a miss and is removed.
@Suite("Reliability: corrupt input")
struct CorruptInputReliabilityTests {
    static let valid = #"{"id":1,"text":"hello"}"#

    /// Every cut of a valid value short of its end, garbage, empty and wrong-type content.
    static let corrupt: [String] = (0..<valid.utf8.count).map { String(valid.prefix($0)) }
        + ["garbage \u{1}", "\u{FEFF}", "\0\0\0\0", "null", "true", "42", #""text""#, "[1,2,3]", "[]",
           #"{"id":"one","text":"x"}"#, #"{"id":1}"#, #"{"id":1,"text":null}"#, #"{"id":1.5,"text":"x"}"#,
           #"{"id":99999999999999999999,"text":"x"}"#, #"{"id":1,"text":"\ud800"}"#, "{}", "{",
           String(repeating: "[", count: 10_000), #"{"id":1,"text":"x"} trailing"#]

    @Test("retrieve: every corrupt file is decodingFailed naming the path, and stays as it was")
    func retrieve() throws {
        let folder = TestFolder()
        let store = folder.store()
        for content in Self.corrupt {
            try folder.write(content, to: "container/Documents/m.json")
            let error = expectStowageError(.decodingFailed) { try store.retrieve(Message.self, from: "m.json", in: .documents) }
            #expect(error?.path == "m.json" && error?.location == .documents && error?.operation == .retrieve,
                    "\(String(reflecting: content))")
            #expect(error?.underlying is DecodingError)
            #expect(error?.description.hasPrefix("retrieve 'Documents/m.json' failed: ") == true)
            #expect(try folder.read("container/Documents/m.json") == content, "a failed read changes nothing")
        }
        print("corrupt input: \(Self.corrupt.count) corrupt files through retrieve, append and the property-list format")
    }

    @Test("append: a file holding neither an array nor one value is decodingFailed naming the path, and stays as it was")
    func append() throws {
        let folder = TestFolder()
        let store = folder.store()
        // Content that looks like an array ("[" ... "]") is appended to without being decoded
        // (documented: an append costs what the value costs); everything else must decode.
        let notArrays = Self.corrupt.filter {
            let trimmed = $0.trimmingCharacters(in: .whitespacesAndNewlines)
            return !(trimmed.hasPrefix("[") && trimmed.hasSuffix("]")) && !trimmed.isEmpty && $0 != Self.valid
                && (try? JSONDecoder().decode(Message.self, from: Data($0.utf8))) == nil
        }
        #expect(notArrays.count > 30)
        for content in notArrays {
            try folder.write(content, to: "container/Documents/m.json")
            let error = expectStowageError(.decodingFailed) {
                try store.append(Message(id: 2, text: "b"), to: "m.json", in: .documents)
            }
            #expect(error?.path == "m.json" && error?.location == .documents && error?.operation == .append,
                    "\(String(reflecting: content))")
            #expect(try folder.read("container/Documents/m.json") == content, "a failed append changes nothing")
        }
        #expect(folder.leftoverTemporaryItems().isEmpty)
    }

    @Test("property lists: corrupt files are decodingFailed for retrieve and append")
    func propertyList() throws {
        let folder = TestFolder()
        let store = folder.store(.propertyList())
        for content in ["", "garbage", "<?xml version=\"1.0\"?><plist><dict><key>id</key>", "bplist00\u{1}\u{2}"] {
            try folder.write(content, to: "container/Documents/m.plist")
            expectStowageError(.decodingFailed) { try store.retrieve(Message.self, from: "m.plist", in: .documents) }
            if !content.isEmpty {
                expectStowageError(.decodingFailed) { try store.append(Message(id: 1, text: "a"), to: "m.plist", in: .documents) }
            }
            #expect(try folder.read("container/Documents/m.plist") == content)
        }
    }

    @Test("DiskCache: a corrupt entry is a miss and is removed; an entry of another key is a miss and is kept")
    func cacheEntries() throws {
        let folder = TestFolder()
        // Files changed behind the cache's back are read from disk only without a memory tier.
        let cache = try DiskCache(folder: folder.file("cache"), limits: DiskCache.Limits(memoryCapacityBytes: 0))
        let (fanOut, name) = DiskCache.fileName(for: "k")
        let entry = "cache/\(fanOut)/\(name)"
        let header = DiskCache.header(key: "k", expiry: 0, dataLength: 5)
        let magic = header.prefix(16)
        var corrupt: [Data] = [Data(), Data("garbage".utf8), magic, header.prefix(19), header.prefix(header.count - 1)]
        corrupt.append(magic + Data([0xFF, 0xFF, 0xFF, 0xFF]) + Data("k".utf8))  // a key length past the end
        corrupt.append(magic + Data([0xFF, 0xFF, 0xFF, 0x7F]))
        corrupt.append(Data(repeating: 0, count: 10_000))
        corrupt.append(header + Data("val".utf8))  // cut short: 3 of the 5 bytes of data
        corrupt.append(header + Data("value!".utf8))  // longer than its header says
        for content in corrupt {
            try cache.set(Data("value".utf8), for: "k")
            try content.write(to: folder.file(entry))
            #expect(try cache.data(for: "k") == nil, "\(content.count) corrupt bytes are a miss")
            #expect(!folder.exists(entry), "and are removed")
            #expect(try cache.value(Message.self, for: "k") == nil)
        }
        // An entry that is whole but holds another key (a hash collision) is that key's: kept.
        var other = DiskCache.header(key: "other", expiry: 0, dataLength: 6)
        other.append(Data("theirs".utf8))
        try other.write(to: folder.file(entry))
        #expect(try cache.data(for: "k") == nil)
        #expect(folder.exists(entry))
        // A whole entry whose value does not decode as the type asked for is that caller's
        // error, not corruption: decodingFailed, and the entry stays.
        try cache.set(Data("not a message".utf8), for: "k")
        expectStowageError(.decodingFailed) { try cache.value(Message.self, for: "k") }
        #expect(try cache.data(for: "k") == Data("not a message".utf8))
        // An entry written behind the cache's back (the other key's) is not counted until an
        // eviction measures the folder; then the one entry file is.
        let reopened = try DiskCache(folder: folder.file("cache"))
        try reopened.sweep()
        #expect(reopened.count == 1)
    }
}
