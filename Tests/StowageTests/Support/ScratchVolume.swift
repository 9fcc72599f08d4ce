import Foundation
import Testing
@testable import Stowage

/// A small real file system mounted for one test (tmpfs, or another type such as ramfs),
/// unmounted when the test's reference goes away, also when the test fails.
///
/// Mounting needs root. Where it is refused, ``mount(_:size:in:)`` prints the reason and
/// cancels the test, which Swift Testing reports as skipped: never a silent pass.
final class ScratchVolume: Sendable {
    let url: URL
    var path: String { url.fileSystemPath }

    private init(url: URL) { self.url = url }

    static func mount(_ type: String = "tmpfs", size: String? = nil, in folder: TestFolder,
                      sourceLocation: SourceLocation = #_sourceLocation) throws -> ScratchVolume {
        let mountPoint = folder.url.appending(path: "volume-\(type)-\(UInt32.random(in: 0 ... .max))", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        var arguments = ["-t", type]
        if let size { arguments += ["-o", "size=\(size)"] }
        arguments += [type, mountPoint.path(percentEncoded: false)]
        let result = try runProcess(URL(filePath: "/bin/mount"), arguments)
        if result.status != 0 {
            let reason = "mounting a \(type) was refused (\(result.error.trimmingCharacters(in: .whitespacesAndNewlines))); this test needs root"
            print("SKIPPED: \(reason)")
            try Test.cancel(Comment(rawValue: reason), sourceLocation: sourceLocation)
        }
        return ScratchVolume(url: mountPoint)
    }

    deinit {
        _ = try? runProcess(URL(filePath: "/bin/umount"), ["-l", path])
    }
}
