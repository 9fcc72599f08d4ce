import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

/// The whole-file check of an array file that Stowage did not last write, and the record that
/// lets an append trust one it did (issue 30, item 10).
@Suite("Store: the array check of an append")
struct StoreArrayCheckTests {
    /// Overwrites bytes of a file in place, as another program would (a new modification time, the
    /// same inode and size).
    func overwrite(_ path: String, at offset: UInt64, with text: String) throws {
        let handle = try FileHandle(forUpdating: URL(filePath: path))
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }

    @Test("a file another program changed is checked whole again: damage before the last element is refused, unchanged")
    func changedFileIsCheckedAgain() throws {
        let folder = TestFolder()
        let store = folder.store()
        let path = folder.path + "/container/Documents/n.json"
        try store.append(contentsOf: [1, 2, 3], to: "n.json", in: .documents)
        try store.append(4, to: "n.json", in: .documents)  // checked whole once, then trusted
        try store.append(5, to: "n.json", in: .documents)
        #expect(try folder.read("container/Documents/n.json") == "[1,2,3,4,5]")
        // Changed in place, same size: `[1,",3,4,5]`, an unclosed string an append would bury.
        try overwrite(path, at: 3, with: "\"")
        // Another modification time than Stowage's own write, whatever the clock's granularity.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)], ofItemAtPath: path)
        let error = expectStowageError(.decodingFailed) { try store.append(6, to: "n.json", in: .documents) }
        #expect(error?.reason?.contains("not a well-formed JSON array") == true, "\(String(describing: error))")
        #expect(try folder.read("container/Documents/n.json") == "[1,\",3,4,5]", "unchanged")
    }

    @Test("an array file is checked whole once; after that each append trusts what it last wrote, until the file changes")
    func checkedOnceThenTrusted() throws {
        let folder = TestFolder()
        let store = folder.store()
        try folder.write("[1,2,3]", to: "container/Documents/n.json")
        let probe = TestProbe()
        try TestProbe.$installed.withValue(probe) {
            try store.append(4, to: "n.json", in: .documents)
            #expect(probe.count(.arrayCheck) == 1, "a file Stowage did not write is checked whole")
            for value in 5...9 { try store.append(value, to: "n.json", in: .documents) }
            #expect(probe.count(.arrayCheck) == 1, "a file Stowage last wrote is trusted: appends stay O(value)")
            // A copy carrying the record (attributes and all) is another inode: checked again.
            let record = try #require(try Self.trustRecord(of: folder.path + "/container/Documents/n.json"))
            try folder.write(try folder.read("container/Documents/n.json"), to: "container/Documents/copy.json")
            try Self.setTrustRecord(record, on: folder.path + "/container/Documents/copy.json")
            // Same size and modification time as the original (to the nanosecond): only the inode tells.
            var original = stat()
            #expect(stat(folder.path + "/container/Documents/n.json", &original) == 0)
            var times = [original.st_atim, original.st_mtim]
            #expect(utimensat(AT_FDCWD, folder.path + "/container/Documents/copy.json", &times, 0) == 0)
            try store.append(10, to: "copy.json", in: .documents)
            #expect(probe.count(.arrayCheck) == 2, "a record that names another inode is no trust")
            // Changed by someone else (same inode, new size): checked again, once.
            try overwrite(folder.path + "/container/Documents/n.json", at: 18, with: " ,10]")
            try store.append(11, to: "n.json", in: .documents)
            try store.append(12, to: "n.json", in: .documents)
            #expect(probe.count(.arrayCheck) == 3)
        }
        #expect(try folder.read("container/Documents/n.json") == "[1,2,3,4,5,6,7,8,9 ,10,11,12]")
    }

    @Test("a 3 GiB sparse '[' + zeros + '1]' is refused at its first NUL byte, unchanged, without reading the hole")
    func sparseNulFileIsRefusedAtOnce() throws {
        let folder = TestFolder()
        try folder.write("[", to: "container/Documents/z.json")
        let path = folder.path + "/container/Documents/z.json"
        let size: UInt64 = 3 << 30
        #expect(truncate(path, off_t(size - 2)) == 0)
        try overwrite(path, at: size - 2, with: "1]")
        let store = folder.store()
        expectReturns(within: 60, "append to a 3 GiB sparse file") {
            let error = expectStowageError(.decodingFailed) { try store.append(7, to: "z.json", in: .documents) }
            #expect(error?.reason?.contains("at byte 1, a NUL byte;") == true, "\(String(describing: error))")
        }
        var status = stat()
        #expect(stat(path, &status) == 0 && UInt64(status.st_size) == size && status.st_blocks <= 64, "unchanged, still sparse")
    }

    @Test("the streaming check agrees with JSONSerialization on 4,000 seeded mutations of small arrays",
          .long("a differential run: 4,000 appends checked against Foundation, 22.7 s alone at load 5, 2026-11-28"))
    func checkAgreesWithFoundation() throws {
        let seeds = ["[1,2,3]", "[\"a\",{\"b\":[true,false,null]},-1.5e3]", "[[],{},\"\\u00e9\\ud83d\\ude00\"]", "[0,-0,1e+2,2E-3]",
                     "[\"x\\\\\\\"y\",[[[1]]],{\"k\":{\"l\":\"]\"}}]", "[ 1 , 2 ]", "[\"é\"]"]
        let alphabet = Array("[]{},:\"\\ 0123456789-+.eEtrufalsn\u{0}\tx".utf8) + [0xC3, 0xA9, 0xFF, 0xED, 0xA0]
        var random = SeededRandom(seed: 0x5A17)
        let folder = TestFolder()
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        var disagreements: [String] = []
        for round in 0..<4000 {
            var bytes = Array(seeds[Int(random.next() % UInt64(seeds.count))].utf8)
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let position = Int(random.next() % UInt64(bytes.count + 1))
                let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
                switch random.next() % 3 {
                case 0: bytes.insert(byte, at: position)
                case 1: if position < bytes.count { bytes.remove(at: position) }
                default: if position < bytes.count { bytes[position] = byte }
                }
            }
            guard bytes.first == UInt8(ascii: "[") else { continue }  // the check is of arrays only
            let data = Data(bytes)
            let foundation = (try? JSONSerialization.jsonObject(with: data)) is [Any]
            let file = try openForTest(writing: data, at: folder.path + "/f\(round % 8)")
            let problem = try JSONArrayCheck.problem(in: file, size: Int64(bytes.count))
            if foundation != (problem == nil) {
                disagreements.append("\(String(decoding: bytes, as: UTF8.self).debugDescription) Foundation \(foundation), check \(problem ?? "fine")")
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
        // Nesting: Foundation reads 512 levels and refuses 513; the check says the same.
        for depth in [512, 513] {
            let data = Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
            let file = try openForTest(writing: data, at: folder.path + "/deep")
            #expect((try JSONArrayCheck.problem(in: file, size: Int64(data.count)) == nil) == (depth == 512))
        }
    }

    static func trustRecord(of path: String) throws -> [UInt8]? {
        try OpenFile(adopting: open(path, O_RDONLY)).attribute(JSONArrayFile.trustAttribute)
    }

    static func setTrustRecord(_ value: [UInt8], on path: String) throws {
        try OpenFile(adopting: open(path, O_RDWR)).setAttribute(JSONArrayFile.trustAttribute, to: value)
    }
}

/// `data` written to a new file at `path`, opened for reading.
func openForTest(writing data: Data, at path: String) throws -> OpenFile {
    try data.write(to: URL(filePath: path))
    return OpenFile(adopting: open(path, O_RDONLY))
}
