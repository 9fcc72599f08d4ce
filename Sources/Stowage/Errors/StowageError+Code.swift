extension StowageError {
    /// The kind of a ``StowageError``.
    ///
    /// A struct rather than an enum so that new codes can be added without breaking your
    /// `switch` statements; compare with `==` or match with `catch StowageError.notFound`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Kind: String, Sendable {
            case notFound, alreadyExists, invalidPath, decodingFailed, encodingFailed, noSpace
            case permissionDenied, unsupported, wrongKind, invalidArgument, ioFailure, refused, busy
        }

        let kind: Kind

        private init(_ kind: Kind) { self.kind = kind }

        /// The item does not exist.
        public static let notFound = Code(.notFound)
        /// The item exists already and the operation does not replace it.
        public static let alreadyExists = Code(.alreadyExists)
        /// The path is not acceptable: absolute, escaping its location, empty, too long,
        /// containing a NUL byte, or leading through a symbolic link.
        public static let invalidPath = Code(.invalidPath)
        /// The file's content could not be decoded as the requested type.
        public static let decodingFailed = Code(.decodingFailed)
        /// The value could not be encoded.
        public static let encodingFailed = Code(.encodingFailed)
        /// There is not enough space on the volume (`ENOSPC`, `EDQUOT`, or a failed space check).
        public static let noSpace = Code(.noSpace)
        /// The system refused access (`EACCES`, `EPERM`, `EROFS`), or a folder belongs to
        /// another user.
        public static let permissionDenied = Code(.permissionDenied)
        /// The file system or platform does not support the operation, such as extended
        /// attributes on a file system without them.
        public static let unsupported = Code(.unsupported)
        /// A file was found where a folder was expected, or the reverse.
        public static let wrongKind = Code(.wrongKind)
        /// An argument, such as a size or an identifier, is malformed.
        public static let invalidArgument = Code(.invalidArgument)
        /// Stowage declined an operation that would endanger the system, such as filling the
        /// volume holding `/` or the home folder below its safety floor without being forced.
        public static let refused = Code(.refused)
        /// Another process holds the item for an operation that cannot share it, such as a
        /// fill in progress in the folder being released.
        public static let busy = Code(.busy)
        /// Any other failure reported by the system; ``StowageError/errno`` says which.
        public static let ioFailure = Code(.ioFailure)

        /// A stable number for the code: the `NSError` code of a bridged ``StowageError`` in the
        /// `"Stowage"` domain. Numbers never change and are never reused:
        /// 1 `notFound`, 2 `alreadyExists`, 3 `invalidPath`, 4 `decodingFailed`, 5 `encodingFailed`,
        /// 6 `noSpace`, 7 `permissionDenied`, 8 `unsupported`, 9 `wrongKind`, 10 `invalidArgument`,
        /// 11 `ioFailure`, 12 `refused`, 13 `busy`.
        ///
        /// ```swift
        /// let error = error as NSError
        /// if error.domain == StowageError.errorDomain, error.code == StowageError.Code.noSpace.errorCode { ... }
        /// ```
        public var errorCode: Int {
            switch kind {
            case .notFound: 1
            case .alreadyExists: 2
            case .invalidPath: 3
            case .decodingFailed: 4
            case .encodingFailed: 5
            case .noSpace: 6
            case .permissionDenied: 7
            case .unsupported: 8
            case .wrongKind: 9
            case .invalidArgument: 10
            case .ioFailure: 11
            case .refused: 12
            case .busy: 13
            }
        }

        /// The code's name, such as `notFound`.
        public var description: String { kind.rawValue }

        /// A short phrase for messages when nothing more specific is known.
        var summary: String {
            switch kind {
            case .notFound: "no such file or folder"
            case .alreadyExists: "it exists already"
            case .invalidPath: "invalid path"
            case .decodingFailed: "the content could not be decoded"
            case .encodingFailed: "the value could not be encoded"
            case .noSpace: "no space left on device"
            case .permissionDenied: "permission denied"
            case .unsupported: "not supported"
            case .wrongKind: "not the expected kind of item"
            case .invalidArgument: "invalid argument"
            case .ioFailure: "input/output failure"
            case .refused: "refused, for the system's safety"
            case .busy: "in use by another process"
            }
        }
    }

    /// The operation during which an error happened.
    ///
    /// A struct so that later versions can add operations; each has a ``name`` used in
    /// error descriptions.
    public struct Operation: Hashable, Sendable, CustomStringConvertible {
        /// The operation's name as it appears in messages, such as `save`.
        public let name: String

        /// Creates an operation with a name.
        public init(_ name: String) { self.name = name }

        /// The operation's ``name``.
        public var description: String { name }

        /// Writing a value, data or a folder of data.
        public static let save = Operation("save")
        /// Reading a value, data or a folder of data.
        public static let retrieve = Operation("retrieve")
        /// Appending to an array file or a numbered folder.
        public static let append = Operation("append")
        /// Removing a file or folder.
        public static let remove = Operation("remove")
        /// Moving between locations.
        public static let move = Operation("move")
        /// Renaming within a location.
        public static let rename = Operation("rename")
        /// Removing everything in a location.
        public static let clear = Operation("clear")
        /// Checking whether an item exists or what kind it is.
        public static let inspect = Operation("inspect")
        /// Reading or writing a marker such as exclusion from backup.
        public static let mark = Operation("mark")
        /// Copying a bundled resource into a writable location.
        public static let materialize = Operation("materialize")
        /// Resolving a container or location folder.
        public static let locate = Operation("locate")
        /// Validating a relative path.
        public static let validatePath = Operation("validate path")
    }
}
