#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The generators' command line and report, without Foundation.

/// A malformed command line.
public struct UsageError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The command line the generators share: `DIR [--files N] [--seed S]`, plus options of their own,
/// which `extra` takes (it returns `false` for an option it does not know).
public struct GeneratorArguments {
    /// DIR, made absolute (the generators join paths with "/").
    public var directory = ""
    public var files: Int?, seed: UInt64?

    /// Parses the arguments after the program name; `nil` when help was asked for.
    public static func parse(_ arguments: [String],
                             extra: (_ option: String, _ remaining: inout ArraySlice<String>) throws -> Bool = { _, _ in false })
        throws -> GeneratorArguments? {
        var parsed = GeneratorArguments(), directory: String?, remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help": return nil
            case "--files":
                guard let value = remaining.popFirst().flatMap({ Int($0) }), value > 0 else {
                    throw UsageError("--files needs a positive whole number")
                }
                parsed.files = value
            case "--seed":
                guard let value = remaining.popFirst().flatMap({ UInt64($0) }) else { throw UsageError("--seed needs a whole number") }
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

/// The options `parse` makes of this process's arguments: help prints `usage` and exits 0; a malformed
/// command line prints the error and `usage` to standard error and exits 2.
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

/// Writes a line to standard error (with `write`: Swift 6 rejects the C global `stderr`).
public func printError(_ message: String) {
    var line = message + "\n"
    line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// `path` made absolute against the current folder, without a trailing slash.
public func absolutePath(_ path: String) -> String {
    var absolute = path
    if !path.hasPrefix("/"), let pointer = getcwd(nil, 0) {
        absolute = String(cString: pointer) + "/" + path
        free(pointer)
    }
    while absolute.count > 1 && absolute.hasSuffix("/") { absolute.removeLast() }
    return absolute
}

/// 1234567 as "1,234,567".
public func grouped(_ value: Int) -> String {
    let digits = Array(String(value.magnitude))
    let groups = stride(from: digits.count, to: 0, by: -3).reversed().map { String(digits[max(0, $0 - 3) ..< $0]) }
    return (value < 0 ? "-" : "") + groups.joined(separator: ",")
}

/// Bytes in binary units: "1.53 GiB".
public func binary(_ bytes: Int) -> String {
    var (value, unit) = (Double(bytes), 0)
    while value >= 1024 && unit < 4 { (value, unit) = (value / 1024, unit + 1) }
    return unit == 0 ? "\(bytes) B" : fixed(value, 2) + " " + ["B", "KiB", "MiB", "GiB", "TiB"][unit]
}

/// `value` with exactly `decimals` decimals (Foundation's `String(format:)` without Foundation).
public func fixed(_ value: Double, _ decimals: Int) -> String {
    let scale = (0 ..< decimals).reduce(1) { result, _ in result * 10 }, scaled = Int((value * Double(scale)).rounded())
    let fraction = String(scaled % scale)
    return decimals == 0 ? "\(scaled)" : "\(scaled / scale)." + String(repeating: "0", count: decimals - fraction.count) + fraction
}

/// Seconds since the epoch as a UTC date and time: "2025-11-21 14:03:59 UTC".
public func utcDate(_ seconds: Int) -> String {
    var (time, parts, buffer) = (time_t(seconds), tm(), [CChar](repeating: 0, count: 32))
    guard gmtime_r(&time, &parts) != nil else { return "\(seconds) s since the epoch" }
    let count = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S UTC", &parts)
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// The seconds elapsed since `start`.
public func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = (ContinuousClock.now - start).components
    return Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
}
