import Foundation
import Stowage
import StowageTesting
import StowageTestSupport
import Testing

/// The allocated bytes of the file at `path` (`st_blocks * 512`), from `lstat`.
func allocatedBytes(_ path: String) throws -> Int64 {
    var status = stat()
    try #require(lstat(path, &status) == 0)
    return Int64(status.st_blocks) * 512
}

@Suite("StowageTesting: withDiskGrowthCheck, a disk-leak test (Swift Testing)")
struct DiskGrowthTests {
    @Test("exactly at the limit passes; a byte or an inode over fails, saying how much and where")
    func boundary() throws {
        let scratch = try ScratchContainer()
        let caches = try scratch.container.url(for: .caches)
        let path = caches.appending(path: "leak.bin").path(percentEncoded: false)
        func leak(_ name: String) throws { try Data(count: 5000).write(to: caches.appending(path: name)) }
        try leak("probe.bin")
        let size = try allocatedBytes(caches.appending(path: "probe.bin").path(percentEncoded: false))
        try FileManager.default.removeItem(at: caches.appending(path: "probe.bin"))

        try withDiskGrowthCheck(in: [caches], atMost: ByteCount(size), inodes: 1) { try leak("leak.bin") }
        try FileManager.default.removeItem(atPath: path)
        let bytes = #expect(throws: DiskGrowthExceeded.self) {
            try withDiskGrowthCheck(in: [caches], atMost: ByteCount(size - 1), inodes: 1) { try leak("leak.bin") }
        }
        #expect(bytes?.growth.allocatedBytes == size && bytes?.growth.logicalBytes == 5000 && bytes?.growth.inodeCount == 1)
        #expect(bytes?.allowedBytes == size - 1 && bytes?.description.contains("added \(path)") == true, "\(String(describing: bytes))")
        try FileManager.default.removeItem(atPath: path)
        let inodes = #expect(throws: DiskGrowthExceeded.self) {
            try withDiskGrowthCheck(in: [caches], atMost: ByteCount(size), inodes: 0) { try leak("leak.bin") }
        }
        #expect(inodes?.growth.changes.roots[0].children.map(\.kind) == [.added])
    }

    @Test("what the code removes again leaves nothing; what it writes elsewhere is not measured; a shrink is fine")
    func cleanCode() throws {
        let scratch = try ScratchContainer()
        let caches = try scratch.container.url(for: .caches), documents = try scratch.container.url(for: .documents)
        try Data(count: 20_000).write(to: caches.appending(path: "old.bin"))
        let value = try withDiskGrowthCheck(in: [caches]) {
            try Data(count: 9000).write(to: caches.appending(path: "temporary.bin"))
            try FileManager.default.removeItem(at: caches.appending(path: "temporary.bin"))
            try FileManager.default.removeItem(at: caches.appending(path: "old.bin"))
            try Data(count: 9000).write(to: documents.appending(path: "elsewhere.bin"))
            return 42
        }
        #expect(value == 42)
    }

    @Test("what the code throws comes through unchecked; a negative limit is refused before the code runs")
    func errors() throws {
        let scratch = try ScratchContainer()
        let caches = try scratch.container.url(for: .caches)
        #expect(throws: CocoaError.self) {
            try withDiskGrowthCheck(in: [caches]) {
                try Data(count: 9000).write(to: caches.appending(path: "a.bin"))
                throw CocoaError(.fileWriteUnknown)
            }
        }
        var ran = false
        let error = #expect(throws: StowageError.self) { try withDiskGrowthCheck(in: [caches], inodes: -1) { ran = true } }
        #expect(error?.code == .invalidArgument && !ran)
    }

    // The work takes milliseconds; the limit is a deadline against a hang. In the full suite on two
    // cores each await can wait minutes for a thread of the cooperative pool, which tests blocking in
    // child processes hold: at one minute it failed one run of CI in three (2026-11-28).
    @Test("the async form measures what the body's tasks left, Stowage's writes and others' alike", .hangLimit)
    func asynchronous() async throws {
        let scratch = try ScratchContainer()
        let documents = try scratch.container.url(for: .documents)
        let store = scratch.store
        let failure = await #expect(throws: DiskGrowthExceeded.self) {
            try await withDiskGrowthCheck(in: [documents], atMost: 4096, inodes: 1) {
                try store.save(Data(count: 4096), to: "kept.bin", in: .documents)
                try await Task { try Data(count: 4096).write(to: documents.appending(path: "other.bin")) }.value
            }
        }
        #expect(failure?.growth.inodeCount == 2 && failure?.growth.logicalBytes == 8192, "\(String(describing: failure))")
        #expect(Set(failure?.growth.changes.roots[0].children.map { $0.path.split(separator: "/").last ?? "" } ?? []) == ["kept.bin", "other.bin"])
    }

    @Test("Stowage's own marks count too: the first write to Caches leaves its CACHEDIR.TAG behind")
    func cacheTag() throws {
        let scratch = try ScratchContainer()
        let caches = try scratch.container.url(for: .caches)
        let failure = #expect(throws: DiskGrowthExceeded.self) {
            try withDiskGrowthCheck(in: [caches], atMost: 1_000_000, inodes: 1) {
                try scratch.store.save(Data(count: 10), to: "one.bin", in: .caches)
            }
        }
        #expect(failure?.description.contains("added \(caches.appending(path: "CACHEDIR.TAG").path(percentEncoded: false))") == true,
                "\(String(describing: failure))")
    }
}
