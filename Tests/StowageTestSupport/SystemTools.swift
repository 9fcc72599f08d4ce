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

/// This process's environment with `HOME`, `XDG_CACHE_HOME`, `XDG_CONFIG_HOME` and `TMPDIR` in
/// `folder` (made if missing), for the tools a test runs that keep caches and settings there
/// (`swift build`: SwiftPM's fetched repositories, manifests and security settings; the
/// compiler's module cache): what they keep goes to the test's folder, never to the machine's
/// `~/.cache` or `~/.swiftpm`.
public func toolEnvironment(home folder: String) throws -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    for (name, subfolder) in [("HOME", ""), ("XDG_CACHE_HOME", "/.cache"), ("XDG_CONFIG_HOME", "/.config"), ("TMPDIR", "/tmp")] {
        try FileManager.default.createDirectory(atPath: folder + subfolder, withIntermediateDirectories: true)
        environment[name] = folder + subfolder
    }
    return environment
}

/// The host's mounts made by a room (their source is `stowage-room`): there must never be any,
/// since rooms mount only in their private namespaces.
public func hostRoomMounts() throws -> [String] {
    // As bytes: one mount point on the machine that is not UTF-8 must not fail the reading.
    guard let table = mountTable() else {
        throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: "/proc/self/mountinfo"])
    }
    return table.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
        .filter { $0.contains(" stowage-room ") }
}

/// A process as this process's `/proc` shows it: its number and its start time (field 22 of
/// `/proc/<pid>/stat`), which together name it even after the number has gone to another.
public struct ProcessIdentity: Hashable, Sendable, CustomStringConvertible {
    public let pid: Int32
    public let startTime: String

    /// The process numbered `pid` now, or `nil` when there is none.
    public init?(pid: Int32) {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ")  // from field 3, the state
        guard fields.count > 19 else { return nil }
        self.pid = pid
        startTime = String(fields[19])
    }

    /// Whether this very process is still there (a zombie included).
    public var exists: Bool { ProcessIdentity(pid: pid) == self }

    public var description: String { "\(pid)" }
}

/// The processes in the mount namespace `namespace` (`mnt:[4026532178]`) now. Ask while the
/// namespace is known to exist: once it is gone, its number may be another namespace's.
public func processes(inMountNamespace namespace: String) -> [ProcessIdentity] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap(Int32.init).filter {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\($0)/ns/mnt")) == namespace
    }.compactMap(ProcessIdentity.init(pid:))
}

/// Ends with `SIGKILL` each of `processes` still there, so that a test that failed leaves none
/// behind to hold a room's mounts (never another process that took one's number).
public func end(_ processes: [ProcessIdentity]) {
    for process in processes where process.pid > 1 && process.exists { _ = kill(process.pid, SIGKILL) }
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
