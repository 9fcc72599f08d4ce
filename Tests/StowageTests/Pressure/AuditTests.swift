import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

@Suite("Container.audit")
struct AuditTests {
    static let badName: [UInt8] = Array("big".utf8) + [0xFF]
    static let excludedName: [UInt8] = Array("big".utf8) + [0xFE]

    #if canImport(Glibc) || canImport(Musl)  // names that are not UTF-8, and the Linux backup attribute
    @Test("a large backed-up file whose name is not UTF-8 is a finding with its exact bytes; its exclusion is read by those bytes")
    func nameNotUTF8() throws {
        let folder = TestFolder()
        let documents = folder.path + "/container/Documents"
        try FileManager.default.createDirectory(atPath: documents, withIntermediateDirectories: true)
        try RawFiles.makeFile(RawFiles.join(documents, Self.badName), size: 200_000)
        try RawFiles.makeFile(RawFiles.join(documents, Self.excludedName), size: 300_000)
        // Excluded from backup by its exact name: read through a U+FFFD path, the mark is lost.
        let fd = RawFiles.withPath(RawFiles.join(documents, Self.excludedName)) { open($0, O_RDONLY | O_CLOEXEC) }
        try #require(fd >= 0)
        defer { close(fd) }
        try ExtendedAttributes.set(BackupMarker.attribute, to: Array("false".utf8), on: fd)
        let report = try folder.container().audit(minimumBytes: 100_000)
        #expect(report.findings.count == 1, "\(report.findings)")
        let finding = try #require(report.findings.first)
        #expect(finding.kind == "largeBackedUpFile")
        #expect(finding.pathBytes == Self.badName)
        #expect(finding.path == "big\u{FFFD}")
        #expect(finding.allocatedBytes >= 200_000)
        let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(finding)) as? [String: Any])
        #expect(json["pathBase64"] as? String == Data(Self.badName).base64EncodedString())
        #expect(try JSONDecoder().decode(AuditFinding.self, from: JSONEncoder().encode(finding)) == finding)
        #expect(report.issues.isEmpty, "\(report.issues)")
    }
    #endif

    @Test("a pinned folder in Caches is a finding, with all it holds; a pinned file too; what a pinned folder holds is not listed again")
    func pinnedFolderInCaches() throws {
        let folder = TestFolder()
        let container = folder.container()
        let store = Store(container: container)
        try store.save(Data(count: 10_000), to: "offline/a", in: .caches)
        try store.save(Data(count: 20_000), to: "offline/sub/b", in: .caches)
        try store.save(Data(count: 5_000), to: "avatar.png", in: .caches)
        try store.save(Data(count: 7_000), to: "loose", in: .caches)
        try store.mark("offline", in: .caches, .pinned)
        try store.mark("offline/sub/b", in: .caches, .pinned)
        try store.mark("avatar.png", in: .caches, .pinned)
        let caches = try container.url(for: .caches).fileSystemPath
        func allocated(_ path: String) throws -> Int64 { try Sys.lstat(caches + "/" + path).allocatedSize }
        let report = try container.audit(minimumBytes: 1)
        let pinned = report.findings.filter { $0.kind == "pinnedInCaches" }
        #expect(pinned.map(\.path).sorted() == ["avatar.png", "offline"], "\(report.findings)")
        let offline = try #require(pinned.first { $0.path == "offline" })
        #expect(offline.allocatedBytes == (try allocated("offline/a") + allocated("offline/sub/b")), "the files it holds")
        #expect(offline.advice.hasPrefix("pinned:"))
        #expect(pinned.first { $0.path == "avatar.png" }?.allocatedBytes == (try allocated("avatar.png")))
        #expect(report.issues.isEmpty, "\(report.issues)")
    }

    @Test("a container root that is a file or a FIFO is a wrongKind error of audit naming it", arguments: ["file", "fifo"])
    func rootNotAFolder(kind: String) throws {
        let folder = TestFolder()
        let root = folder.path + "/root"
        if kind == "file" {
            try Data("x".utf8).write(to: URL(filePath: root))
        } else {
            try #require(mkfifo(root, 0o600) == 0)
        }
        let container = Container(root: URL(filePath: root))
        do {
            _ = try container.audit()
            Issue.record("audit of a container inside a \(kind) succeeded")
        } catch let error as StowageError {
            #expect(error.code == .wrongKind)
            #expect(error.operation == .audit)
            #expect(error.path == root, "names the \(kind) in the way")
            #expect(error.description == "audit '\(root)' failed: not a directory")
        }
    }
}
