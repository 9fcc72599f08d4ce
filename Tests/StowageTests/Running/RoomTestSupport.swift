import Foundation
import Testing
@testable import Stowage

/// A test's own folder with a `real` folder for rooms to cover and an `out` folder, outside any
/// room, for what the commands print.
struct RoomFixture {
    let folder: TestFolder
    var real: URL { folder.file("real") }
    var realPath: String { real.fileSystemPath }

    init(_ label: String = "room") throws {
        folder = TestFolder(label)
        try FileManager.default.createDirectory(at: folder.file("real"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder.file("out"), withIntermediateDirectories: true)
    }

    /// Runs `script` with `/bin/sh` in the room of `plan`, its standard output and error in a
    /// file outside the room, and returns the report and what it printed.
    func run(_ plan: RoomPlan, _ script: String, arguments: [String] = []) throws -> (report: RoomReport, output: String) {
        let output = folder.file("out/\(UUID().uuidString)").fileSystemPath
        let process = try RoomProcess.start(plan, command: ["/bin/sh", "-c", "exec >\"$0\" 2>&1\n" + script, output] + arguments)
        let report = try process.wait()
        return (report, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }

    /// The value of `name=` on a line the script printed with `echo name=value`.
    static func value(_ name: String, in output: String) -> String? {
        output.split(separator: "\n").last { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
    }

    /// A script that tries to leave the room through `/proc`: through every descriptor of every
    /// process it can see that is a folder (`/proc/N/fd/*`, `/proc/self/fd/*`), it creates
    /// `ESCAPED-N-FD`, and prints `reached=N/FD` for each; it prints `init=` with what the room's
    /// init (PID 1) holds open, one `readlink` each, and `tried=` with how many descriptors it saw.
    /// Its first argument is a file outside the room for that output.
    static let escapeProbe = """
        exec >>"$0" 2>&1
        tried=0
        for fd in /proc/[0-9]*/fd/* /proc/self/fd/*; do
            [ -e "$fd" ] || continue
            tried=$((tried + 1))
            if [ -d "$fd" ]; then
                name=$(echo "$fd" | cut -d/ -f3,5)
                echo "reached=$name $(readlink "$fd")"
                touch "$fd/ESCAPED-$(echo "$name" | tr / -)" 2>/dev/null && echo "escaped=$name"
            fi
        done
        echo "tried=$tried"
        echo "init=$(for fd in /proc/1/fd/*; do readlink "$fd"; done | grep -v '^socket:' | tr '\\n' ' ')"
        """

    /// The escape probe's command line, and a check to call after it ran `runs` times: it saw
    /// descriptors each time, found no way out (no folder reached, no file created, nothing but
    /// a socket open in the room's init), and the real folder (with a file put in it here) is as
    /// it was.
    func escapeProbe() throws -> (command: [String], check: (_ runs: Int) throws -> Void) {
        try Data("note".utf8).write(to: real.appending(path: "note.txt"))
        let before = try folder.snapshot("real")
        let out = folder.file("out/probe-\(UUID().uuidString)").fileSystemPath
        return (["/bin/sh", "-c", Self.escapeProbe, out], { runs in
            let output = try String(contentsOfFile: out, encoding: .utf8)
            let counts = output.split(separator: "\n").filter { $0.hasPrefix("tried=") }
            #expect(counts.count == runs && !counts.contains("tried=0"), "the probe ran and saw descriptors each time: \(output)")
            let escapes = output.split(separator: "\n").filter {
                $0.hasPrefix("reached=") || $0.hasPrefix("escaped=") || ($0.hasPrefix("init=") && $0 != "init=")
            }
            #expect(escapes.isEmpty, "\(output)")
            #expect(try folder.snapshot("real") == before, "the real folder as it was")
        })
    }

    /// `df -B1 --output=avail` of a folder, as the script prints it with `echo NAME=$(avail DIR)`.
    static let availableFunction = "avail() { df -B1 --output=avail \"$1\" | tail -1 | tr -d ' '; }\n"
}

/// Rooms need mount namespaces and overlayfs: where making one is refused (no root, no user
/// namespaces, no overlay), the test is skipped with the reason, never passed silently.
/// The probe's room is of `fileSystem` (an ext4 layer needs root and `mkfs.ext4`, a tmpfs one
/// only a user namespace).
func requireRooms(fileSystem: RoomPlan.FileSystem = .tmpfs, sourceLocation: SourceLocation = #_sourceLocation) throws {
    if fileSystem == .ext4 { _ = try requireTool("mkfs.ext4", sourceLocation: sourceLocation) }
    if let reason = try roomRefusal(fileSystem: fileSystem) {
        print("SKIPPED: \(reason)")
        try Test.cancel(Comment(rawValue: reason), sourceLocation: sourceLocation)
    }
}

/// Why a room of `fileSystem` cannot be made here (no root, no user namespaces, no overlay), or
/// `nil` when a probe's room ran `/bin/true`.
func roomRefusal(fileSystem: RoomPlan.FileSystem = .tmpfs) throws -> String? {
    let probe = TestFolder("room-probe")
    do {
        let plan = RoomPlan(available: .bytes(fileSystem == .ext4 ? 1 << 20 : 4096), over: [probe.url], fileSystem: fileSystem)
        let process = try RoomProcess.start(plan, command: ["/bin/true"])
        _ = try process.wait()
        return nil
    } catch let error as StowageError where error.code == .unsupported || error.code == .permissionDenied {
        return "a room cannot be made here (\(error.description))"
    }
}

extension ProcessIdentity {
    /// Whether the process runs `sleep SECONDS` (its command line).
    func isSleep(seconds: Int) -> Bool {
        (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) == "sleep\0\(seconds)\0"
    }
}

/// The result of work done on another thread, waited for with a limit that only keeps a broken
/// test from hanging.
///
/// `@unchecked Sendable`: `result` is read and written only while `lock` is held.
final class Outcome<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<Value, any Error>?

    func set(_ result: Result<Value, any Error>) {
        lock.withLock { self.result = result }
        done.signal()
    }

    /// The value, or what the work threw; `nil` when it has not ended within `limit`.
    func wait(within limit: Duration) throws -> Value? {
        guard done.wait(timeout: .now() + .seconds(Int(limit.components.seconds))) == .success else { return nil }
        return try lock.withLock { result }?.get()
    }
}

/// Kills a room's command after `limit` (5 minutes), unless it was waited for by then: a test
/// whose signal went astray then fails on the command's ending (`SIGKILL`) instead of waiting
/// out a command that sleeps an hour.
func killing(_ process: RoomProcess, after limit: Duration = .seconds(300)) {
    DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Int(limit.components.seconds))) {
        try? process.send(.kill)  // refused once the command was waited for
    }
}
