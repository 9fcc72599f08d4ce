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

/// A failed system call: its name and `errno`. Thrown by the Platform layer only; the
/// capability layers turn it into a ``StowageError`` that names the operation and path.
///
/// Match one cause by its Swift name, without binding the error:
/// `catch Errno.noSuchEntry { return nil }`, or several: `catch Errno.fileExists, Errno.notEmpty`.
/// Bind it (`catch let error as SystemCallError`) only to pass it on.
package struct SystemCallError: Error, Sendable, Equatable {
    /// The `errno` value.
    package var errno: Errno
    /// The C function that failed, such as `"openat"`.
    package var call: String

    package init(errno: Errno, call: String) {
        self.errno = errno
        self.call = call
    }
}

/// An `errno` value under a Swift name, as swift-system's `Errno` has it (`noSpace`, not
/// `ENOSPC`): what ``StowageError/errno`` and ``UsageIssue/errno`` hold.
///
/// ```swift
/// do {
///     try store.save(data, to: "big.bin", in: .documents)
/// } catch let error as StowageError where error.errno == .noSpace {
///     offerToClearCaches()
/// }
/// ```
///
/// Values differ between systems (`ENOTSUP` is 95 on Linux and 45 on Darwin; Linux has one value
/// for `ENOTSUP` and `EOPNOTSUPP`, Darwin two), so compare with these constants, not numbers.
/// Where swift-system's `Errno` is imported too, name this one `Stowage.Errno`.
public struct Errno: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The number, as the system's `<errno.h>` defines it.
    public var rawValue: Int32

    /// The value `rawValue`.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's current `errno`.
    package static var current: Errno { Errno(rawValue: cstowage_errno()) }

    /// `strerror(3)`'s message, lowercased to sit inside a sentence ("no such file or directory").
    public var description: String {
        guard let message = strerror(rawValue) else { return "errno \(rawValue)" }
        return String(cString: message).lowercased()
    }

    /// Whether `error` is a ``SystemCallError`` with this `errno`: the pattern behind
    /// `catch Errno.noSuchEntry`.
    package static func ~= (pattern: Errno, error: any Error) -> Bool {
        (error as? SystemCallError)?.errno == pattern
    }

    /// `ENOENT`: no such file or folder.
    public static let noSuchEntry = Errno(rawValue: ENOENT)
    /// `EEXIST`: the name is taken.
    public static let fileExists = Errno(rawValue: EEXIST)
    /// `ENOTEMPTY`: the folder is not empty.
    public static let notEmpty = Errno(rawValue: ENOTEMPTY)
    /// `EXDEV`: the two names are on different file systems.
    public static let crossDevice = Errno(rawValue: EXDEV)
    /// `ENOSPC`: no space left on the device.
    public static let noSpace = Errno(rawValue: ENOSPC)
    /// `EDQUOT`: the user's disk quota is used up.
    public static let quotaExceeded = Errno(rawValue: EDQUOT)
    /// `ELOOP`: a symbolic link where `O_NOFOLLOW` refuses one, or too many links on the way.
    public static let tooManySymbolicLinkLevels = Errno(rawValue: ELOOP)
    /// `ENOTDIR`: a name on the way is not a folder.
    public static let notFolder = Errno(rawValue: ENOTDIR)
    /// `EISDIR`: the item is a folder.
    public static let isFolder = Errno(rawValue: EISDIR)
    /// `EACCES`: the permission bits refuse it.
    public static let permissionDenied = Errno(rawValue: EACCES)
    /// `EPERM`: the operation is not permitted.
    public static let notPermitted = Errno(rawValue: EPERM)
    /// `EROFS`: the file system is read-only.
    public static let readOnlyFileSystem = Errno(rawValue: EROFS)
    /// `EINVAL`: an argument is not valid for this call or this file system.
    public static let invalidArgument = Errno(rawValue: EINVAL)
    /// `ENXIO`: no such device or address (opening a socket, for one).
    public static let noDeviceOrAddress = Errno(rawValue: ENXIO)
    /// `ENAMETOOLONG`: a name or the path is too long.
    public static let nameTooLong = Errno(rawValue: ENAMETOOLONG)
    /// `EINTR`: a signal interrupted the call (Stowage retries such calls: it never reaches you).
    public static let interrupted = Errno(rawValue: EINTR)
    /// `EWOULDBLOCK`: the call would have to wait (a lock held elsewhere, with `LOCK_NB`).
    public static let wouldBlock = Errno(rawValue: EWOULDBLOCK)
    /// `ERANGE`: the buffer is too small for the result.
    public static let outOfRange = Errno(rawValue: ERANGE)
    /// `EIO`: an input/output error.
    public static let ioError = Errno(rawValue: EIO)
    /// `EOVERFLOW`: a size too large for the type that must hold it (a file past `Int` on
    /// watchOS's arm64_32, read into memory).
    public static let valueTooLarge = Errno(rawValue: EOVERFLOW)
    /// `ENOSYS`: the system does not implement the call.
    public static let notImplemented = Errno(rawValue: ENOSYS)
    /// `ENOTSUP`: not supported (on Linux the same value as ``operationNotSupported``).
    public static let notSupported = Errno(rawValue: ENOTSUP)
    /// `EOPNOTSUPP`: the operation is not supported by this file system or object.
    public static let operationNotSupported = Errno(rawValue: EOPNOTSUPP)
    /// `EBUSY`: held by someone else (the signals another trap holds, for one).
    public static let busy = Errno(rawValue: EBUSY)
    /// `ETIMEDOUT`: what was waited for did not happen in time.
    public static let timedOut = Errno(rawValue: ETIMEDOUT)
    /// `ESRCH`: no such process (it ended, and was waited for).
    public static let noSuchProcess = Errno(rawValue: ESRCH)
    /// `ECHILD`: no child process to wait for (a room's child that ended without a word).
    package static let noChildProcess = Errno(rawValue: ECHILD)
    /// `ENODEV`: no such device (a file system type the kernel does not have).
    public static let noDevice = Errno(rawValue: ENODEV)
    /// The item has no such extended attribute: `ENODATA` on Linux, `ENOATTR` on Darwin.
    public static let noAttribute = Errno(rawValue: noAttributeValue)
}

extension [Errno] {
    /// Whether `error` is a ``SystemCallError`` with one of these values:
    /// `catch Errno.attributesUnsupported`.
    package static func ~= (pattern: [Errno], error: any Error) -> Bool {
        guard let error = error as? SystemCallError else { return false }
        return pattern.contains(error.errno)
    }
}

extension Errno {
    /// What an extended-attribute call fails with on a file system that keeps none.
    package static let attributesUnsupported: [Errno] = [.notSupported, .operationNotSupported]
}

#if canImport(Darwin)
private let noAttributeValue = ENOATTR
#else
private let noAttributeValue = ENODATA
#endif
