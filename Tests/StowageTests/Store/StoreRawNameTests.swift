import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

/// Names that are not UTF-8 inside the Store's folders: listed, read and copied as bytes
/// (Architecture article: bytes at every boundary), never as the twin name a `String` would repair them into (`x\xff` read as
/// `x\u{FFFD}`, a different file).
@Suite("Store: names that are not UTF-8")
struct StoreRawNameTests {
    /// `x\xff`: not UTF-8.
    static let rawName: [UInt8] = [0x78, 0xFF]
    /// `x\u{FFFD}`: what `String` repairs `rawName` into, a valid name of another file.
    static let twinName: [UInt8] = Array("x\u{FFFD}".utf8)

    @Test("a folder of Data whose files are not UTF-8 is read file by file under their own names")
    func retrieveFolder() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.saveFolder([Data("0".utf8)], to: "parts", in: .documents)
        let parts = try store.container.url(for: .documents).appending(path: "parts").fileSystemPath
        try RawFiles.makeFile(RawFiles.join(parts, Self.rawName), size: 3, byte: UInt8(ascii: "r"))
        try RawFiles.makeFile(RawFiles.join(parts, Self.twinName), size: 4, byte: UInt8(ascii: "t"))
        // Numbered first, then by the names' bytes: `x\xef\xbf\xbd` before `x\xff`.
        #expect(try store.retrieveFolder(from: "parts", in: .documents)
                == [Data("0".utf8), Data("tttt".utf8), Data("rrr".utf8)])
    }

    @Test("a folder moved across volumes keeps names and link targets that are not UTF-8, byte for byte")
    func moveAcrossVolumes() throws {
        let folder = TestFolder()
        let (store, volume) = try folder.storeWithTemporaryOnItsOwnVolume()
        try store.save(Data("kept".utf8), to: "download/plain", in: .temporary)
        let download = try store.container.url(for: .temporary).appending(path: "download").fileSystemPath
        try RawFiles.makeFile(RawFiles.join(download, Self.rawName), size: 3, byte: UInt8(ascii: "r"))
        try RawFiles.makeFile(RawFiles.join(download, Self.twinName), size: 4, byte: UInt8(ascii: "t"))
        let linkName: [UInt8] = [0x6C, 0xFE]  // `l\xfe`
        let linkTarget: [UInt8] = [0x74, 0xFD]  // `t\xfd`, dangling: a link is copied as a link
        try RawFiles.makeLink(RawFiles.join(download, linkName), to: linkTarget)
        try RawFiles.makeFolder(RawFiles.join(download, [0x64, 0xFC]))  // `d\xfc`
        try RawFiles.makeFile(RawFiles.join(download, [0x64, 0xFC, 0x2F] + Self.rawName), size: 2, byte: UInt8(ascii: "i"))

        try store.move("download", from: .temporary, to: .documents)

        let moved = try store.container.url(for: .documents).appending(path: "download").fileSystemPath
        #expect(try RawFiles.contents(RawFiles.join(moved, Self.rawName)) == Array("rrr".utf8))
        #expect(try RawFiles.contents(RawFiles.join(moved, Self.twinName)) == Array("tttt".utf8))
        #expect(try RawFiles.linkTarget(RawFiles.join(moved, linkName)) == linkTarget)
        #expect(try RawFiles.contents(RawFiles.join(moved, [0x64, 0xFC, 0x2F] + Self.rawName)) == Array("ii".utf8))
        #expect(try store.retrieve(Data.self, from: "download/plain", in: .documents) == Data("kept".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: volume.path).isEmpty)
        #expect(folder.leftoverTemporaryItems().isEmpty)
    }
}
