#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Stowage's Platform layer supports Darwin, Glibc and Musl systems")
#endif

/// One tiny wrapper per C call, each throwing ``SystemCallError`` with the call's name.
/// Calls that can be interrupted by a signal are retried on `EINTR` here, in one place.
package enum Sys {
    /// Runs `attempt` until it does not fail with `EINTR`: the one place where an interrupted
    /// call is retried. `attempt` returns `nil` on success, or the `errno` it failed with.
    @inline(__always)
    private static func untilNotInterrupted(_ call: String, _ attempt: () -> Errno?) throws {
        while let code = attempt() {
            if code != .interrupted { throw SystemCallError(errno: code, call: call) }
        }
    }

    /// Runs `body` until it does not fail with `EINTR`; a result of -1 throws with `errno`.
    @inline(__always)
    package static func retrying<T: BinaryInteger>(_ call: String, _ body: () -> T) throws -> T {
        var result: T = 0
        try untilNotInterrupted(call) {
            result = body()
            return result == -1 ? Errno.current : nil
        }
        return result
    }

    /// ``retrying(_:_:)`` for the calls that return an `errno` value instead of setting
    /// `errno` (`posix_fallocate(3)`): 0 is success.
    package static func retryingReturnedErrno(_ call: String, _ body: () -> Int32) throws {
        try untilNotInterrupted(call) {
            let code = body()
            return code == 0 ? nil : Errno(rawValue: code)
        }
    }
}

extension Sys {
    /// Sticky and writable by all: a folder every user shares, such as `/tmp`.
    package static let sharedFolderBits: UInt32 = 0o1002

    /// Flags used by the capability layers, so they need no libc names.
    package static let writeCreateExclusive: Int32 = O_WRONLY | O_CREAT | O_EXCL
    package static let readOnly: Int32 = O_RDONLY
    package static let noFollow: Int32 = O_NOFOLLOW
    package static let nonBlocking: Int32 = O_NONBLOCK
    /// `O_NOCTTY`: opening a terminal never makes it this process's controlling terminal.
    package static let noControllingTerminal: Int32 = O_NOCTTY
    package static let readWrite: Int32 = O_RDWR
    package static let readWriteCreate: Int32 = O_RDWR | O_CREAT
    package static let folderReadOnly: Int32 = O_RDONLY | O_DIRECTORY
    package static let writeCreateTruncate: Int32 = O_WRONLY | O_CREAT | O_TRUNC
}
