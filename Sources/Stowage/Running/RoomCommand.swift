/// What a room runs: a program, its arguments and its environment, as the bytes `execve(2)`
/// hands over, which need not be UTF-8.
///
/// A `String` replaces bytes that are not UTF-8 with U+FFFD, so a command line or an
/// environment read into strings is another command line: `printf %s $'a\377b'` would print
/// `a\357\277\275b`, and a path argument would name another file. A `RoomCommand` keeps the
/// bytes from where they enter (the `stowage` command reads its own `argv` and `environ` as
/// bytes) to `execve`.
///
/// ```swift
/// // Strings, for commands spelled in code:
/// let command = RoomCommand(["swift", "test"])
/// // Bytes, for a command line passed on exactly as it came:
/// let passedOn = RoomCommand(arguments: [Array("printf".utf8), Array("%s".utf8), [0x61, 0xFF, 0x62]])
/// ```
public struct RoomCommand: Sendable, Hashable {
    /// The program (looked up in the environment's `PATH` when it has no `/`, as `execvp`
    /// finds it) and its arguments, each as the bytes `execve` receives.
    public var arguments: [[UInt8]]
    /// The command's environment as `NAME=value` entries, or `nil` for this process's own
    /// environment, read as bytes when the room starts.
    public var environment: [[UInt8]]?

    /// A command given as bytes.
    ///
    /// - Parameters:
    ///   - arguments: The program and its arguments. None may contain a NUL byte.
    ///   - environment: `NAME=value` entries, or `nil` to pass this process's environment on
    ///     byte for byte.
    public init(arguments: [[UInt8]], environment: [[UInt8]]? = nil) {
        self.arguments = arguments
        self.environment = environment
    }

    /// A command given as text (which is always UTF-8).
    ///
    /// - Parameters:
    ///   - arguments: The program and its arguments.
    ///   - environment: The variables, or `nil` to pass this process's environment on byte for
    ///     byte (values that are not UTF-8 included).
    public init(_ arguments: [String], environment: [String: String]? = nil) {
        self.arguments = arguments.map { Array($0.utf8) }
        self.environment = environment.map { variables in
            variables.sorted { $0.key < $1.key }.map { Array("\($0.key)=\($0.value)".utf8) }
        }
    }

    /// The value of `PATH` in `environment`: the first entry, as `getenv` finds it.
    static func searchPath(in environment: [[UInt8]]) -> [UInt8]? {
        let prefix = Array("PATH=".utf8)
        return environment.first { $0.starts(with: prefix) }.map { Array($0.dropFirst(prefix.count)) }
    }

    /// Why `execve` could not carry this command (an empty program, or a NUL byte in an argument
    /// or an environment entry, which would end it early), or `nil`. An entry without `=` is
    /// passed on as it is, as `execve` takes it.
    func problem(environment: [[UInt8]]) -> String? {
        guard let program = arguments.first, !program.isEmpty else { return "there is no command to run" }
        if let index = arguments.firstIndex(where: { $0.contains(0) }) {
            return "argument \(index) of the command holds a NUL byte, which no command line can carry"
        }
        if environment.contains(where: { $0.contains(0) }) {
            return "an environment entry holds a NUL byte, which no environment can carry"
        }
        return nil
    }
}
