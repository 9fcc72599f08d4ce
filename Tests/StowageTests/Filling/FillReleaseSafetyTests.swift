import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

/// A release removes a fill file only when it is still the file the fill made: same device and
/// inode as the manifest records *and*, where the file system keeps extended attributes, the
/// fill's marker. A file system may give a new file the inode number of a removed one (ext4
/// does), so the inode alone cannot tell a stranger's file under a fill file's name.
@Suite("FillFolder release safety")
struct FillReleaseSafetyTests {
    struct Setup {
        let folder: TestFolder
        let volume: ScratchVolume
        let fillPath: String
        let stranger: Data
        /// The allocated bytes of the fill's own file.
        let ownAllocated: Int64
    }

    /// A filled volume, in the test's folder (removed with it).
    struct Filled {
        let folder: TestFolder
        let volume: ScratchVolume
        /// The fill folder.
        var fillPath: String { volume.path + "/" + FillFolder.name }
    }

    /// A fill of `bytes` on a new 32 MB tmpfs.
    static func filled(consuming bytes: Int64) throws -> Filled {
        let folder = TestFolder()
        let volume = try ScratchVolume.mount(size: "32m", in: folder)
        try Filler(plan: FillPlan(volume: volume.url, goal: .consuming(bytes))).fill()
        return Filled(folder: folder, volume: volume)
    }

    /// The manifest of the fill folder at `fillPath`, as JSON, and where it is.
    static func manifest(in fillPath: String) throws -> (url: URL, json: [String: Any]) {
        let url = URL(filePath: fillPath + "/" + FillManifest.fileName)
        return (url, try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]))
    }

    /// Adds to the manifest of the fill folder at `fillPath` an entry `name` with the device and
    /// inode of the file at `path`.
    static func addEntry(_ name: String, for path: String, in fillPath: String) throws {
        var status = stat()
        try #require(lstat(path, &status) == 0)
        try addEntry(name, device: UInt64(status.st_dev), inode: UInt64(status.st_ino), in: fillPath)
    }

    /// Adds to the manifest of the fill folder at `fillPath` an entry `name` with `device` and `inode`.
    static func addEntry(_ name: String, device: UInt64, inode: UInt64, in fillPath: String) throws {
        var (url, manifest) = try manifest(in: fillPath)
        var files = try #require(manifest["files"] as? [[String: Any]])
        files.append(["name": name, "device": device, "inode": inode])
        manifest["files"] = files
        try JSONSerialization.data(withJSONObject: manifest).write(to: url)
    }

    /// A user's file `name` beside the fill folder holding `content`, carrying the fill's marker
    /// (as only a broken or hostile program would make it); its path.
    static func markedUserFile(_ name: String, beside filled: Filled, content: Data) throws -> String {
        let path = filled.volume.path + "/" + name
        try content.write(to: URL(filePath: path))
        try mark(path, with: Array(try #require(try manifest(in: filled.fillPath).json["id"] as? String).utf8))
        return path
    }

    /// Gives the file at `path` the fill marker `marker`, as a fill marks its own files.
    static func mark(_ path: String, with marker: [UInt8]) throws {
        let url = URL(filePath: path)
        let file = try OpenFile.openFolder(atPath: url.deletingLastPathComponent().path(percentEncoded: false), followingLinks: false)
            .open(url.lastPathComponent, flags: Sys.readWrite)
        try file.setAttribute(FillManifest.markerAttribute, to: marker)
        try file.close()
    }

    /// A fill of one file on a small tmpfs, then a stranger's file named as the fill's next
    /// file, which the manifest names with the stranger's device and inode: what a fill file
    /// removed and replaced by a new file that got its inode number back (as ext4 does) leaves.
    static func fillAndAddStranger() throws -> Setup {
        let filled = try filled(consuming: 4_000_000)
        let (folder, volume, fillPath) = (filled.folder, filled.volume, filled.fillPath)
        let files = try #require(try manifest(in: fillPath).json["files"] as? [[String: Any]])
        try #require(files.map { $0["name"] as? String } == ["fill-000001"], "the fill made one file")
        let stranger = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let strangerPath = fillPath + "/fill-000002"
        try stranger.write(to: URL(filePath: strangerPath))
        var own = stat()
        try #require(lstat(fillPath + "/fill-000001", &own) == 0)
        try addEntry("fill-000002", for: strangerPath, in: fillPath)
        return Setup(folder: folder, volume: volume, fillPath: strangerPath, stranger: stranger,
                     ownAllocated: Int64(own.st_blocks) * 512)
    }

    @Test("a stranger's file with a fill file's name and recorded inode, but no marker, is not counted by status")
    func statusIgnoresUnmarkedFile() throws {
        let setup = try Self.fillAndAddStranger()
        let status = try #require(try FillFolder(in: setup.volume.url).status())
        #expect(status.fileCount == 1, "only the fill's own file")
        #expect(status.allocatedBytes == setup.ownAllocated, "the stranger's bytes are not counted")
    }

    @Test("release leaves that file byte for byte, and still removes the fill's own files")
    func releaseLeavesUnmarkedFile() throws {
        let setup = try Self.fillAndAddStranger()
        let report = try FillFolder(in: setup.volume.url).release()
        #expect(report.removedFileCount == 1)
        #expect(try Data(contentsOf: URL(filePath: setup.fillPath)) == setup.stranger)
    }

    @Test("releasing an amount neither shrinks nor removes that file")
    func releaseAmountLeavesUnmarkedFile() throws {
        let setup = try Self.fillAndAddStranger()
        let report = try FillFolder(in: setup.volume.url).release(bytes: 100_000)
        #expect(report.shrunkFileCount == 1 && report.removedFileCount == 0, "the fill's own file is shrunk instead")
        #expect(try Data(contentsOf: URL(filePath: setup.fillPath)) == setup.stranger)
    }

    @Test("a file carrying another fill's marker is not this fill's")
    func otherFillsMarkerIsRefused() throws {
        let setup = try Self.fillAndAddStranger()
        try Self.mark(setup.fillPath, with: Array("another-fill".utf8))
        #expect(try FillFolder(in: setup.volume.url).status()?.fileCount == 1)
        try FillFolder(in: setup.volume.url).release()
        #expect(try Data(contentsOf: URL(filePath: setup.fillPath)) == setup.stranger)
    }

    @Test("where the file system keeps no extended attributes (ramfs), the device and inode alone identify a fill file")
    func withoutAttributesTheInodeDecides() throws {
        let folder = TestFolder()
        let volume = try ScratchVolume.mount("ramfs", in: folder)
        let fillPath = volume.path + "/" + FillFolder.name
        try FileManager.default.createDirectory(atPath: fillPath, withIntermediateDirectories: false)
        try Data(count: 8192).write(to: URL(filePath: fillPath + "/fill-000001"))
        var status = stat()
        try #require(lstat(fillPath + "/fill-000001", &status) == 0)
        let manifest: [String: Any] = [
            "format": FillManifest.currentFormat, "id": "0123abcd", "created": 0, "availableBefore": 0,
            "files": [["name": "fill-000001", "device": UInt64(status.st_dev), "inode": UInt64(status.st_ino)]],
        ]
        try JSONSerialization.data(withJSONObject: manifest).write(to: URL(filePath: fillPath + "/" + FillManifest.fileName))
        #expect(try FillFolder(in: volume.url).status()?.fileCount == 1)
        let report = try FillFolder(in: volume.url).release()
        #expect(report.removedFileCount == 1)
        #expect(!FileManager.default.fileExists(atPath: fillPath))
    }

    /// What a manifest can name that a fill never does: the way out of the fill folder, a name
    /// twice, a number the next fill file's name cannot count on from.
    enum HostileName: String, CaseIterable, CustomTestStringConvertible {
        case parent = "../keep.txt", throughSelf = "./../keep.txt", throughFolder = "fill-000001/../../keep.txt"
        case absolute = "<absolute>", twice = "fill-000001", overlong = "fill-9223372036854775807"
        var testDescription: String { rawValue }
        func name(victim: String) -> String { self == .absolute ? victim : rawValue }
    }

    @Test("a manifest naming anything but fill files, each once, is damaged: status says so, release removes nothing",
          arguments: HostileName.allCases)
    func manifestNamesCannotLeaveTheFolder(hostile: HostileName) throws {
        // ramfs keeps no markers, so the device and inode would be all that identifies the file.
        let folder = TestFolder()
        let volume = try ScratchVolume.mount("ramfs", in: folder)
        let fillPath = volume.path + "/" + FillFolder.name
        try FileManager.default.createDirectory(atPath: fillPath, withIntermediateDirectories: false)
        try Data(count: 8192).write(to: URL(filePath: fillPath + "/fill-000001"))
        let victim = volume.path + "/keep.txt"
        let kept = Data("the user's file".utf8)
        try kept.write(to: URL(filePath: victim))
        var own = stat(), status = stat()
        try #require(lstat(fillPath + "/fill-000001", &own) == 0 && lstat(victim, &status) == 0)
        let manifest: [String: Any] = [
            "format": FillManifest.currentFormat, "id": "0123abcd", "created": 0, "availableBefore": 0,
            "files": [["name": "fill-000001", "device": UInt64(own.st_dev), "inode": UInt64(own.st_ino)],
                      ["name": hostile.name(victim: victim), "device": UInt64(status.st_dev), "inode": UInt64(status.st_ino)]],
        ]
        try JSONSerialization.data(withJSONObject: manifest).write(to: URL(filePath: fillPath + "/" + FillManifest.fileName))

        let statusError = #expect(throws: StowageError.self) { try FillFolder(in: volume.url).status() }
        #expect(statusError?.code == .decodingFailed && statusError?.path == fillPath + "/" + FillManifest.fileName,
                "\(String(describing: statusError))")
        let releaseError = #expect(throws: StowageError.self) { try FillFolder(in: volume.url).release() }
        #expect(releaseError?.code == .decodingFailed, "no markers to rebuild it from: \(String(describing: releaseError))")
        #expect(try Data(contentsOf: URL(filePath: victim)) == kept)
        #expect(FileManager.default.fileExists(atPath: fillPath + "/fill-000001"), "nothing is removed by a damaged manifest")
    }

    @Test("a file outside the fill folder is never the fill's, even carrying its marker: release rebuilds the manifest from the folder")
    func markedFileOutsideIsNotTheFills() throws {
        let filled = try Self.filled(consuming: 1_000_000)
        let (volume, fillPath) = (filled.volume, filled.fillPath)
        let kept = Data("the user's file".utf8)
        let victim = try Self.markedUserFile("keep.txt", beside: filled, content: kept)
        try Self.addEntry("../keep.txt", for: victim, in: fillPath)

        let report = try FillFolder(in: volume.url).release()
        #expect(report.removedFileCount == 1 && report.remainingBytes == 0, "\(report)")
        #expect(try Data(contentsOf: URL(filePath: victim)) == kept)
        #expect(!FileManager.default.fileExists(atPath: fillPath))
    }

    @Test("a fill file replaced after the release chose it, even by a file carrying the fill's marker, is kept")
    func replacedAfterChoosingIsKept() throws {
        let filled = try Self.filled(consuming: 1_000_000)
        let (volume, fillPath) = (filled.volume, filled.fillPath)
        let marker = try #require(try OpenFile.openFolder(atPath: fillPath, followingLinks: false)
            .openForInspection("fill-000001").attribute(FillManifest.markerAttribute))
        let replacement = Data("another program's file".utf8)
        let probe = TestProbe()
        probe.on(.fillReleaseChosen) { _ in
            // Written beside it, marked as the fill's, and renamed over it: another inode.
            try replacement.write(to: URL(filePath: fillPath + "/new"))
            try Self.mark(fillPath + "/new", with: marker)
            try #require(rename(fillPath + "/new", fillPath + "/fill-000001") == 0)
        }
        let report = try TestProbe.$installed.withValue(probe) { try FillFolder(in: volume.url).release() }
        #expect(probe.hits(of: .fillReleaseChosen) == 1)
        #expect(report.removedFileCount == 0 && report.releasedBytes == 0, "\(report)")
        #expect(try Data(contentsOf: URL(filePath: fillPath + "/fill-000001")) == replacement)
    }

    @Test("a hard link to a file elsewhere, even carrying the fill's marker, is neither shrunk nor removed nor counted")
    func hardLinkIsNotTheFills() throws {
        let filled = try Self.filled(consuming: 1_000_000)
        let (volume, fillPath) = (filled.volume, filled.fillPath)
        let kept = Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let victim = try Self.markedUserFile("database", beside: filled, content: kept)
        try #require(link(victim, fillPath + "/fill-000002") == 0)
        try Self.addEntry("fill-000002", for: victim, in: fillPath)

        #expect(try FillFolder(in: volume.url).status()?.fileCount == 1, "the link is not the fill's")
        let partial = try FillFolder(in: volume.url).release(bytes: 4096)
        #expect(partial.shrunkFileCount == 1 && partial.removedFileCount == 0, "the fill's own file is shrunk: \(partial)")
        let rest = try FillFolder(in: volume.url).release()
        #expect(rest.removedFileCount == 1 && rest.remainingBytes == 0, "\(rest)")
        #expect(try Data(contentsOf: URL(filePath: victim)) == kept)
        #expect(FileManager.default.fileExists(atPath: fillPath + "/fill-000002"), "the link is left alone")
    }

    @Test("on a full disk (0 bytes free) with a damaged manifest, release still gives the space back: it writes nothing first",
          arguments: [nil, 0] as [Int64?])
    func fullDiskDamagedManifest(amount: Int64?) throws {
        let filled = try Self.filled(consuming: 4_000_000)
        let (volume, fillPath) = (filled.volume, filled.fillPath)
        try #require(truncate(fillPath + "/" + FillManifest.fileName, 0) == 0, "an empty manifest is a damaged one")
        // A stranger's file takes what is left, to the last page.
        let descriptor = open(volume.path + "/other", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        try #require(descriptor >= 0)
        let page = [UInt8](repeating: 7, count: 4096)
        while write(descriptor, page, page.count) > 0 {}
        let full = errno
        close(descriptor)
        try #require(full == ENOSPC)
        var figures = statvfs()
        try #require(statvfs(volume.path, &figures) == 0 && figures.f_bavail == 0, "0 bytes free")

        let report = try FillFolder(in: volume.url).release(bytes: amount)
        if amount == nil {
            #expect(report.removedFileCount == 1 && report.availableBytesAfter > 0, "\(report)")
            #expect(!FileManager.default.fileExists(atPath: fillPath))
        } else {
            // Nothing to free, so no room for the rebuilt manifest: not a failure of the release.
            #expect(report.removedFileCount == 0 && report.releasedBytes == 0 && report.remainingBytes > 0, "\(report)")
        }
    }

    @Test("a rebuilt manifest is saved by a release that only shrinks a file")
    func rebuiltManifestIsSaved() throws {
        let filled = try Self.filled(consuming: 4_000_000)
        try #require(truncate(filled.fillPath + "/" + FillManifest.fileName, 0) == 0, "an empty manifest is a damaged one")
        let report = try FillFolder(in: filled.volume.url).release(bytes: 4096)
        #expect(report.shrunkFileCount == 1 && report.removedFileCount == 0, "\(report)")
        #expect(try FillFolder(in: filled.volume.url).status()?.fileCount == 1, "status reads the saved manifest")
    }

    @Test("a fill never continues a file with another name (a hard link to a file elsewhere), and starts its own")
    func fillDoesNotContinueAHardLink() throws {
        let filled = try Self.filled(consuming: 1_000_000)
        let (volume, fillPath) = (filled.volume, filled.fillPath)
        let kept = Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 17) })
        let victim = try Self.markedUserFile("database", beside: filled, content: kept)
        try #require(link(victim, fillPath + "/fill-000002") == 0)
        try Self.addEntry("fill-000002", for: victim, in: fillPath)  // the newest entry: the one a fill continues
        try Filler(plan: FillPlan(volume: volume.url, goal: .consuming(1_000_000))).fill()
        #expect(try Data(contentsOf: URL(filePath: victim)) == kept)
        #expect(FileManager.default.fileExists(atPath: fillPath + "/fill-000003"), "a new file of its own")
    }

    @Test("a fill whose file numbers are all taken is refused, and writes nothing")
    func fileNumbersUsedUp() throws {
        let filled = try Self.filled(consuming: 1_000_000)
        let (volume, fillPath) = (filled.volume, filled.fillPath)
        try Self.addEntry("fill-999999999", device: 0, inode: 0, in: fillPath)  // gone: not continued
        let before = try FileManager.default.contentsOfDirectory(atPath: fillPath).sorted()
        let error = #expect(throws: StowageError.self) {
            try Filler(plan: FillPlan(volume: volume.url, goal: .consuming(1_000_000))).fill()
        }
        #expect(error?.code == .refused && error?.path == fillPath && error?.reason?.contains("fill-999999999") == true,
                "\(String(describing: error))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: fillPath).sorted() == before)
    }

    @Test("a mount in place of the fill folder is refused by status, release and fill, and nothing in it is touched")
    func mountInPlaceOfTheFillFolder() throws {
        let folder = TestFolder()
        let volume = try ScratchVolume.mount(size: "32m", in: folder)
        let inner = try ScratchVolume.mount(size: "8m", at: volume.url, named: FillFolder.name)
        let file = Data("another volume's file".utf8)
        try file.write(to: URL(filePath: inner.path + "/fill-000001"))
        for (operation, run) in [("status", { _ = try FillFolder(in: volume.url).status() }),
                                 ("release", { _ = try FillFolder(in: volume.url).release() }),
                                 ("fill", { _ = try Filler(plan: FillPlan(volume: volume.url, goal: .consuming(4096))).fill() })]
            as [(String, () throws -> Void)] {
            let error = #expect(throws: StowageError.self, "\(operation)") { try run() }
            #expect(error?.code == .refused && error?.path == inner.path, "\(operation): \(String(describing: error))")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: inner.path) == ["fill-000001"])
        #expect(try Data(contentsOf: URL(filePath: inner.path + "/fill-000001")) == file)
    }

    @Test("a link in place of the fill folder is never followed: status, release and fill refuse it as a link, its target untouched")
    func linkInPlaceOfTheFillFolder() throws {
        let filled = try Self.filled(consuming: 1_000_000)
        let volume = filled.volume
        // The real fill folder moved aside, and a link to it put in its place.
        let target = volume.path + "/elsewhere"
        try #require(rename(filled.fillPath, target) == 0)
        try FileManager.default.createSymbolicLink(atPath: filled.fillPath, withDestinationPath: target)
        let before = try FileManager.default.contentsOfDirectory(atPath: target).sorted()
        for (operation, run) in [("status", { _ = try FillFolder(in: volume.url).status() }),
                                 ("release", { _ = try FillFolder(in: volume.url).release() }),
                                 ("fill", { _ = try Filler(plan: FillPlan(volume: volume.url, goal: .consuming(4096))).fill() })]
            as [(String, () throws -> Void)] {
            let error = #expect(throws: StowageError.self, "\(operation)") { try run() }
            #expect(error?.code == .invalidPath && error?.path == filled.fillPath && error?.reason?.contains("symbolic link") == true,
                    "\(operation): \(String(describing: error))")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: target).sorted() == before)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: filled.fillPath) == target)
    }

    @Test("a name that is not UTF-8 in the fill folder is listed by status and left by release")
    func nonUTF8NameIsLeftAlone() throws {
        let filled = try Self.filled(consuming: 1_000_000)
        let name: [UInt8] = Array("fill-00000".utf8) + [0xFF]  // a fill file's name but for its last byte
        let path = Array(filled.fillPath.utf8) + [UInt8(ascii: "/")] + name + [0]
        let descriptor = path.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        }
        try #require(descriptor >= 0)
        close(descriptor)
        let status = try #require(try FillFolder(in: filled.volume.url).status())
        #expect(status.fileCount == 1 && status.foreignEntries == ["fill-00000\u{FFFD}"], "\(status)")
        let report = try FillFolder(in: filled.volume.url).release()
        #expect(report.removedFileCount == 1, "\(report)")
        let left = try FileManager.default.contentsOfDirectory(atPath: filled.fillPath)
        #expect(left.count == 1, "only the stranger's file is left: \(left)")
    }

    @Test("a FIFO under a fill file's name neither blocks status and release nor is removed", .hangLimit)
    func fifoDoesNotBlock() throws {
        let setup = try Self.fillAndAddStranger()
        let fifo = (setup.fillPath as NSString).deletingLastPathComponent + "/fill-000099"
        try #require(mkfifo(fifo, 0o600) == 0)
        #expect(try FillFolder(in: setup.volume.url).status()?.fileCount == 1)
        try FillFolder(in: setup.volume.url).release()
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
    }
}
