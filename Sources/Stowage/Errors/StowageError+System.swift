#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension StowageError.Code {
    /// The code for an `errno` value.
    init(errno: Int32) {
        switch errno {
        case ENOENT: self = .notFound
        case EEXIST, ENOTEMPTY: self = .alreadyExists
        case ENOSPC, EDQUOT: self = .noSpace
        case EACCES, EPERM, EROFS: self = .permissionDenied
        case ENOTSUP, EOPNOTSUPP, ENOSYS: self = .unsupported
        case ELOOP, ENAMETOOLONG: self = .invalidPath
        case ENOTDIR, EISDIR: self = .wrongKind
        case EINVAL: self = .invalidArgument
        default: self = .ioFailure
        }
    }
}

extension StowageError {
    /// Wraps a failed system call with the operation and the item it concerned.
    init(_ error: SystemCallError, operation: Operation, location: Location? = nil, path: String? = nil) {
        let code = Code(errno: error.errno)
        var reason: String?
        if error.errno == ELOOP {
            reason = "a symbolic link is in the way; Stowage does not follow links inside a container"
        } else if code == .unsupported, error.call.hasSuffix("xattr") {
            reason = "the file system does not support extended attributes"
        }
        self.init(code, operation: operation, location: location, path: path,
                  errno: error.errno, systemCall: error.call, reason: reason)
    }
}
