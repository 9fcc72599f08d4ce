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

/// Runs `executable` with `arguments` to the end and returns its status and output.
///
/// - Parameters:
///   - environment: The child's whole environment; `nil` inherits this process's.
///   - directory: The child's working folder; `nil` inherits this process's.
public func runProcess(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                       directory: URL? = nil) throws -> ProcessResult {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let directory { process.currentDirectoryURL = directory }
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    // Read both pipes before waiting, so a child that fills one cannot block forever.
    let errorData = ErrorCollector(error.fileHandleForReading)
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
                         error: String(decoding: errorData.finish(), as: UTF8.self))
}

/// Reads a pipe to its end on another thread.
///
/// `@unchecked Sendable`: `data` is written by the reading thread before `done` is signalled
/// and read only after waiting for it.
private final class ErrorCollector: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func finish() -> Data {
        done.wait()
        return data
    }
}
