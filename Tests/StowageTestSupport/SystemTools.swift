import Foundation
import Testing

/// The path of the system tool `tool` (`du`, `mount`, `setpriv`, `mkfs.ext4`, ...) in the
/// folders system tools live in; where it is not installed, skips the test, saying why (the
/// README's `swift test` passes on a machine with only Swift installed).
public func requireTool(_ tool: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    for folder in ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"] {
        let path = folder + "/" + tool
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    let reason = "\(tool) is not installed"
    print("SKIPPED: \(reason)")
    try Test.cancel(Comment(rawValue: reason), sourceLocation: sourceLocation)
}

/// ``requireTool(_:sourceLocation:)`` as a URL, for ``runProcess(_:_:environment:directory:within:)``.
public func requireToolURL(_ tool: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> URL {
    URL(filePath: try requireTool(tool, sourceLocation: sourceLocation))
}

/// The host's mounts made by a room (their source is `stowage-room`): there must never be any,
/// since rooms mount only in their private namespaces.
public func hostRoomMounts() throws -> [String] {
    try String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8).split(separator: "\n")
        .filter { $0.contains(" stowage-room ") }.map(String.init)
}

/// The processes in the mount namespace `namespace` (`mnt:[4026532178]`), by their numbers in
/// this process's `/proc`.
public func processes(inMountNamespace namespace: String) -> [String] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.filter { $0.allSatisfy(\.isNumber) }.filter {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\($0)/ns/mnt")) == namespace
    }
}

/// Ends with `SIGKILL` every process still in the mount namespace `namespace`, so that a test
/// that failed leaves none behind to hold a room's mounts.
public func endProcesses(inMountNamespace namespace: String) {
    for process in processes(inMountNamespace: namespace) {
        if let pid = Int32(process), pid > 1 { _ = kill(pid, SIGKILL) }
    }
}

/// A second mount of something already there (`mount --bind`, or a proc file system), removed
/// when the test's reference goes away, also when the test fails. Where mounting is refused the
/// test is cancelled with the reason printed, never passed silently.
public final class ExtraMount: Sendable {
    /// Where it is mounted.
    public let path: String

    /// Mounts `arguments` (such as `["--bind", source]`) on `path`, made if missing.
    public init(_ arguments: [String], at path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let result = try runProcess(try requireToolURL("mount", sourceLocation: sourceLocation), arguments + [path])
        guard result.status == 0 else {
            let reason = "mount \(arguments.joined(separator: " ")) was refused (\(result.error)); this test needs root"
            print("SKIPPED: \(reason)")
            try Test.cancel(Comment(rawValue: reason), sourceLocation: sourceLocation)
        }
        self.path = path
    }

    deinit {
        if (try? runProcess(URL(filePath: "/bin/umount"), [path]))?.status != 0 {
            _ = try? runProcess(URL(filePath: "/bin/umount"), ["-l", path])
        }
    }
}
