import Foundation

/// What a finished process said.
public struct ProcessResult: Sendable {
    /// The exit status.
    public var status: Int32
    /// Everything written to standard output.
    public var output: String
    /// Everything written to standard error.
    public var error: String
}

/// A child process started with its output collected, for tests that run several at once.
public final class RunningProcess {
    /// The process, for its identifier.
    public let process: Process
    private let output: PipeCollector
    private let error: PipeCollector

    /// Starts `executable` with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: The child's whole environment; `nil` inherits this process's.
    ///   - directory: The child's working folder; `nil` inherits this process's.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                directory: URL? = nil) throws {
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        let outputPipe = Pipe()
        let errorPipe = Pipe()
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        try process.run()
        // Both pipes are read as the child writes, so a child that fills one cannot block forever.
        output = PipeCollector(outputPipe.fileHandleForReading)
        error = PipeCollector(errorPipe.fileHandleForReading)
    }

    /// Waits for the process to end and returns its status and output.
    public func finish() -> ProcessResult {
        let outputData = output.finish()
        let errorData = error.finish()
        process.waitUntilExit()
        return ProcessResult(status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
                             error: String(decoding: errorData, as: UTF8.self))
    }
}

/// Runs `executable` with `arguments` to the end and returns its status and output.
public func runProcess(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                       directory: URL? = nil) throws -> ProcessResult {
    try RunningProcess(executable, arguments, environment: environment, directory: directory).finish()
}

/// Reads a pipe to its end on another thread.
///
/// `@unchecked Sendable`: `data` is written by the reading thread before `done` is signalled
/// and read only after waiting for it.
public final class PipeCollector: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    /// Starts reading `handle`.
    public init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    /// Everything read, once the pipe is closed.
    public func finish() -> Data {
        done.wait()
        return data
    }
}
