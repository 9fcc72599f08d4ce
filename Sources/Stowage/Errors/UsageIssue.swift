/// A problem met during a scan: the path and the system's error.
///
/// The path is text (``path``) and bytes (``pathBytes``), as in ``UsageItem``; JSON adds
/// `pathBase64` only when the text is not exact.
public struct UsageIssue: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Where it happened, as text (see ``pathBytes`` for the exact bytes).
    public let path: String
    /// Where it happened, byte for byte.
    public let pathBytes: [UInt8]
    /// The `errno` value of the system call that failed, or `nil` for a problem of another kind
    /// (`null` in JSON, as in a command's error).
    public let errno: Errno?
    /// What happened, such as `permission denied; its contents were skipped`.
    public let message: String

    /// `path: message`.
    public var description: String { "\(path): \(message)" }

    /// An issue at the path spelled by the bytes `pathBytes`.
    init(pathBytes: [UInt8], errno: Errno?, message: String) {
        path = ReportedPath.text(pathBytes)
        self.pathBytes = pathBytes
        self.errno = errno
        self.message = message
    }

    /// An issue at `path` (its UTF-8 bytes).
    init(path: String, errno: Errno?, message: String) {
        self.init(pathBytes: Array(path.utf8), errno: errno, message: message)
    }

    private enum CodingKeys: String, CodingKey {
        case path, pathBytes = "pathBase64", errno, message
    }

    /// Encodes every property under its own name (`errno` as its number, `null` when there is
    /// none), and `pathBase64` only when the path is not UTF-8.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        try container.encode(Base64WhenNotUTF8(wrappedValue: pathBytes), forKey: .pathBytes)
        try container.encode(errno?.rawValue, forKey: .errno)
        try container.encode(message, forKey: .message)
    }

    /// Decodes what ``encode(to:)`` wrote (and an `errno` of 0, as earlier versions wrote "none").
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        path = try container.decode(String.self, forKey: .path)
        pathBytes = try container.decode(Base64WhenNotUTF8.self, forKey: .pathBytes).wrappedValue
        errno = try container.decodeIfPresent(Int32.self, forKey: .errno).flatMap { $0 == 0 ? nil : Errno(rawValue: $0) }
        message = try container.decode(String.self, forKey: .message)
    }
}
