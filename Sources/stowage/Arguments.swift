import ArgumentParser
import Foundation
import Stowage

/// A size on the command line: `100MB`, `1.5GiB`, `4096`.
///
/// Options take it with `parsing: .unconditional, transform: SizeArgument.init(parsing:)`: the
/// value is taken even when it starts with `-` (so `-5MB` is refused as negative, not reported as
/// a missing value), and a malformed size is
/// reported with ByteCount's explanation of what is accepted, not just "invalid".
struct SizeArgument: Sendable {
    var bytes: Int64

    init(parsing argument: String) throws {
        do {
            bytes = try ByteCount(parsing: argument).bytes
        } catch let error as StowageError {
            throw ValidationError(error.reason ?? error.description)
        }
    }
}

/// A file or folder named on the command line, relative to the working folder or absolute.
///
/// Every argument and option that names a path takes it with
/// `transform: PathArgument.init(parsing:)`, so an empty string is a usage error (status 64)
/// naming the argument: a path API reads `""` as the working folder, and `sweep ""` would
/// sweep wherever the command happened to be started.
struct PathArgument: Sendable {
    var path: String

    init(parsing argument: String) throws {
        guard !argument.isEmpty else {
            throw ValidationError("an empty path names no file or folder; give '.' for the current folder")
        }
        path = argument
    }

    /// The path resolved against the working folder.
    func url(directoryHint: URL.DirectoryHint = .inferFromPath) -> URL {
        let base = URL(filePath: FileManager.default.currentDirectoryPath, directoryHint: .isDirectory)
        return URL(filePath: path, directoryHint: directoryHint, relativeTo: base)
    }
}

/// A span of time on the command line: `45s`, `30m`, `12h`, `7d`, `2w` (a bare number is seconds).
struct AgeArgument: ExpressibleByArgument, Sendable {
    var seconds: TimeInterval
    /// The text it was given, which `--help` shows as a default (`60s`, not the struct).
    private var text = ""

    var defaultValueDescription: String { text }

    init?(argument: String) {
        let units: [(String, TimeInterval)] = [("w", 604_800), ("d", 86_400), ("h", 3600), ("m", 60), ("s", 1), ("", 1)]
        let trimmed = argument.trimmingCharacters(in: .whitespaces).lowercased()
        for (suffix, factor) in units where trimmed.hasSuffix(suffix) {
            guard let value = Double(trimmed.dropLast(suffix.count)), value >= 0, value.isFinite else { continue }
            seconds = value * factor
            text = argument
            return
        }
        return nil
    }
}

extension SweepOrder: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }

    public static var allValueStrings: [String] { ["lru", "oldest", "largest"] }
}

extension Location: ExpressibleByArgument {
    public init?(argument: String) { self.init(identifier: argument) }

    public static var allValueStrings: [String] { ["documents", "applicationSupport", "caches", "preferences", "temporary", "shared:<group>"] }
}
