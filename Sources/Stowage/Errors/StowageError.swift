import Foundation

/// The one error type of Stowage: what went wrong, during which operation, where, and why.
///
/// Every error names the operation (``Operation``), the location and relative path or the
/// absolute file it concerns, and the underlying cause: an `errno` value from the system, or a
/// decoding or encoding error. Its ``description`` reads like a sentence a person can act on:
///
/// ```
/// save 'Caches/feed.json' failed: no space left on device (needed 12 MB, 3 MB available)
/// ```
///
/// Match on the ``code`` with the static members, the way you match a `CocoaError`:
///
/// ```swift
/// do {
///     let feed = try store.retrieve(Feed.self, from: "feed.json", in: .caches)
/// } catch StowageError.notFound {
///     // first launch: nothing cached yet
/// } catch let error as StowageError where error.code == .decodingFailed {
///     print(error.path ?? "", error.underlying ?? error)
/// }
/// ```
///
/// It is a `LocalizedError` and a `CustomNSError`, so code that shows `localizedDescription`
/// or reads an `NSError` gets the same sentence, on Linux too:
///
/// ```swift
/// } catch {
///     let error = error as NSError
///     print(error.localizedDescription)         // the description above
///     print(error.domain, error.code)           // "Stowage", Code.errorCode (1 for notFound)
///     print(error.localizedFailureReason ?? "")  // "No space left on device (needed 12 MB, 3 MB available)."
///     print(error.localizedRecoverySuggestion ?? "")
/// }
/// ```
///
/// On Linux, `catch let error as NSError` does not match a Swift error (Apple platforms bridge
/// every error there); write `catch` and `error as NSError`, as above, which works on both.
public struct StowageError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What kind of failure this is. New codes may be added in later versions, so a `switch`
    /// over codes should have a `default` branch.
    public let code: Code
    /// The operation that failed, such as ``Operation/save`` or ``Operation/retrieve``.
    public let operation: Operation
    /// The location the path is relative to, when the operation concerned a container location.
    public let location: Location?
    /// The path the operation concerned: relative to ``location`` when that is set, otherwise
    /// an absolute path. `nil` only for errors that concern no file (a malformed size, say).
    public let path: String?
    /// The `errno` value reported by the system call that failed, when one did: compare it with
    /// the named values (`error.errno == .noSpace`).
    public let errno: Errno?
    /// The name of the system call that failed (`"openat"`, `"renameat"`, ...), when one did.
    public let systemCall: String?
    /// The error that caused this one, such as a `DecodingError`.
    public let underlying: (any Error & Sendable)?
    /// Bytes the operation needed, for ``Code/noSpace`` errors raised by a space check.
    public let neededBytes: Int64?
    /// Bytes that were available, for ``Code/noSpace`` errors raised by a space check.
    public let availableBytes: Int64?
    /// Further explanation in plain words, such as why a path was rejected.
    public let reason: String?
    /// Where a ``Operation/move`` or ``Operation/rename`` was taking the item, when the error
    /// concerns both places (``path`` is then the item being moved).
    public let destinationLocation: Location?
    /// The path a ``Operation/move`` or ``Operation/rename`` was taking the item to, relative to
    /// ``destinationLocation``, when the error concerns both places.
    public let destinationPath: String?
    /// The exact bytes of ``path`` when they are not UTF-8 (a room's program named by bytes, say),
    /// which ``path`` shows as U+FFFD; `nil` otherwise. A command-line tool shows these escaped.
    public let pathBytes: [UInt8]?

    /// Creates an error with all its facts: an error is not changed once made. Library code
    /// builds these; you rarely need to.
    public init(
        _ code: Code,
        operation: Operation,
        location: Location? = nil,
        path: String? = nil,
        destinationLocation: Location? = nil,
        destinationPath: String? = nil,
        errno: Errno? = nil,
        systemCall: String? = nil,
        underlying: (any Error & Sendable)? = nil,
        reason: String? = nil,
        neededBytes: Int64? = nil,
        availableBytes: Int64? = nil,
        pathBytes: [UInt8]? = nil
    ) {
        self.code = code
        self.operation = operation
        self.location = location
        self.path = path
        self.destinationLocation = destinationLocation
        self.destinationPath = destinationPath
        self.errno = errno
        self.systemCall = systemCall
        self.underlying = underlying
        self.reason = reason
        self.neededBytes = neededBytes
        self.availableBytes = availableBytes
        self.pathBytes = pathBytes.flatMap { RawPath(bytes: $0).isUTF8 ? nil : $0 }
    }

    /// The path as a person reads it: `Caches/feed.json` for a location path, the absolute
    /// path otherwise (an absolute path alone, also when a location is known: never
    /// `Documents//tmp/...`).
    public var displayPath: String? { Self.displayPath(location, path) }

    /// ``destinationPath`` as a person reads it, such as `Documents/album/sub`.
    public var destinationDisplayPath: String? {
        guard let destinationPath else { return nil }
        return Self.displayPath(destinationLocation, destinationPath)
    }

    /// `path` below `location` as a person reads it: the location's name, then the relative
    /// path; an absolute path as it is.
    private static func displayPath(_ location: Location?, _ path: String?) -> String? {
        switch (location, path) {
        case (_, let path?) where path.hasPrefix("/"): return path
        case (let location?, let path?): return path.isEmpty ? location.displayName : "\(location.displayName)/\(path)"
        case (let location?, nil): return location.displayName
        case (nil, let path?): return path
        case (nil, nil): return nil
        }
    }

    /// A sentence such as `save 'Caches/feed.json' failed: no space left on device`, or, when
    /// the error names a destination, `rename 'Documents/album' to 'Documents/album/sub' failed: ...`.
    public var description: String {
        var text = operation.name
        if let displayPath { text += " '\(displayPath)'" }
        if let destinationDisplayPath { text += " to '\(destinationDisplayPath)'" }
        text += " failed: "
        text += cause
        text += figures
        return text
    }

    /// ` (needed 12 MB, 3 MB available)` for a failed space check, otherwise empty.
    var figures: String {
        var figures: [String] = []
        if let neededBytes { figures.append("needed \(ByteCount(neededBytes).formatted())") }
        if let availableBytes { figures.append("\(ByteCount(availableBytes).formatted()) available") }
        return figures.isEmpty ? "" : " (\(figures.joined(separator: ", ")))"
    }

    /// The description with the raw details: code, errno, system call and underlying error.
    public var debugDescription: String {
        var parts = ["StowageError.\(code)", description]
        if let errno { parts.append("errno \(errno.rawValue)") }
        if let systemCall { parts.append("in \(systemCall)") }
        if let underlying { parts.append("underlying: \(String(reflecting: underlying))") }
        return parts.joined(separator: "; ")
    }

    /// The cause: the reason, the errno's message or the code's summary, and the underlying error.
    var cause: String {
        var pieces: [String] = []
        if let reason {
            pieces.append(reason)
        } else if let errno {
            pieces.append(errno.description)
        } else {
            pieces.append(code.summary)
        }
        if reason != nil, let errno, code == .ioFailure {
            pieces.append(errno.description)
        }
        if let underlying, !(underlying is StowageError) {
            pieces.append(Self.describe(underlying: underlying))
        }
        return pieces.joined(separator: ": ")
    }

    private static func describe(underlying error: any Error) -> String {
        switch error {
        case let DecodingError.dataCorrupted(context):
            return "data corrupted" + Self.describe(context)
        case let DecodingError.keyNotFound(key, context):
            return "key '\(key.stringValue)' not found" + Self.describe(context)
        case let DecodingError.typeMismatch(type, context):
            return "type mismatch, expected \(type)" + Self.describe(context)
        case let DecodingError.valueNotFound(type, context):
            return "value of type \(type) not found" + Self.describe(context)
        case let EncodingError.invalidValue(value, context):
            return "invalid value \(value)" + (context.codingPath.isEmpty ? "" : " at \(Self.codingPath(context.codingPath))")
        default:
            return String(describing: error)
        }
    }

    private static func describe(_ context: DecodingError.Context) -> String {
        var text = context.codingPath.isEmpty ? "" : " at \(Self.codingPath(context.codingPath))"
        if !context.debugDescription.isEmpty { text += " (\(context.debugDescription))" }
        return text
    }

    private static func codingPath(_ path: [any CodingKey]) -> String {
        path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
}

extension StowageError {
    /// This error with the facts given here in place of its own, every other fact carried over:
    /// how a caller adds what it knows (the operation under way, the location and path, a word
    /// on the cause) to an error raised below it. `nil` keeps the error's own.
    func replacing(operation: Operation? = nil, location: Location? = nil, path: String? = nil,
                   reason: String? = nil) -> StowageError {
        StowageError(code, operation: operation ?? self.operation, location: location ?? self.location,
                     path: path ?? self.path, destinationLocation: destinationLocation, destinationPath: destinationPath,
                     errno: errno, systemCall: systemCall, underlying: underlying, reason: reason ?? self.reason,
                     neededBytes: neededBytes, availableBytes: availableBytes, pathBytes: path == nil ? pathBytes : nil)
    }
}

extension StowageError.Code {
    /// Matches an error against a code, so `catch StowageError.notFound` works.
    public static func ~= (pattern: StowageError.Code, error: any Error) -> Bool {
        (error as? StowageError)?.code == pattern
    }
}

extension StowageError {
    /// The item does not exist.
    public static let notFound = Code.notFound
    /// The item exists already and the operation does not replace it.
    public static let alreadyExists = Code.alreadyExists
    /// The path is not acceptable: absolute, escaping, empty, too long, or through a link.
    public static let invalidPath = Code.invalidPath
    /// The file's content could not be decoded as the requested type.
    public static let decodingFailed = Code.decodingFailed
    /// The value could not be encoded.
    public static let encodingFailed = Code.encodingFailed
    /// There is not enough space on the volume.
    public static let noSpace = Code.noSpace
    /// The system refused access.
    public static let permissionDenied = Code.permissionDenied
    /// The file system or platform does not support the operation.
    public static let unsupported = Code.unsupported
    /// A file was found where a folder was expected, or the reverse.
    public static let wrongKind = Code.wrongKind
    /// An argument, such as a size or an identifier, is malformed.
    public static let invalidArgument = Code.invalidArgument
    /// Any other failure of the system; ``StowageError/errno`` says which.
    public static let ioFailure = Code.ioFailure
    /// Refused for the system's safety, such as a fill below the safety floor of the volume
    /// holding `/`.
    public static let refused = Code.refused
    /// In use by another process, such as a fill folder another fill holds.
    public static let busy = Code.busy
}
