/// A path relative to a location, such as `"Folder/message.json"`, validated once.
///
/// A `RelativePath` cannot hold anything that could leave its location: it is never absolute,
/// has no `..` and no `.` components, no empty names, no NUL byte, and every name fits the
/// file system's limit of 255 bytes. Spaces, newlines, `%` and any Unicode are ordinary
/// characters and are kept exactly as given (no percent-encoding, no normalisation).
/// Repeated and trailing slashes are folded away (`"a//b/"` is `a/b`).
///
/// Validation works on the UTF-8 bytes the system will see, never on Swift characters: a
/// combining mark after a slash (`"../\u{301}x"`) makes the slash part of one `Character`, yet
/// the kernel still splits the path there, so a check by characters would let `..` through.
///
/// Names starting with `.stowage-` are reserved for Stowage's own temporary and bookkeeping
/// files and are rejected too.
///
/// ```swift
/// let path = try RelativePath("Inbox/2024/message.json")
/// path.components  // ["Inbox", "2024", "message.json"]
/// try RelativePath("../etc/passwd")  // throws StowageError.invalidPath
/// ```
public struct RelativePath: Sendable, Hashable, CustomStringConvertible {
    /// The names from the location down to the item.
    public let components: [String]

    /// The longest name, in UTF-8 bytes, that Linux and Apple file systems accept (`NAME_MAX`).
    public static let maximumNameLength = 255
    /// The longest whole path, in UTF-8 bytes, that is accepted (`PATH_MAX` less room for the
    /// location's own folder).
    public static let maximumPathLength = 3072
    /// The prefix of names Stowage keeps for itself (temporary files of atomic writes,
    /// append journals); user paths cannot use it.
    public static let reservedPrefix = ".stowage-"

    /// Whether `name` is one Stowage keeps for itself: its UTF-8 bytes start with
    /// ``reservedPrefix``'s, as the kernel compares names. (`hasPrefix` compares characters, and
    /// a combining mark right after the prefix glues onto its `-`.)
    static func isReserved(_ name: String) -> Bool { name.hasBytePrefix(reservedPrefix) }

    /// Validates `string` as a relative path.
    ///
    /// - Throws: ``StowageError/Code/invalidPath`` naming the path and what is wrong with it.
    ///   Nothing is touched on disk.
    public init(_ string: String) throws {
        if let problem = Self.problem(in: string) {
            throw StowageError(.invalidPath, operation: .validatePath, path: string, reason: problem)
        }
        components = Self.names(in: string)
    }

    /// What is wrong with `string` as a relative path, or `nil` when it is acceptable.
    static func problem(in string: String) -> String? {
        if string.isEmpty { return "the path is empty" }
        if string.utf8.contains(0) { return "the path contains a NUL byte" }
        if string.utf8.first == slash { return "the path is absolute; give a path relative to the location" }
        if string.utf8.count > maximumPathLength {
            return "the path is longer than \(maximumPathLength) bytes"
        }
        let names = names(in: string)
        if names.isEmpty { return "the path names no file" }
        for name in names {
            if name.utf8.elementsEqual("..".utf8) { return "'..' is not allowed in a path" }
            if name.utf8.elementsEqual(".".utf8) { return "'.' is not allowed as a name" }
            if name.utf8.count > maximumNameLength {
                return "the name '\(name.prefix(24))…' is longer than \(maximumNameLength) bytes"
            }
            if isReserved(name) {
                return "names starting with '\(reservedPrefix)' are reserved for Stowage"
            }
        }
        return nil
    }

    /// The names of `path` between its `/` bytes, empty names dropped. Split on bytes, as the
    /// kernel does, not on `Character`s (which glue a combining mark to the slash before it).
    static func names(in path: String) -> [String] {
        path.utf8.split(separator: slash, omittingEmptySubsequences: true).map { String(decoding: $0, as: UTF8.self) }
    }

    private static let slash = UInt8(ascii: "/")

    /// The path as a string, names joined with `/`.
    public var string: String { components.joined(separator: "/") }

    /// The path as a string.
    public var description: String { string }

    /// The last name: the file or folder itself.
    public var name: String { components[components.count - 1] }

    /// The folders above the item, empty for an item directly in the location.
    public var folders: ArraySlice<String> { components.dropLast() }
}
