#if canImport(Darwin)
import Darwin

extension Sys {
    /// `fstatfs(2)`: `f_bsize`, `f_blocks * f_bsize`, `f_bavail * f_bsize`. Not `fstatvfs`:
    /// Darwin's emulates it from `fstatfs` and cuts the block counts to 32 bits (`fsblkcnt_t`),
    /// wrong on a volume of more than 16 TiB of 4 KiB blocks.
    package static func platformSpaceFigures(_ fd: Int32) throws -> SpaceFigures {
        var figures = statfs()
        _ = try retrying("fstatfs") { fstatfs(fd, &figures) }
        return SpaceFigures(figures)
    }

    /// `statfs(2)` of `path`.
    package static func platformSpaceFigures(atPath path: String) throws -> SpaceFigures {
        var figures = statfs()
        _ = try retrying("statfs") { path.withCString { statfs($0, &figures) } }
        return SpaceFigures(figures)
    }

    /// Darwin has no `fallocate`. As Apple's `fcntl(2)` describes it, `F_PREALLOCATE` reserves
    /// space from the file's physical end (`F_PEOFPOSMODE`: `fst_length` counts the new bytes),
    /// contiguous if it can (`F_ALLOCATECONTIG`), else anywhere; `F_ALLOCATEALL` makes it all or
    /// nothing, so a full volume allocates nothing and fails with `ENOSPC`. The file is then
    /// extended over the space with `ftruncate` (space reserved past the end of a file is given
    /// back when it is closed, and extending a file alone only makes it sparse on APFS).
    ///
    /// Then `fstat` must show the range allocated (`st_blocks`). Where the file system does not
    /// preallocate (`ENOTSUP`; `EINVAL`, which APFS has returned for a file just created) or
    /// leaves blocks out, the rest is allocated by writing zeros over it in order
    /// (``writeZeros(_:from:to:)``), so a volume that fills up on the way stops it at the last
    /// byte it holds, never with a sparse tail. That worst case costs what writing the range
    /// costs: `length` bytes reach the device (as they would with a byte in every block, since a
    /// block is written whole), in `ceil(length / 1 MiB)` calls: 1,024 for the 1 GiB chunk of a
    /// `.allocate` fill, not the 262,144 one byte per 4 KiB block took.
    package static func platformAllocate(_ fd: Int32, offset: Int64, length: Int64) throws {
        guard length > 0 else { return }
        let end = offset + length
        let before = try fstat(fd)
        var reserved = before.allocatedSize >= end
        if !reserved {
            var request = fstore_t(fst_flags: UInt32(F_ALLOCATECONTIG | F_ALLOCATEALL), fst_posmode: F_PEOFPOSMODE,
                                   fst_offset: 0, fst_length: off_t(end - before.allocatedSize), fst_bytesalloc: 0)
            if (try? retrying("fcntl(F_PREALLOCATE)") { fcntl(fd, F_PREALLOCATE, &request) }) != nil {
                reserved = true
            } else {
                // No contiguous run that long, or no contiguous allocation here: anywhere.
                request.fst_flags = UInt32(F_ALLOCATEALL)
                do {
                    _ = try retrying("fcntl(F_PREALLOCATE)") { fcntl(fd, F_PREALLOCATE, &request) }
                    reserved = true
                } catch Errno.notSupported, Errno.operationNotSupported, Errno.invalidArgument {
                    reserved = false  // no preallocation on this file system: the blocks are written below
                }
            }
        }
        if reserved, before.size < end { try ftruncate(fd, end) }
        let after = try fstat(fd)
        guard after.allocatedSize < end else { return }
        // Not all of it is allocated: cut the file back to what is (never below its old size)
        // and write zeros over the rest.
        let block = max(512, try platformSpaceFigures(fd).blockSize)
        let keep = max(before.size, min(end, after.allocatedSize / block * block))
        if after.size > keep { try ftruncate(fd, keep) }
        try writeZeros(fd, from: keep, to: end)
    }
}

extension Sys.SpaceFigures {
    package init(_ figures: statfs) {
        let unit = Int64(figures.f_bsize)
        self.init(blockSize: max(1, unit), total: Int64(figures.f_blocks) * unit,
                  available: Int64(figures.f_bavail) * unit, free: Int64(figures.f_bfree) * unit,
                  totalInodes: Int64(figures.f_files), availableInodes: Int64(figures.f_ffree))
    }
}
#endif
