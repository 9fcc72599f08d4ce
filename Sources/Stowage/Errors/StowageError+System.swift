extension StowageError.Code {
    /// The code for an `errno` value, as Stowage's own errors use it: ``notFound`` for
    /// `ENOENT`, ``permissionDenied`` for `EACCES`, `EPERM` and `EROFS`, ``wrongKind`` for
    /// `ENOTDIR` and `EISDIR`, ``ioFailure`` for a value with no closer code, and so on.
    ///
    /// ```swift
    /// let issue = report.issues[0]  // a problem a usage scan met
    /// let code = issue.errno.map(StowageError.Code.init(errno:))  // .notFound for ENOENT
    /// ```
    public init(errno: Errno) {
        switch errno {
        case .noSuchEntry: self = .notFound
        case .fileExists, .notEmpty: self = .alreadyExists
        case .noSpace, .quotaExceeded: self = .noSpace
        case .permissionDenied, .notPermitted, .readOnlyFileSystem: self = .permissionDenied
        case .notSupported, .operationNotSupported, .notImplemented: self = .unsupported
        case .tooManySymbolicLinkLevels, .nameTooLong: self = .invalidPath
        case .notFolder, .isFolder: self = .wrongKind
        case .invalidArgument: self = .invalidArgument
        default: self = .ioFailure
        }
    }
}

extension StowageError {
    /// Wraps a failed system call with the operation and the item it concerned, and the reason
    /// Stowage gives for it (``systemCallReason(_:)``).
    init(_ error: SystemCallError, operation: Operation, location: Location? = nil, path: String? = nil) {
        self.init(error, operation: operation, location: location, path: path, reason: Self.systemCallReason(error))
    }

    /// Wraps a failed system call with the operation, the item it concerned and `reason` (`nil`
    /// for none), in place of the one Stowage gives.
    init(_ error: SystemCallError, operation: Operation, location: Location? = nil, path: String? = nil,
         reason: String?, pathBytes: [UInt8]? = nil) {
        self.init(Code(errno: error.errno), operation: operation, location: location, path: path,
                  errno: error.errno, systemCall: error.call, reason: reason, pathBytes: pathBytes)
    }

    /// The reason Stowage gives for a failed system call, when the `errno` alone would mislead:
    /// a symbolic link in the way, a file system without extended attributes.
    static func systemCallReason(_ error: SystemCallError) -> String? {
        if error.errno == .tooManySymbolicLinkLevels {
            return "a symbolic link is in the way; Stowage does not follow links inside a container"
        } else if Code(errno: error.errno) == .unsupported, error.call.hasSuffix("xattr") {
            return "the file system does not support extended attributes"
        }
        return nil
    }
}
