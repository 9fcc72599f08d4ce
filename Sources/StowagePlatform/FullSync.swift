#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Stowage's Platform layer supports Darwin, Glibc and Musl systems")
#endif

extension Errno {
    /// `ENOTTY`: the file or its file system has no such control operation.
    package static let inappropriateControl = Errno(rawValue: ENOTTY)

    /// What `fcntl(F_FULLFSYNC)` fails with where the file system does not implement it: `ENOTTY`,
    /// `ENOTSUP` and `EINVAL`. These are the three errors xnu itself reads as "this file system has
    /// no such sync" when it turns an `F_BARRIERFSYNC` into an `F_FULLFSYNC`
    /// (`bsd/kern/kern_descrip.c`, xnu-11417.101.15); a file system without the call answers
    /// `ENOTTY`, the default for an unknown control. Anything else (`EIO`, `ENOSPC`, `EROFS`) is a
    /// failure of the sync itself.
    package static let fullSyncUnsupported: [Errno] = [.inappropriateControl, .notSupported, .invalidArgument]
}

extension Sys {
    /// Runs `fullSync` (a call returning -1 and setting `errno` on failure, retried on `EINTR`);
    /// where it fails with one of ``Errno/fullSyncUnsupported`` (the file system refuses it), runs
    /// `fallback` instead. The rule behind durable writes on Apple platforms, where `fullSync` is
    /// `fcntl(F_FULLFSYNC)` and `fallback` a plain `fsync`; shared so that it is tested everywhere.
    ///
    /// - Throws: the `SystemCallError` of `fullSync` for any other `errno` (an I/O error is never
    ///   hidden behind a plain `fsync` that may succeed), or what `fallback` throws.
    package static func syncFully(_ fullSync: () -> Int32, orElse fallback: () throws -> Void) throws {
        do {
            _ = try retrying("fcntl(F_FULLFSYNC)", fullSync)
        } catch Errno.fullSyncUnsupported {
            try fallback()
        }
    }
}
