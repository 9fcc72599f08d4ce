import Foundation
import Testing
@_exported import StowageTestSupport

/// Runs the built `stowage` binary in a temporary folder whose HOME, XDG_*_HOME and TMPDIR
/// are the test's own, so no test ever reads or writes the machine's real folders.
final class CommandRunner: Sendable {
    let folder: URL
    var folderPath: String { String(folder.path(percentEncoded: false).trimmingSuffix("/")) }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appending(path: "stowage-cli-\(UUID().uuidString)", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { removeTestFolder(folderPath) }

    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = folderPath + "/home"
        environment["XDG_DATA_HOME"] = folderPath + "/data"
        environment["XDG_CACHE_HOME"] = folderPath + "/cache"
        environment["XDG_CONFIG_HOME"] = folderPath + "/config"
        environment["TMPDIR"] = folderPath + "/tmp"
        environment.removeValue(forKey: "STOWAGE_APP")
        return environment
    }

    /// How to run a program as the unprivileged user nobody (65534, no groups): `setpriv` and its
    /// arguments, to be followed by the program and the program's arguments. Cancels the test,
    /// printing why, where running as another user is refused.
    static func asNobody() async throws -> (setpriv: URL, arguments: [String]) {
        let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]
        let setpriv = try requireToolURL("setpriv")
        let check = try await runProcess(setpriv, nobody + ["/usr/bin/true"])
        if check.status != 0 {
            print("SKIPPED: cannot run as an unprivileged user: \(check.error)")
            try Test.cancel("setpriv to an unprivileged user is refused here")
        }
        return (setpriv, nobody)
    }

    struct Result {
        var status: Int32
        var output: String
        var error: String
        /// The signal that ended the command, or `nil` when it exited.
        var signal: Int32? = nil

        func json() throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        }
    }

    /// Runs the binary to its end (every wait here is awaited, holding no thread of the cooperative pool).
    func run(_ arguments: String..., environment extra: [String: String] = [:]) async throws -> Result {
        try await run(arguments, environment: extra)
    }

    func run(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> Result {
        Result(try await start(arguments, environment: extra).finish())
    }

    /// Runs the binary with the standard streams numbered in `closed` (0, 1, 2) closed, as a
    /// shell's `<&-`, `>&-` and `2>&-` leave them; the others are read (or `/dev/null`) as usual.
    /// Waits at most `limit`.
    func run(_ arguments: [String], closing closed: Set<Int32>, environment extra: [String: String] = [:],
             within limit: Duration = ChildProcess.defaultLimit) async throws -> Result {
        func stream(_ number: Int32) -> Int32? { closed.contains(number) ? ChildProcess.closed : nil }
        return Result(try await ChildProcess(try Self.binary(), arguments, environment: environment.merging(extra) { $1 }, directory: folder,
                                             standardOutput: stream(1), standardError: stream(2), standardInput: stream(0)).finish(within: limit))
    }

    /// Runs the binary with arguments given as bytes (which need not be UTF-8), in the test's
    /// environment plus `extra` entries (`NAME=value`, bytes too), from `directory` (the test's
    /// folder by default).
    func run(bytes arguments: [[UInt8]], environment extra: [[UInt8]] = [], in directory: [UInt8]? = nil) async throws -> ProcessResult {
        let names = Set(extra.map { $0.split(separator: UInt8(ascii: "="), maxSplits: 1).first.map { String(decoding: $0, as: UTF8.self) } ?? "" })
        let inherited = environment.filter { !names.contains($0.key) }.map { Array("\($0.key)=\($0.value)".utf8) }
        return try await ChildProcess(try Self.binary(), argumentBytes: arguments, environmentBytes: inherited + extra,
                                      directory: directory ?? Array(folderPath.utf8)).finish()
    }

    /// Starts the binary without waiting for it; read its output as it runs with
    /// ``ChildProcess/read(until:within:)``, and end it with ``ChildProcess/finish(within:)``
    /// (every wait has a deadline; a child left running is killed with its last reference).
    func start(_ arguments: [String], environment extra: [String: String] = [:]) throws -> ChildProcess {
        try ChildProcess(try Self.binary(), arguments, environment: environment.merging(extra) { $1 }, directory: folder)
    }

    /// The `stowage` binary built beside this test bundle.
    static func binary() throws -> URL {
        var folders: [URL] = []
        if let override = ProcessInfo.processInfo.environment["STOWAGE_BUILD_DIR"] {
            folders.append(URL(filePath: override, directoryHint: .isDirectory))
        }
        folders.append(URL(filePath: CommandLine.arguments[0]).standardizedFileURL.deletingLastPathComponent())
        folders.append(Bundle.main.bundleURL)
        for folder in folders {
            var current = folder
            for _ in 0..<4 {
                let candidate = current.appending(path: "stowage")
                if FileManager.default.isExecutableFile(atPath: candidate.path(percentEncoded: false)) { return candidate }
                current = current.deletingLastPathComponent()
            }
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "stowage"])
    }
}

extension CommandRunner.Result {
    init(_ result: ProcessResult) {
        self.init(status: result.status, output: result.output, error: result.error, signal: result.signal)
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> Substring {
        hasSuffix(suffix) ? dropLast(suffix.count) : Substring(self)
    }
}
