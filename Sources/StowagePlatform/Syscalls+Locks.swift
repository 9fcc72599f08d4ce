#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Stowage's Platform layer supports Darwin, Glibc and Musl systems")
#endif

// Advisory locks on open files.
extension Sys {
    /// `flock(2)`: `LOCK_SH` or `LOCK_EX`, waiting until granted.
    package static func flock(_ fd: Int32, exclusive: Bool) throws {
        _ = try retrying("flock") { systemFlock(fd, exclusive ? LOCK_EX : LOCK_SH) }
    }

    /// `flock(2)` with `LOCK_NB`: `false` when another open file description holds a
    /// conflicting lock, instead of waiting.
    package static func tryLock(_ fd: Int32, exclusive: Bool) throws -> Bool {
        do {
            _ = try retrying("flock") { systemFlock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) }
            return true
        } catch Errno.wouldBlock {
            return false
        }
    }

    /// `flock(2)` with `LOCK_UN`.
    package static func unlock(_ fd: Int32) {
        _ = systemFlock(fd, LOCK_UN)
    }
}

// The libc functions under names that do not clash with the wrappers above.
@inline(__always) private func systemFlock(_ fd: Int32, _ o: Int32) -> Int32 { flock(fd, o) }
