import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

/// `Sweeper.removeItem(atPath:)`: one file or folder a person named (the usage browser's `d`),
/// through the removal walk, under the rules of `clear`.
@Suite("Sweeper.removeItem")
struct SweeperItemTests {
    func pin(_ url: URL) throws { try PinAboveRootTests().pin(url) }

    func pinFile(_ url: URL) throws {
        let file = try OpenFile.openFolder(atPath: url.deletingLastPathComponent().fileSystemPath, followingLinks: false)
            .openForReading(url.lastPathComponent)
        try withExtendedLifetime(file) {
            try ExtendedAttributes.set(Marker.pinned.attribute, to: Marker.setValue, on: file.descriptor)
        }
    }

    func bytes(_ url: URL) -> [UInt8] { Array(url.fileSystemPath.utf8) }

    func listing(_ folder: TestFolder) throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: folder.path).sorted()
    }

    @Test("a file goes alone; its neighbours are not looked at, let alone removed")
    func file() throws {
        let folder = TestFolder()
        for name in ["a", "b", "sub/c"] { try folder.write("data", to: name) }
        let report = try Sweeper.removeItem(atPath: bytes(folder.file("a")))
        #expect(report.removed.map(\.path) == ["a"])
        #expect(report.removedFolders.isEmpty)
        #expect(try listing(folder) == ["b", "sub", "sub/c"])
    }

    @Test("a folder goes whole, empty folders inside included; the folder holding it stays")
    func folder() throws {
        let folder = TestFolder()
        for name in ["tree/x/y/z", "tree/top", "keep"] { try folder.write("data", to: name) }
        try FileManager.default.createDirectory(at: folder.file("tree/empty"), withIntermediateDirectories: true)
        let report = try Sweeper.removeItem(atPath: bytes(folder.file("tree")))
        #expect(report.removed.map(\.path).sorted() == ["tree/top", "tree/x/y/z"])
        #expect(Set(report.removedFolders) == ["tree", "tree/x", "tree/x/y", "tree/empty"])
        #expect(try listing(folder) == ["keep"])
    }

    @Test("pins are kept: a pinned file, a pinned folder inside, and everything under a pinned folder above")
    func pins() throws {
        let folder = TestFolder()
        for name in ["tree/kept", "tree/gone", "tree/pinned/inside", "above/sub/file"] { try folder.write("data", to: name) }
        try pinFile(folder.file("tree/kept"))
        try pin(folder.file("tree/pinned"))
        let report = try Sweeper.removeItem(atPath: bytes(folder.file("tree")))
        #expect(report.removed.map(\.path) == ["tree/gone"])
        #expect(report.pinnedItemCount == 2)
        #expect(try listing(folder).contains("tree/kept") && listing(folder).contains("tree/pinned/inside"))
        try pin(folder.file("above"))
        let below = try Sweeper.removeItem(atPath: bytes(folder.file("above/sub")))
        #expect(below.removed.isEmpty && below.pinnedItemCount > 0)
        #expect(FileManager.default.fileExists(atPath: folder.file("above/sub/file").fileSystemPath))
    }

    @Test("a name that is not UTF-8 is removed by its bytes; its U+FFFD twin stays")
    func nameBytes() throws {
        let folder = TestFolder()
        try folder.write("twin", to: "odd\u{FFFD}name")
        let odd = Array(folder.path.utf8) + Array("/odd".utf8) + [0xFF] + Array("name".utf8)
        let file = try OpenFile.openFolder(atPath: folder.path, followingLinks: false)
        _ = try file.open(RawPath(bytes: Array("odd".utf8) + [0xFF] + Array("name".utf8)), flags: O_CREAT | O_WRONLY)
        let report = try Sweeper.removeItem(atPath: odd)
        #expect(report.removed.map(\.pathBytes) == [Array("odd".utf8) + [0xFF] + Array("name".utf8)])
        #expect(try listing(folder) == ["odd\u{FFFD}name"])
    }

    /// The home folder's refusal is tested through the command, with HOME in a scratch folder
    /// (BrowserCommandTests): a test never names the real one to a deleting call.
    @Test("refused: a relative path, /, a path naming nothing; nothing removed")
    func refusals() throws {
        let folder = TestFolder()
        try folder.write("data", to: "home/me/file")
        #expect(throws: StowageError.self) { try Sweeper.removeItem(atPath: Array("relative/path".utf8)) }
        #expect(throws: StowageError.self) { try Sweeper.removeItem(atPath: Array((folder.file("home").fileSystemPath + "/..").utf8)) }
        #expect(throws: StowageError.self) { try Sweeper.removeItem(atPath: Array("/".utf8)) }
        #expect(throws: StowageError.self) { try Sweeper.removeItem(atPath: self.bytes(folder.file("missing"))) }
        #expect(try listing(folder) == ["home", "home/me", "home/me/file"])
    }

    @Test("a mount point is refused; a mount inside a folder is left alone, with what is on it",
          .enabled(if: getuid() == 0, "mounting needs root"))
    func mounts() throws {
        let folder = TestFolder()
        try folder.write("data", to: "tree/file")
        let volume = try ScratchVolume.mount(size: "1m", in: folder.file("tree"), named: "mnt")
        try Data("on the mount".utf8).write(to: volume.url.appending(path: "kept"))
        do {
            _ = try Sweeper.removeItem(atPath: bytes(volume.url))
            Issue.record("the mount point was not refused")
        } catch let error as StowageError {
            #expect(error.code == .refused)
            #expect(error.reason?.contains("mount point") == true)
        }
        let report = try Sweeper.removeItem(atPath: bytes(folder.file("tree")))
        #expect(report.removed.map(\.path) == ["tree/file"])
        #expect(FileManager.default.fileExists(atPath: volume.path + "/kept"))
    }
}
