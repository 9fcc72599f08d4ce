#if canImport(Glibc) || canImport(Musl)
#if canImport(Glibc)
import Glibc
#else
import Musl
#endif
import CStowageShims

extension Sys {
    /// `fstatvfs(3)`: `f_frsize`, `f_blocks * f_frsize`, `f_bavail * f_frsize`.
    package static func platformSpaceFigures(_ fd: Int32) throws -> SpaceFigures {
        var figures = statvfs()
        _ = try retrying("fstatvfs") { fstatvfs(fd, &figures) }
        return SpaceFigures(figures)
    }

    /// `statvfs(3)` of `path`.
    package static func platformSpaceFigures(atPath path: String) throws -> SpaceFigures {
        try platformSpaceFigures(atPath: RawPath(path))
    }

    /// `statvfs(3)` of `path`, given as bytes (which need not be UTF-8).
    package static func platformSpaceFigures(atPath path: RawPath) throws -> SpaceFigures {
        var figures = statvfs()
        _ = try retrying("statvfs") { path.withCString { statvfs($0, &figures) } }
        return SpaceFigures(figures)
    }

    /// `fallocate(2)` (mode 0: allocate and extend), or where the file system does not implement
    /// it, `posix_fallocate(3)` (which the C library emulates by writing a byte in every block).
    package static func platformAllocate(_ fd: Int32, offset: Int64, length: Int64) throws {
        try budgeted(resizing: fd, call: "fallocate", to: { max($0, offset + length) }) {
            do {
                _ = try retrying("fallocate") { cstowage_fallocate(fd, offset, length) }
            } catch Errno.notSupported, Errno.operationNotSupported {
                try retryingReturnedErrno("posix_fallocate") { cstowage_posix_fallocate(fd, offset, length) }
            }
        }
    }
}

extension Sys.SpaceFigures {
    package init(_ figures: statvfs) {
        let unit = Int64(figures.f_frsize)
        self.init(blockSize: max(1, unit), total: Int64(figures.f_blocks) * unit,
                  available: Int64(figures.f_bavail) * unit, free: Int64(figures.f_bfree) * unit,
                  totalInodes: Int64(figures.f_files), availableInodes: Int64(figures.f_favail))
    }
}
#endif
