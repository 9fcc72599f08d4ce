#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A malformed command line of a benchmark program.
public struct UsageError: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}

/// The command line the tree generators share: `DIR [--files N] [--seed S]`, plus options of
/// their own, which `extra` takes (it returns `false` for an option it does not know).
public struct GeneratorArguments {
    /// DIR, made absolute (the generators join paths with "/").
    public var directory = ""
    public var files: Int?
    public var seed: UInt64?

    /// Parses the arguments after the program name; `nil` when help was asked for.
    public static func parse(
        _ arguments: [String],
        extra: (_ option: String, _ remaining: inout ArraySlice<String>) throws -> Bool = { _, _ in false }
    ) throws -> GeneratorArguments? {
        var parsed = GeneratorArguments()
        var directory: String?
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help":
                return nil
            case "--files":
                guard let value = remaining.popFirst().flatMap({ Int($0) }), value > 0 else {
                    throw UsageError("--files needs a positive whole number")
                }
                parsed.files = value
            case "--seed":
                guard let value = remaining.popFirst().flatMap({ UInt64($0) }) else {
                    throw UsageError("--seed needs a whole number")
                }
                parsed.seed = value
            default:
                if try extra(argument, &remaining) { continue }
                guard !argument.hasPrefix("-") else { throw UsageError("unknown option '\(argument)'") }
                guard directory == nil else { throw UsageError("more than one DIR given") }
                directory = argument
            }
        }
        guard let directory, !directory.isEmpty else { throw UsageError("no DIR given") }
        parsed.directory = absolutePath(directory)
        return parsed
    }
}

/// The options `parse` makes of this process's arguments. Help prints `usage` and exits 0; a
/// malformed command line prints the error and `usage` to standard error and exits 2.
public func commandLineOptions<Options>(usage: String, _ parse: ([String]) throws -> Options?) -> Options {
    do {
        guard let options = try parse(Array(CommandLine.arguments.dropFirst())) else {
            print(usage)
            exit(0)
        }
        return options
    } catch {
        printError("error: \(error)\n\n\(usage)")
        exit(2)
    }
}

