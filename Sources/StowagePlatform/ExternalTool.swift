import Foundation

/// A system tool run to the end, such as `mkfs.ext4`: the only programs the library starts
/// besides a room's command.
package struct ExternalTool {
    /// The tool's path.
    package let path: String

    /// The tool `name` found in `PATH` or in the folders system tools live in (`/sbin`,
    /// `/usr/sbin`, which an ordinary user's `PATH` often lacks), or `nil`.
    package static func find(_ name: String) -> ExternalTool? {
        let path = Sys.environmentVariable("PATH") ?? ""
        let folders = path.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") } + ["/usr/local/sbin", "/usr/sbin", "/sbin"]
        return Sys.firstExecutable(named: name, in: folders).map(ExternalTool.init(path:))
    }

    /// Runs the tool with `arguments`, its standard output discarded; returns its exit status
    /// and what it wrote to standard error.
    ///
    /// - Throws: `ENOSYS` on iOS, tvOS, watchOS and visionOS, where apps cannot start other
    ///   programs (Foundation's `Process` is macOS-only there): nothing calls it on those
    ///   platforms, where rooms, its only user, are unsupported.
    package func run(_ arguments: [String]) throws -> (status: Int32, errorOutput: String) {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        throw SystemCallError(errno: .notImplemented, call: "posix_spawn")
        #else
        let process = Process()
        process.executableURL = URL(filePath: path)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let status = process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
        return (status, String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        #endif
    }

    package init(path: String) {
        self.path = path
    }
}
