import Foundation

/// The command line of `StoreBenchmarks`.
struct Options {
    /// The folder in which the run makes its fresh working folder (`--directory`); `nil` for the
    /// default, `Benchmarks/.scratch-<random>`.
    var directory: String?
    /// Work in a fresh folder under the system temporary directory (`--temporary`).
    var useTemporaryDirectory = false
    /// Print the results as JSON on standard output (the table goes to standard error).
    var json = false
    /// Few repetitions: a smoke test of the benchmark itself, not figures to quote.
    var quick = false

    static let usage = """
        USAGE: StoreBenchmarks [--directory <path> | --temporary] [--json] [--quick]

        Measures Stowage's Store against plain Foundation (JSONEncoder/JSONDecoder,
        Data(contentsOf:), Data.write(to:options: .atomic)) and prints a table.

        OPTIONS:
          --directory <path>  Make the working folder (a fresh stowage-bench-<random>
                              folder, removed at the end) inside <path>. Default: a fresh
                              .scratch-<random> folder in the Benchmarks package folder,
                              which is on the same file system as the project.
          --temporary         Make the working folder under the system temporary directory
                              (FileManager.default.temporaryDirectory) instead.
          --json              Print the results as JSON on standard output; the table and
                              progress go to standard error.
          --quick             Few repetitions (a smoke test; the figures are rough).
          -h, --help          Show this help.

        The exit status is 0 even when a target is missed: this is a report, not a test.
        """

    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    /// Parses the arguments after the program name; `nil` when help was asked for.
    static func parse(_ arguments: [String]) throws -> Options? {
        var options = Options()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help":
                return nil
            case "--json":
                options.json = true
            case "--quick":
                options.quick = true
            case "--temporary":
                options.useTemporaryDirectory = true
            case "--directory":
                guard let value = remaining.popFirst(), !value.isEmpty else {
                    throw UsageError(description: "--directory needs a path")
                }
                options.directory = value
            default:
                if argument.hasPrefix("--directory=") {
                    let value = String(argument.dropFirst("--directory=".count))
                    guard !value.isEmpty else { throw UsageError(description: "--directory needs a path") }
                    options.directory = value
                } else {
                    throw UsageError(description: "unknown argument '\(argument)'")
                }
            }
        }
        if options.directory != nil && options.useTemporaryDirectory {
            throw UsageError(description: "--directory and --temporary cannot be used together")
        }
        return options
    }
}
