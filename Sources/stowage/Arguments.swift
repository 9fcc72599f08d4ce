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
///
/// A relative path is resolved against the working folder as the kernel names it; where that
/// name is not UTF-8 it is a usage error too (Foundation's working folder would be another
/// folder, its bytes repaired).
struct PathArgument: Sendable {
    var path: String
    /// The working folder, for a relative path.
    private var base: String?

    init(parsing argument: String) throws {
        guard !argument.isEmpty else {
            throw ValidationError("an empty path names no file or folder; give '.' for the current folder")
        }
        path = argument
        if !argument.hasPrefix("/") {
            do {
                base = try WorkingFolder.path()
            } catch let error as StowageError {
                throw ValidationError(DisplayPath.escaped(error.reason ?? error.description))
            }
        }
    }

    /// The path resolved against the working folder.
    func url(directoryHint: URL.DirectoryHint = .inferFromPath) -> URL {
        guard let base else { return URL(filePath: path, directoryHint: directoryHint) }
        return URL(filePath: path, directoryHint: directoryHint, relativeTo: URL(filePath: base, directoryHint: .isDirectory))
    }
}

/// A span of time on the command line: `45s`, `30m`, `12h`, `7d`, `2w` (a bare number is seconds).
///
/// The number is decimal digits with an optional fraction (`0.5s`), as sizes are: no sign, no
/// hexadecimal (`0x10s`), no exponent (`1e3s`), no `inf` or `nan`. Options take it with
/// `parsing: .unconditional`, so `-1s` is refused as not a duration rather than reported as a
/// missing value.
struct AgeArgument: ExpressibleByArgument, Sendable {
    var seconds: TimeInterval
    /// The text it was given, which `--help` shows as a default (`60s`, not the struct).
    private var text = ""

    /// The longest span any option takes: a year (a longer `--after` or `--interval` is surely a
    /// typo, and past 2^63 nanoseconds it could not be waited for at all).
    static let longest: TimeInterval = 365 * 86_400

    var defaultValueDescription: String { text }

    /// The span as a `Duration`; one longer than a `Duration` holds (2^63 seconds) is the
    /// longest it holds, which no file's age reaches either.
    var duration: Duration { seconds < 9e18 ? .seconds(seconds) : .seconds(Int64.max) }

    init?(argument: String) {
        let units: [(String, TimeInterval)] = [("w", 604_800), ("d", 86_400), ("h", 3600), ("m", 60), ("s", 1), ("", 1)]
        let trimmed = argument.trimmingCharacters(in: .whitespaces).lowercased()
        for (suffix, factor) in units where trimmed.hasSuffix(suffix) {
            let number = trimmed.dropLast(suffix.count)
            guard Self.isDecimal(number), let value = Double(number), value.isFinite else { continue }
            seconds = value * factor
            text = argument
            return
        }
        return nil
    }

    /// Whether `text` is digits with an optional fraction: `12`, `0.5`, `1.25`.
    private static func isDecimal(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        return parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { ("0"..."9").contains($0) } } && parts.count <= 2
    }
}

// Every argument whose values can be listed completes them in bash, zsh and fish: a type that is
// not `CaseIterable` gets only file names from ArgumentParser unless it says
// `defaultCompletionKind` (FillPlan.Method is `CaseIterable`, and completes by itself).

extension SweepOrder: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }

    public static var allValueStrings: [String] { ["lru", "oldest", "largest"] }

    public static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}

extension Location: ExpressibleByArgument {
    public init?(argument: String) { self.init(identifier: argument) }

    public static var allValueStrings: [String] { standard.map(\.identifier) + ["shared:<group>"] }

    /// The standard locations; `shared:<group>` is not offered, since a group's name cannot be
    /// guessed (and bash would end a completed `shared:` with a space).
    public static var defaultCompletionKind: CompletionKind { .list(standard.map(\.identifier)) }
}

/// The command line as the kernel handed it over: bytes (Architecture article: bytes at every boundary).
///
/// Swift's `CommandLine.arguments`, which ArgumentParser parses, turns bytes that are not UTF-8
/// into U+FFFD, and a repaired path is another path: `sweep $'sx\377'` once emptied the folder
/// `sx\357\277\275` beside it. So before any command runs, ``requireUTF8(exceptLast:)`` refuses
/// every argument that is not UTF-8 with a usage error naming it; the one exception is the
/// command line `run` executes, which ``trailing(_:)`` hands over byte for byte.
enum RawCommandLine {
    /// The arguments after the program's name, as bytes.
    static let arguments: [[UInt8]] = (1..<Int(CommandLine.argc)).map { index in
        guard let text = CommandLine.unsafeArgv[index] else { return [] }
        var count = 0
        while text[count] != 0 { count += 1 }
        return text.withMemoryRebound(to: UInt8.self, capacity: count) { Array(UnsafeBufferPointer(start: $0, count: count)) }
    }

    /// Throws a usage error (status 64) naming the first argument that is not UTF-8, leaving
    /// out the last `exempt` arguments (`run`'s command line, carried as bytes).
    static func requireUTF8(exceptLast exempt: Int) throws {
        for bytes in arguments.dropLast(exempt) where !RawPath.isUTF8(bytes) {
            throw ValidationError("the argument '\(DisplayPath.escaped(bytes: bytes))' is not UTF-8, and stowage takes paths and "
                                  + "values only as UTF-8, exactly (a repaired name would be another file); rename it, "
                                  + "or name it by a path that is UTF-8")
        }
    }

    /// The last arguments, as bytes, that ArgumentParser parsed as `parsed` (the command after
    /// `run`'s `--`).
    ///
    /// - Throws: A usage error if they are not the arguments `parsed` was read from.
    static func trailing(_ parsed: [String]) throws -> [[UInt8]] {
        let bytes = Array(arguments.suffix(parsed.count))
        guard bytes.count == parsed.count, zip(bytes, parsed).allSatisfy({ String(decoding: $0, as: UTF8.self) == $1 }) else {
            throw ValidationError("the command after -- could not be told apart from stowage's own arguments")
        }
        return bytes
    }
}
