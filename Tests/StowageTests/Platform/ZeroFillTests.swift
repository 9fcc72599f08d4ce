import Foundation
import Testing
@testable import Stowage

/// The allocation of last resort behind `.allocate` on Darwin, where a file system does not
/// preallocate: zeros written in order, 1 MiB at a time, so its cost is bounded by the length
/// (one call per MiB), not by the number of blocks.
@Suite("Sys.writeZeros")
struct ZeroFillTests {
    @Test("the writes cover the range exactly, in order, 1 MiB at most each")
    func ranges() {
        let mebibyte: Int64 = 1 << 20
        let end: Int64 = 10 + 2 * mebibyte + 3
        let expected: [Range<Int64>] = [10..<(10 + mebibyte), (10 + mebibyte)..<(10 + 2 * mebibyte), (10 + 2 * mebibyte)..<end]
        #expect(Sys.zeroFillWriteSize == mebibyte)
        #expect(Array(Sys.zeroFillRanges(from: 10, to: end)) == expected)
        #expect(Array(Sys.zeroFillRanges(from: 7, to: 7)).isEmpty)
    }

    @Test("1 GiB, the chunk of an .allocate fill, takes 1,024 writes (one byte per 4 KiB block took 262,144)")
    func callsForOneGibibyte() {
        #expect(Sys.zeroFillRanges(from: 0, to: 1 << 30).reduce(0) { count, _ in count + 1 } == 1024)
        #expect(Sys.zeroFillRanges(from: 4096, to: 4096 + (1 << 30) + 1).reduce(0) { count, _ in count + 1 } == 1025)
    }

    @Test("a file grows by zeros over the range, its data before it kept, every block allocated")
    func realFile() throws {
        let folder = TestFolder()
        let url = folder.url.appending(path: "fill")
        try Data("0123456789".utf8).write(to: url)
        let fd = try Sys.open(url.fileSystemPath, Sys.readWrite)
        defer { try? Sys.close(fd) }
        let end: Int64 = 10 + (3 << 20) + 5
        try Sys.writeZeros(fd, from: 10, to: end)
        let status = try Sys.fstat(fd)
        #expect(status.size == end)
        #expect(status.allocatedSize >= end / 4096 * 4096, "a sparse file would have allocated almost nothing")
        let data = try Data(contentsOf: url)
        #expect(data.prefix(10) == Data("0123456789".utf8))
        #expect(data.dropFirst(10).allSatisfy { $0 == 0 })
    }

    @Test("on a volume that fills up it stops with ENOSPC, the file holding all that fitted, allocated, not sparse")
    func fullVolume() throws {
        let folder = TestFolder()
        let volume = try ScratchVolume.mount(size: "4m", in: folder)
        let path = volume.path + "/fill"
        try Data().write(to: URL(filePath: path))
        let fd = try Sys.open(path, Sys.readWrite)
        defer { try? Sys.close(fd) }
        #expect(throws: SystemCallError(errno: .noSpace, call: "pwrite")) { try Sys.writeZeros(fd, from: 0, to: 8 << 20) }
        let status = try Sys.fstat(fd)
        #expect(status.size == 4 << 20, "a tmpfs of 4 MiB holds 4 MiB of data")
        #expect(status.allocatedSize == 4 << 20)
        #expect(try Sys.spaceFigures(fd).available == 0)
    }
}
