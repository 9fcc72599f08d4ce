#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Stowage's Platform layer supports Darwin, Glibc and Musl systems")
#endif
import CStowageShims

/// The system calls behind filling a volume: allocating space without writing it, unnamed
/// files, and the volume's figures through an open descriptor (cheap enough to ask after every
/// chunk, unlike ``VolumeStatistics/of(path:)``, which also reads the mount table).
extension Sys {
    /// A volume's figures, in bytes: `f_frsize`, `f_blocks * f_frsize`, `f_bavail * f_frsize`;
    /// and its file nodes left for an ordinary writer, `f_favail` (`f_ffree` on Darwin).
    package struct SpaceFigures: Equatable {
        package var blockSize: Int64
        package var total: Int64
        package var available: Int64
        /// Free bytes, those kept for root included.
        package var free: Int64 = 0
        /// Inodes in all, and free to this process; 0 where the file system does not count them.
        package var totalInodes: Int64 = 0
        package var availableInodes: Int64 = 0

        package init(blockSize: Int64, total: Int64, available: Int64, free: Int64 = 0, totalInodes: Int64 = 0, availableInodes: Int64 = 0) {
            self.blockSize = blockSize
            self.total = total
            self.available = available
            self.free = free
            self.totalInodes = totalInodes
            self.availableInodes = availableInodes
        }
    }

    /// The figures of the volume holding the open file or folder `fd`: `fstatvfs(2)` on Linux,
    /// `fstatfs(2)` on Darwin (whose `statvfs` counts blocks in 32 bits). Under a
    /// ``StorageBudget`` the budget's figures (the call still runs, for its errors).
    package static func spaceFigures(_ fd: Int32) throws -> SpaceFigures {
        budgeted(try platformSpaceFigures(fd))
    }

    /// The figures of the volume holding `path` (links followed): one system call, without the
    /// mount table that ``VolumeStatistics/of(path:)`` also reads. Under a ``StorageBudget`` the
    /// budget's figures.
    package static func spaceFigures(atPath path: String) throws -> SpaceFigures {
        budgeted(try platformSpaceFigures(atPath: path))
    }

    /// Allocates `length` bytes of `fd` from `offset`, extending the file to `offset + length`,
    /// without writing data: `fallocate(2)` on Linux, `fcntl(F_PREALLOCATE)` and `ftruncate(2)`
    /// on Darwin, each with its fallback (see `platformAllocate`). Throws `ENOSPC` (or `EDQUOT`)
    /// when the volume is full. Under a ``StorageBudget`` the blocks are charged where the file
    /// grows: around `fallocate` on Linux, through the `ftruncate` and writes Darwin's is made of.
    package static func allocate(_ fd: Int32, offset: Int64, length: Int64) throws {
        try platformAllocate(fd, offset: offset, length: length)
    }

    /// The most bytes one write of ``writeZeros(_:from:to:)`` covers: 1 MiB, the memory the
    /// fallback holds and the unit its number of calls is counted in.
    package static let zeroFillWriteSize: Int64 = 1 << 20

    /// The ranges ``writeZeros(_:from:to:)`` writes, in order: `start..<end` cut at every
    /// ``zeroFillWriteSize`` bytes from `start`, so `ceil((end - start) / 1 MiB)` writes in all
    /// (1,024 for 1 GiB; one byte per 4 KiB block would be 262,144).
    package static func zeroFillRanges(from start: Int64, to end: Int64) -> some Sequence<Range<Int64>> {
        stride(from: start, to: end, by: Int(zeroFillWriteSize)).lazy.map { $0..<min($0 + zeroFillWriteSize, end) }
    }

    /// Writes zeros over `start..<end` of `fd`, in order, ``zeroFillWriteSize`` bytes at a time:
    /// the allocation of last resort where a file system does not preallocate (Darwin's
    /// `platformAllocate`). The range must lie past the file's data (it is overwritten). Writing
    /// in order means a volume that fills up on the way stops it at the last byte it holds, never
    /// with a sparse tail; the device writes what writing a byte in every block would (a block is
    /// written whole), in 256 times fewer calls.
    ///
    /// - Throws: `ENOSPC` (or `EDQUOT`) when the volume fills up, what fitted kept.
    package static func writeZeros(_ fd: Int32, from start: Int64, to end: Int64) throws {
        guard end > start else { return }
        let zeros = [UInt8](repeating: 0, count: Int(min(end - start, zeroFillWriteSize)))
        try zeros.withUnsafeBytes { buffer in
            for range in zeroFillRanges(from: start, to: end) {
                try pwriteAll(fd, UnsafeRawBufferPointer(rebasing: buffer[0..<Int(range.count)]), at: range.lowerBound)
            }
        }
    }

    /// Writes back the file system holding `fd` and commits its journal (`syncfs(2)`), so that
    /// `statvfs` counts blocks freed by a removal or truncation (ext4 returns them to the free
    /// count only when the transaction that freed them commits, up to seconds later).
    package static func syncVolume(_ fd: Int32) throws {
        #if DEBUG
        DurabilityObserver.record(.syncVolume, descriptor: fd)
        #endif
        _ = try retrying("syncfs") { cstowage_syncfs(fd) }
    }

    /// Opens an unnamed regular file on the volume of the folder `directory` (`O_TMPFILE`): its
    /// space returns to the volume when the last descriptor closes, whatever ends the process.
    /// Throws `EOPNOTSUPP` (or `EISDIR`, `ENOSYS` on old systems and Apple platforms) where the
    /// file system has no unnamed files.
    package static func openUnnamedFile(in directory: Int32) throws -> Int32 {
        try budgeted(openingUnnamed: "openat(O_TMPFILE)") {
            try retrying("openat(O_TMPFILE)") { cstowage_open_unnamed(directory, 0o600) }
        }
    }

}

extension Errno {
    /// What ``Sys/openUnnamedFile(in:)`` fails with where the file system has no unnamed files.
    package static let unnamedFilesUnsupported: [Errno] = [.operationNotSupported, .notSupported, .isFolder, .notImplemented, .invalidArgument]
}
