#if canImport(Darwin)
import Foundation

/// Runs a Foundation call of the Platform layer (URL resource values) and turns what it throws
/// into a ``SystemCallError``, the Platform layer's one error, so that the capability layers wrap
/// it into a ``StowageError`` naming the operation and path, as for any system call.
///
/// The `errno` is the POSIX error's own, or the one a Cocoa file error stands for (no such file:
/// `ENOENT`; no permission: `EACCES`; read-only volume: `EROFS`; out of space: `ENOSPC`;
/// unsupported: `ENOTSUP`), else `EIO`.
package func foundationCall<T>(_ call: String, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as SystemCallError {
        throw error
    } catch let error as POSIXError {
        throw SystemCallError(errno: Errno(rawValue: error.code.rawValue), call: call)
    } catch let error as CocoaError {
        let errno: Errno
        switch error.code {
        case .fileNoSuchFile, .fileReadNoSuchFile: errno = .noSuchEntry
        case .fileReadNoPermission, .fileWriteNoPermission: errno = .permissionDenied
        case .fileWriteVolumeReadOnly: errno = .readOnlyFileSystem
        case .fileWriteOutOfSpace: errno = .noSpace
        case .featureUnsupported: errno = .notSupported
        default: errno = .ioError
        }
        throw SystemCallError(errno: errno, call: call)
    } catch {
        throw SystemCallError(errno: .ioError, call: call)
    }
}
#endif
