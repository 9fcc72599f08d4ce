import CStowageShims
import Foundation
import Testing
@_exported import StowageTestSupport
@testable import Stowage

/// A fresh temporary folder for one test, removed when the test's reference goes away (bind it
/// to a name: `TestFolder().store()` removes the folder while the store still uses it), with
/// whatever is still mounted in it unmounted first (see `removeTestFolder`).
///
/// Created under the system's temporary folder with `mkdtemp`, so tests never touch `$HOME`
/// or another test's files.
final class TestFolder: Sendable {
    let url: URL
    var path: String { url.fileSystemPath }

    init(_ label: String = "test") {
        var base = FileManager.default.temporaryDirectory.path(percentEncoded: false)
        while base.hasSuffix("/") { base.removeLast() }
        var template = Array((base + "/stowage-\(label)-XXXXXX").utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(created != nil, "mkdtemp failed")
        url = URL(filePath: String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
                  directoryHint: .isDirectory)
    }

    deinit { removeTestFolder(path) }

    /// A container rooted in a sub-folder, so a sibling folder can hold sentinel files.
    func container(_ name: String = "container") -> Container {
        Container(root: url.appending(path: name, directoryHint: .isDirectory))
    }

    /// `HOME`, `XDG_DATA_HOME`, `XDG_CACHE_HOME`, `XDG_CONFIG_HOME` and `TMPDIR` inside this
    /// folder: what a test of the default container passes instead of the machine's.
    var xdgEnvironment: [String: String] {
        ["HOME": path + "/home", "XDG_DATA_HOME": path + "/data", "XDG_CACHE_HOME": path + "/cache",
         "XDG_CONFIG_HOME": path + "/config", "TMPDIR": path + "/tmp"]
    }

    func store(_ format: any ValueFormat = JSONFormat()) -> Store {
        Store(container: container(), format: format)
    }

    /// A store whose container's tmp is its own small tmpfs, so a move out of tmp crosses
    /// volumes (copied, then the original removed); the volume is returned to check it is empty.
    func storeWithTemporaryOnItsOwnVolume() throws -> (store: Store, temporaryVolume: ScratchVolume) {
        let root = url.appending(path: "container", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let volume = try ScratchVolume.mount(size: "8m", at: root, named: "tmp")
        return (Store(container: Container(root: root)), volume)
    }

    func file(_ relative: String) -> URL { url.appending(path: relative) }

    func write(_ text: String, to relative: String) throws {
        let target = file(relative)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try RawFiles.writeFile(atPath: target.path(percentEncoded: false), Data(text.utf8))
    }

    func read(_ relative: String) throws -> String {
        String(decoding: try Data(contentsOf: file(relative)), as: UTF8.self)
    }

    func exists(_ relative: String) -> Bool {
        var status = stat()
        return lstat(file(relative).path(percentEncoded: false), &status) == 0
    }

    /// Every path under the folder (relative), with its inode, permissions, modification time
    /// and file contents or link target, to prove that an operation changed nothing: not a
    /// byte, not a name in a folder (which changes the folder's time), not a replaced file.
    func snapshot(_ relative: String = "") throws -> [String: String] {
        let base = relative.isEmpty ? url : file(relative)
        var result: [String: String] = [:]
        let basePath = base.path(percentEncoded: false)
        guard let enumerator = FileManager.default.enumerator(atPath: basePath) else { return result }
        var names = [""]  // the folder itself too
        while let name = enumerator.nextObject() as? String { names.append(name) }
        for name in names {
            let full = name.isEmpty ? basePath : basePath + "/" + name
            var status = stat()
            lstat(full, &status)
            let metadata = "inode \(status.st_ino) mode \(String(status.st_mode, radix: 8)) "
                + "modified \(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)"
            if status.st_mode & S_IFMT == S_IFREG {
                result[name] = metadata + " file: "
                    + String(decoding: (try? Data(contentsOf: URL(filePath: full))) ?? Data(), as: UTF8.self)
            } else if status.st_mode & S_IFMT == S_IFLNK {
                result[name] = metadata + " link -> " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: full)) ?? "?")
            } else {
                result[name] = metadata + " folder"
            }
        }
        return result
    }

    /// The names of Stowage's temporary items (and append journals, with `prefixes`) anywhere
    /// below the folder, or below `relative` in it.
    func leftoverTemporaryItems(in relative: String = "", prefixes: [String] = [".stowage-"]) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: relative.isEmpty ? path : file(relative).fileSystemPath)
        var found: [String] = []
        while let name = enumerator?.nextObject() as? String {
            let last = (name as NSString).lastPathComponent
            if prefixes.contains(where: { last.hasPrefix($0) }) { found.append(name) }
        }
        return found
    }

    /// The extended attribute `name` of the item at `relative` (not following a final link), as
    /// backup tools read it: libc's `lgetxattr`, not Stowage's code. `nil` when absent.
    func attribute(_ name: String, of relative: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { raw in
            cstowage_lgetxattr(file(relative).fileSystemPath, name, raw.baseAddress, raw.count)
        }
        return count < 0 ? nil : String(decoding: buffer.prefix(count), as: UTF8.self)
    }

    func permissions(_ relative: String) -> Int {
        var status = stat()
        lstat(file(relative).path(percentEncoded: false), &status)
        return Int(status.st_mode & 0o7777)
    }
}

/// Asserts that `body` throws a `StowageError` with `code`, and returns it for more checks.
@discardableResult
func expectStowageError<T>(_ code: StowageError.Code, sourceLocation: SourceLocation = #_sourceLocation,
                           _ body: () throws -> T) -> StowageError? {
    do {
        _ = try body()
        Issue.record("expected StowageError.\(code), but nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as StowageError {
        #expect(error.code == code, "got \(error.debugDescription)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected StowageError.\(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A built product of this package (the test helper, the `stowage` command), found beside the
/// test bundle.
func builtProduct(_ name: String) throws -> URL {
    var candidates: [URL] = []
    if let override = ProcessInfo.processInfo.environment["STOWAGE_BUILD_DIR"] {
        candidates.append(URL(filePath: override, directoryHint: .isDirectory))
    }
    let runner = URL(filePath: CommandLine.arguments[0]).standardizedFileURL
    candidates.append(runner.deletingLastPathComponent())
    candidates.append(Bundle.main.bundleURL)
    for folder in candidates {
        var current = folder
        for _ in 0..<4 {
            let candidate = current.appending(path: name)
            if FileManager.default.isExecutableFile(atPath: candidate.path(percentEncoded: false)) { return candidate }
            current = current.deletingLastPathComponent()
        }
    }
    throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: name])
}

/// Runs `body` on a thread of its own and records an issue if it has not returned within
/// `seconds` (a read of a FIFO once blocked forever, an append once read a 3 GiB hole): a hang is
/// a failure, never a stuck suite.
func expectReturns(within seconds: Int, _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
                   _ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        body()
        done.signal()
    }
    if done.wait(timeout: .now() + .seconds(seconds)) == .timedOut {
        Issue.record("\(what) did not return within \(seconds) s", sourceLocation: sourceLocation)
    }
}
