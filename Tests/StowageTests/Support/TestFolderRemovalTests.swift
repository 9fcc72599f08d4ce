import Foundation
import Testing

/// The removal of a test's folder (`removeTestFolder`, and its in-process walk
/// `removeTreeInProcess`): everything the test left goes, permissions taken away or not, and
/// nothing outside the folder or on another file system is touched.
@Suite("Test folders are removed, and nothing else")
struct TestFolderRemovalTests {
    /// A fresh folder under the temporary folder, not a `TestFolder` (whose removal is tested).
    func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory.appending(path: "stowage-removal-\(UUID().uuidString)").path(percentEncoded: false)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("folders and files without permissions, and names that are not UTF-8, are removed")
    func permissionsAndBytes() throws {
        let root = try scratch()
        let locked = root + "/locked"
        try FileManager.default.createDirectory(atPath: locked + "/inner", withIntermediateDirectories: true)
        try RawFiles.writeFile(atPath: locked + "/inner/file", Data("x".utf8))
        let notUTF8 = Array((root + "/").utf8) + [0x66, 0xFF, 0x00]
        let made = notUTF8.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY | O_CLOEXEC, 0o000) } }
        try #require(made >= 0)
        close(made)
        chmod(locked + "/inner/file", 0)
        chmod(locked + "/inner", 0)
        chmod(locked, 0)
        #expect(removeTreeInProcess(root))
        #expect(!FileManager.default.fileExists(atPath: root))
    }

    @Test("given a link, removeTestFolder removes the link, not its folder; given a path through a link, the folder it names")
    func linkGiven() throws {
        let target = try scratch()
        defer { removeTestFolder(target) }
        try RawFiles.writeFile(atPath: target + "/kept", Data("kept".utf8))
        let holder = try scratch()
        defer { removeTestFolder(holder) }
        try FileManager.default.createSymbolicLink(atPath: holder + "/link", withDestinationPath: target)
        removeTestFolder(holder + "/link")
        #expect(FileManager.default.contents(atPath: target + "/kept") == Data("kept".utf8))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: holder + "/link")) == nil, "the link is gone")
        try FileManager.default.createDirectory(atPath: target + "/inner/deeper", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: holder + "/link", withDestinationPath: target)
        removeTestFolder(holder + "/link/inner/")
        #expect(!FileManager.default.fileExists(atPath: target + "/inner"))
        #expect(FileManager.default.contents(atPath: target + "/kept") == Data("kept".utf8))
    }

    @Test("a symbolic link to a folder outside is removed, never followed")
    func linksNotFollowed() throws {
        let root = try scratch()
        let outside = try scratch()
        defer { removeTestFolder(outside) }
        try RawFiles.writeFile(atPath: outside + "/kept", Data("kept".utf8))
        try FileManager.default.createDirectory(atPath: root + "/a", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/a/link", withDestinationPath: outside)
        try FileManager.default.createSymbolicLink(atPath: root + "/top", withDestinationPath: outside + "/kept")
        #expect(removeTreeInProcess(root))
        #expect(!FileManager.default.fileExists(atPath: root))
        #expect(FileManager.default.contents(atPath: outside + "/kept") == Data("kept".utf8))
    }

    @Test("64 levels of folders are removed in this process; at 65 it leaves them to the shell's tools, which remove them")
    func depthBoundary() throws {
        for (levels, inProcess) in [(64, true), (65, false)] {
            let root = try scratch()
            let deepest = root + String(repeating: "/d", count: levels)
            try FileManager.default.createDirectory(atPath: deepest, withIntermediateDirectories: true)
            try RawFiles.writeFile(atPath: deepest + "/file", Data("x".utf8))
            #expect(removeTreeInProcess(root) == inProcess, "\(levels) levels")
            #expect(FileManager.default.fileExists(atPath: root) == !inProcess, "\(levels) levels")
            removeTestFolder(root)
            #expect(!FileManager.default.fileExists(atPath: root), "\(levels) levels")
        }
    }

    @Test("a volume mounted inside is not entered: its files stay until it is unmounted, as removeTestFolder does first",
          .enabled(if: getuid() == 0, "mounting needs root"))
    func mountNotCrossed() throws {
        let root = try scratch()
        let volume = try ScratchVolume.mount(size: "1m", in: URL(filePath: root, directoryHint: .isDirectory))
        try RawFiles.writeFile(atPath: volume.path + "/on-the-volume", Data("v".utf8))
        #expect(!removeTreeInProcess(root))
        #expect(FileManager.default.contents(atPath: volume.path + "/on-the-volume") == Data("v".utf8))
        removeTestFolder(root)
        #expect(!FileManager.default.fileExists(atPath: root), "left: \((try? FileManager.default.subpathsOfDirectory(atPath: root)) ?? [])")
        withExtendedLifetime(volume) {}
    }

    @Test("a mount point elsewhere whose path is not UTF-8 hides no mount of the folder: it is unmounted and removed",
          .enabled(if: getuid() == 0, "mounting needs root"))
    func mountTableNotUTF8() throws {
        let elsewhere = try scratch()
        defer { removeTestFolder(elsewhere) }
        try mountTmpfs(atBytes: Array((elsewhere + "/").utf8) + [0x6D, 0xFF], size: "1m")
        // Unmounted by removeTestFolder(elsewhere) (deferred), through the same table.
        let root = try scratch()
        let volume = try ScratchVolume.mount(size: "1m", in: URL(filePath: root, directoryHint: .isDirectory))
        try RawFiles.writeFile(atPath: volume.path + "/on-the-volume", Data("v".utf8))
        removeTestFolder(root)
        #expect(!FileManager.default.fileExists(atPath: root), "left: \((try? FileManager.default.subpathsOfDirectory(atPath: root)) ?? [])")
        withExtendedLifetime(volume) {}
    }

    @Test("the mount table is read whole, past the 4 KB Foundation reads of a /proc file: a mount listed late is seen",
          .enabled(if: getuid() == 0, "mounting needs root"))
    func wholeMountTable() throws {
        let root = try scratch()
        defer { removeTestFolder(root) }
        // Enough mounts with long names to take the table past 4 KB, whatever else is mounted.
        let name = String(repeating: "long-name-", count: 12)
        for index in 0..<40 { try mountTmpfs(atBytes: Array("\(root)/\(index)-\(name)".utf8), size: "64k") }
        let table = try #require(mountTable())
        #expect(table.count > 4_096 + 40 * name.utf8.count / 2)
        #expect(mountPoints(below: Array(root.utf8)).count == 40)
        removeTestFolder(root)
        #expect(!FileManager.default.fileExists(atPath: root))
    }
}
