import CStowageTestShims
import Foundation

/// What a finished process said.
public struct ProcessResult: Sendable {
    /// The exit status; for a process ended by a signal, 128 plus the signal's number, as shells say.
    public var status: Int32
    /// Everything written to standard output.
    public var output: String
    /// Everything written to standard error.
    public var error: String
    /// The signal that ended the process, or `nil` when it exited.
    public var signal: Int32? = nil
    /// Standard output exactly as written (``output`` turns bytes that are not UTF-8 into U+FFFD).
    public var outputBytes: [UInt8]

    public init(status: Int32, output: String, error: String, signal: Int32? = nil, outputBytes: [UInt8]? = nil) {
        self.status = status
        self.output = output
        self.error = error
        self.signal = signal
        self.outputBytes = outputBytes ?? Array(output.utf8)
    }
}

/// A child process waited for past its deadline: it was killed (with everything it started).
public struct ChildProcessTimeout: Error, CustomStringConvertible {
    public var command: String
    public var waitedFor: String
    public var limit: Duration
    public var output: String
    public var error: String

    public var description: String {
        "\(command) did not \(waitedFor) within \(limit); killed. Standard output: \(output.suffix(2000).debugDescription); "
            + "standard error: \(error.suffix(2000).debugDescription)"
    }
}

/// A child process of a test, started with `posix_spawn` (not Foundation's `Process`, whose
/// `run()` crashes now and then on Linux: swift-corelibs-foundation #5472), its standard output
/// and error read as it writes them.
///
/// **Every wait has a deadline.** ``read(until:within:)`` and ``finish(within:)`` throw
/// ``ChildProcessTimeout`` when it passes, after killing the child's whole process group; so a
/// regression makes a test fail, never hang. A child still running when the last reference goes
/// away is killed too, so no test leaves one behind (an orphaned `stowage watch`, say).
public final class ChildProcess: Sendable {
    /// The default deadline of a wait: long enough for any child of the suite on a loaded machine.
    public static let defaultLimit: Duration = .seconds(300)
    /// A standard stream the child starts without, as a shell's `>&-` or `<&-` leaves it.
    public static let closed: Int32 = -1

    /// The child's process id (also its process group's).
    public let identifier: pid_t
    /// The command, for messages.
    public let command: String
    private let state = State()

    /// What the reading and reaping threads share with the waiting one.
    ///
    /// `@unchecked Sendable`: every mutable field is read and written only while `condition` is held.
    private final class State: @unchecked Sendable {
        let condition = NSCondition()
        var output = Data()
        var error = Data()
        var isOutputOpen = true
        var isErrorOpen = true
        var termination: Int32?  // the raw wait status

        var isDone: Bool { termination != nil && !isOutputOpen && !isErrorOpen }
    }

    /// Starts `executable` with `arguments`, standard input from `/dev/null`.
    ///
    /// - Parameters:
    ///   - environment: The child's whole environment; `nil` inherits this process's.
    ///   - directory: The child's working folder; `nil` inherits this process's.
    ///   - standardOutput: A descriptor for the child's standard output (a terminal, say)
    ///     instead of a pipe read here; its output then reads as empty.
    ///   - standardError: The same for standard error.
    ///   - standardInput: A descriptor for the child's standard input instead of `/dev/null`.
    ///   Any of the three may be ``closed``: the child starts with that stream closed.
    public convenience init(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                            directory: URL? = nil, standardOutput: Int32? = nil, standardError: Int32? = nil,
                            standardInput: Int32? = nil) throws {
        try self.init(executable, argumentBytes: arguments.map { Array($0.utf8) },
                      environmentBytes: environment.map { $0.map { Array("\($0.key)=\($0.value)".utf8) } },
                      directory: directory.map { Array($0.path(percentEncoded: false).utf8) },
                      standardOutput: standardOutput, standardError: standardError,
                      standardInput: standardInput)
    }

    /// Starts `executable` with arguments and environment entries (`NAME=value`) given as bytes,
    /// which need not be UTF-8 (and so is the working folder's path); `nil` passes this
    /// process's environment on. The rest as above.
    public init(_ executable: URL, argumentBytes arguments: [[UInt8]], environmentBytes: [[UInt8]]? = nil,
                directory: [UInt8]? = nil, standardOutput: Int32? = nil, standardError: Int32? = nil,
                standardInput: Int32? = nil) throws {
        let path = executable.path(percentEncoded: false)
        command = ([path] + arguments.map { String(decoding: $0, as: UTF8.self) }).joined(separator: " ")
        var outputPipe: [Int32] = [-1, -1]
        var errorPipe: [Int32] = [-1, -1]
        guard cstowage_test_pipe(&outputPipe) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        guard cstowage_test_pipe(&errorPipe) == 0 else {
            let code = errno
            close(outputPipe[0])
            close(outputPipe[1])
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        let input = standardInput.map { dup($0) } ?? open("/dev/null", O_RDONLY | O_CLOEXEC)
        let environmentList = environmentBytes ?? ProcessInfo.processInfo.environment.map { Array("\($0.key)=\($0.value)".utf8) }
        var pid: pid_t = 0
        let (output, error) = (standardOutput ?? outputPipe[1], standardError ?? errorPipe[1])
        let result = Self.withCStrings([Array(path.utf8)] + arguments) { argv in
            Self.withCStrings(environmentList) { envp in
                if let directory {
                    return Self.withCStrings([directory]) { folder in
                        cstowage_test_spawn(&pid, path, argv, envp, folder[0], input, output, error)
                    }
                }
                return cstowage_test_spawn(&pid, path, argv, envp, nil, input, output, error)
            }
        }
        close(input)
        close(outputPipe[1])  // a descriptor given instead stays the caller's; the unused pipe reads as empty
        close(errorPipe[1])
        guard result == 0 else {
            close(outputPipe[0])
            close(errorPipe[0])
            throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO, userInfo: [NSFilePathErrorKey: path])
        }
        identifier = pid
        let child = pid
        Self.startReading(outputPipe[0], into: state, isOutput: true)
        Self.startReading(errorPipe[0], into: state, isOutput: false)
        let state = state
        Thread.detachNewThread {
            var status: Int32 = 0
            while waitpid(child, &status, 0) == -1 && errno == EINTR {}
            state.condition.withLock {
                state.termination = status
                state.condition.broadcast()
            }
        }
    }

    deinit {
        // Never leave a child running: a test that forgot it (or failed before its wait) kills it here.
        if isRunning { _ = killGroup() }
    }

    private static func startReading(_ descriptor: Int32, into state: State, isOutput: Bool) {
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                state.condition.withLock {
                    if count > 0 {
                        if isOutput {
                            state.output.append(contentsOf: buffer[0..<count])
                        } else {
                            state.error.append(contentsOf: buffer[0..<count])
                        }
                    } else if isOutput {
                        state.isOutputOpen = false
                    } else {
                        state.isErrorOpen = false
                    }
                    state.condition.broadcast()
                }
                if count <= 0 { break }
            }
            close(descriptor)
        }
    }

    private static func withCStrings<R>(_ strings: [[UInt8]], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        let pointers: [UnsafeMutablePointer<CChar>?] = strings.map { bytes in
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            bytes.withUnsafeBytes { UnsafeMutableRawBufferPointer(start: pointer, count: bytes.count).copyMemory(from: $0) }
            pointer[bytes.count] = 0
            return pointer
        } + [nil]
        defer { pointers.forEach { $0?.deallocate() } }
        return body(pointers)
    }

    /// Whether the child has not ended yet.
    public var isRunning: Bool { state.condition.withLock { state.termination == nil } }

    /// Sends `signal` to the child.
    public func signal(_ signal: Int32) { _ = Foundation.kill(identifier, signal) }

    /// What the child wrote to standard output until `marker` appeared (included), waiting as
    /// long as it takes within `limit`. Throws ``ChildProcessTimeout`` (the child killed) when
    /// the marker has not appeared by then, and also when the child closed its output without it.
    public func read(until marker: String, within limit: Duration = ChildProcess.defaultLimit) throws -> String {
        try read(within: limit, waitingFor: "write \(marker.debugDescription)") { $0.contains(marker) }
    }

    /// What the child wrote to standard output once `isComplete` says it is complete (called
    /// with all of it so far), within `limit`; throws ``ChildProcessTimeout`` as
    /// ``read(until:within:)`` does.
    public func read(within limit: Duration = ChildProcess.defaultLimit, waitingFor what: String = "write what was awaited",
                     until isComplete: (String) -> Bool) throws -> String {
        let deadline = Date.now.addingTimeInterval(Self.seconds(limit))
        let (text, closed) = state.condition.withLock { () -> (String?, Bool) in
            while true {
                let text = String(decoding: state.output, as: UTF8.self)
                if isComplete(text) { return (text, false) }
                if !state.isOutputOpen { return (nil, true) }
                if !state.condition.wait(until: deadline) { return (nil, false) }
            }
        }
        if let text { return text }
        throw timeout(what + (closed ? " before closing its output" : ""), limit)
    }

    /// Waits for the child to end and its output to close, within `limit`; throws
    /// ``ChildProcessTimeout`` (the child killed) past it.
    public func finish(within limit: Duration = ChildProcess.defaultLimit) throws -> ProcessResult {
        let deadline = Date.now.addingTimeInterval(Self.seconds(limit))
        let done = state.condition.withLock { () -> Bool in
            while !state.isDone {
                if !state.condition.wait(until: deadline) { return false }
            }
            return true
        }
        guard done else { throw timeout("end", limit) }
        return result()
    }

    /// ``read(until:within:)``, awaited: the wait holds a thread of its own, not one of the
    /// cooperative pool's (``onOwnThread(_:)``).
    public func read(until marker: String, within limit: Duration = ChildProcess.defaultLimit) async throws -> String {
        try await onOwnThread { try self.read(until: marker, within: limit) }
    }

    /// ``read(within:waitingFor:until:)``, awaited as ``read(until:within:)`` is.
    public func read(within limit: Duration = ChildProcess.defaultLimit, waitingFor what: String = "write what was awaited",
                     until isComplete: @escaping @Sendable (String) -> Bool) async throws -> String {
        try await onOwnThread { try self.read(within: limit, waitingFor: what, until: isComplete) }
    }

    /// ``finish(within:)``, awaited as ``read(until:within:)`` is.
    public func finish(within limit: Duration = ChildProcess.defaultLimit) async throws -> ProcessResult {
        try await onOwnThread { try self.finish(within: limit) }
    }

    /// Kills the child and everything it started (its process group) with SIGKILL, and waits
    /// for it to end.
    @discardableResult
    public func killGroup() -> ProcessResult {
        if identifier > 1 {  // never -1 (every process) or 0 (this process's own group)
            _ = Foundation.kill(-identifier, SIGKILL)
            _ = Foundation.kill(identifier, SIGKILL)
        }
        let deadline = Date.now.addingTimeInterval(30)
        state.condition.withLock {
            while !state.isDone {
                if !state.condition.wait(until: deadline) { break }
            }
        }
        return result()
    }

    private func result() -> ProcessResult {
        state.condition.withLock {
            let status = state.termination ?? 0
            let signal = status & 0x7f
            let signalled = signal != 0 && signal != 0x7f
            return ProcessResult(status: signalled ? 128 + signal : (status >> 8) & 0xff,
                                 output: String(decoding: state.output, as: UTF8.self),
                                 error: String(decoding: state.error, as: UTF8.self),
                                 signal: signalled ? signal : nil, outputBytes: Array(state.output))
        }
    }

    private func timeout(_ waitedFor: String, _ limit: Duration) -> ChildProcessTimeout {
        let ended = killGroup()
        return ChildProcessTimeout(command: command, waitedFor: waitedFor, limit: limit, output: ended.output, error: ended.error)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// Runs `executable` with `arguments` to the end, within `limit` (past it the child is killed
/// and ``ChildProcessTimeout`` thrown), and returns its status and output.
public func runProcess(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                       directory: URL? = nil, within limit: Duration = ChildProcess.defaultLimit) throws -> ProcessResult {
    try ChildProcess(executable, arguments, environment: environment, directory: directory).finish(within: limit)
}

/// ``runProcess(_:_:environment:directory:within:)``, awaited: the wait holds a thread of its own,
/// not one of the cooperative pool's (``onOwnThread(_:)``).
public func runProcess(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                       directory: URL? = nil, within limit: Duration = ChildProcess.defaultLimit) async throws -> ProcessResult {
    try await ChildProcess(executable, arguments, environment: environment, directory: directory).finish(within: limit)
}
