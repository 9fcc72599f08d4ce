import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

/// The one folder reader (``DirectoryStream``): on Linux it reads `getdents64` records itself, so
/// each name's length comes from its record and a folder takes several reads of the buffer.
@Suite("DirectoryStream", .hangLimit)
struct DirectoryStreamTests {
    /// Every entry of the folder at `path`: its name's bytes, the length the stream gave, whether
    /// a NUL follows the name there, and the kind the folder reported.
    static func entries(of path: String) throws -> [(name: [UInt8], length: Int, terminated: Bool, kind: FileStatus.Kind?)] {
        let stream = try DirectoryStream(path: RawPath(path), followingLinks: false)
        var entries: [(name: [UInt8], length: Int, terminated: Bool, kind: FileStatus.Kind?)] = []
        try stream.forEachEntry { entry in
            let name = entry.name.withMemoryRebound(to: UInt8.self, capacity: entry.nameLength + 1) {
                Array(UnsafeBufferPointer(start: $0, count: entry.nameLength))
            }
            entries.append((name, entry.nameLength, entry.name[entry.nameLength] == 0, entry.kind))
            return true
        }
        return entries
    }

    @Test("every name length from 1 to 255 bytes comes back whole, not UTF-8 ones too, and . and .. never")
    func nameLengths() throws {
        let folder = TestFolder()
        let root = folder.path + "/names"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        // Lengths 1...255 (NAME_MAX), each name its own letter repeated; every seventh ends in
        // 0xFF, which is not UTF-8. Records are padded to 8 bytes, so every place of the NUL in
        // the last word of a record is met.
        var names: [[UInt8]] = []
        for length in 1...255 {
            var name = [UInt8](repeating: 0x61 + UInt8(length % 26), count: length)
            if length % 7 == 0 { name[length - 1] = 0xFF }
            names.append(name)
            try RawFiles.makeFile(RawFiles.join(root, name))
        }
        let entries = try Self.entries(of: root)
        #expect(entries.count == 255, "no . or .., nothing twice")
        #expect(Set(entries.map(\.name)) == Set(names))
        #expect(entries.allSatisfy { $0.length == $0.name.count && $0.terminated && !$0.name.contains(0) })
    }

    @Test("a folder larger than one read's buffer is read whole, each entry once")
    func largeFolder() throws {
        let folder = TestFolder()
        let root = folder.path + "/many"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        // 3,000 names of 60 bytes: 80-byte records, 240 KB, several reads of 32 KB each.
        let names = (0..<3000).map { Array(String(format: "%060d", $0).utf8) }
        for name in names { try RawFiles.makeFile(RawFiles.join(root, name)) }
        let entries = try Self.entries(of: root)
        #expect(entries.count == 3000)
        #expect(Set(entries.map(\.name)) == Set(names))
        #expect(entries.allSatisfy { $0.length == 60 && $0.terminated })
    }

    @Test("each entry's kind is the one its status has, or unknown where the file system does not say")
    func kinds() throws {
        let folder = TestFolder()
        let root = folder.path + "/kinds"
        try FileManager.default.createDirectory(atPath: root + "/folder", withIntermediateDirectories: true)
        try RawFiles.makeFile(Array((root + "/file").utf8), size: 10)
        try RawFiles.makeLink(Array((root + "/link").utf8), to: Array("file".utf8))
        #expect(mkfifo(root + "/fifo", 0o600) == 0)
        let kinds = Dictionary(uniqueKeysWithValues: try Self.entries(of: root).map { (String(decoding: $0.name, as: UTF8.self), $0.kind) })
        let expected: [String: FileStatus.Kind] = ["folder": .folder, "file": .file, "link": .symbolicLink, "fifo": .other]
        #expect(Set(kinds.keys) == Set(expected.keys))
        for (name, kind) in expected { #expect(kinds[name]! == kind || kinds[name]! == nil, "\(name): \(String(describing: kinds[name]!))") }
    }

    @Test("a folder removed while it is read ends, as readdir ends it: before the first read, and after one read of a large folder")
    func removedWhileRead() throws {
        let folder = TestFolder()
        let empty = folder.path + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let stream = try DirectoryStream(path: RawPath(empty), followingLinks: false)
        try #require(rmdir(empty) == 0)
        var seen = 0
        try stream.forEachEntry { _ in
            seen += 1
            return true
        }
        #expect(seen == 0)
        // 2,000 entries take several of the reader's buffers: removed after the first.
        let wide = folder.path + "/wide"
        try FileManager.default.createDirectory(atPath: wide, withIntermediateDirectories: true)
        for index in 0..<2_000 { try RawFiles.makeFile(RawFiles.join(wide, Array("entry-with-a-longer-name-\(index)".utf8))) }
        let wideStream = try DirectoryStream(path: RawPath(wide), followingLinks: false)
        var read = 0
        try wideStream.forEachEntry { _ in
            if read == 0 { try? FileManager.default.removeItem(atPath: wide) }
            read += 1
            return true
        }
        #expect(read >= 1 && read < 2_000, "\(read) entries read before the end")
        #expect(!FileManager.default.fileExists(atPath: wide))
    }

    @Test("a descriptor of a file, not a folder, fails its first read with ENOTDIR, naming the call")
    func notAFolder() throws {
        let folder = TestFolder()
        try RawFiles.makeFile(Array((folder.path + "/file").utf8), size: 10)
        let fd = try Sys.openat(AT_FDCWD, RawPath(folder.path + "/file"), Sys.readOnly)
        // On Apple platforms fdopendir refuses the descriptor at once; on Linux the first read does.
        let error = try #require(throws: SystemCallError.self) {
            let stream = try DirectoryStream(adopting: fd)
            try stream.forEachEntry { _ in true }
        }
        #expect(error.errno == .notFolder)
        #expect([DirectoryStream.readCall, "fdopendir"].contains(error.call))
    }
}
