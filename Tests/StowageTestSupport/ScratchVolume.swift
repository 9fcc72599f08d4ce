import Foundation
import Testing

/// A small real file system mounted for one test: a tmpfs (or another memory file system such
/// as ramfs), or an ext4 image on a loop device. Unmounted, and its image removed, when the
/// test's reference goes away, also when the test fails.
///
/// Mounting needs root. Where it is refused, the `mount` functions print the reason and cancel
/// the test, which Swift Testing reports as skipped: never a silent pass.
public final class ScratchVolume: Sendable {
    /// The mount point.
    public let url: URL
    /// The mount point's path, without a trailing slash.
    public var path: String {
        let path = url.path(percentEncoded: false)
        return path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    }
    private let image: URL?

    private init(url: URL, image: URL?) {
        self.url = url
        self.image = image
    }

    /// Mounts a memory file system of `type` (with a `size` option such as `16m`, and any
    /// further mount options) on a new folder in `folder`, named `name` when given (a location's
    /// own folder name, say).
    public static func mount(_ type: String = "tmpfs", size: String? = nil, options: [String] = [], in folder: URL,
                             named name: String? = nil,
                             sourceLocation: SourceLocation = #_sourceLocation) throws -> ScratchVolume {
        let mountPoint = try makeMountPoint(type, in: folder, named: name)
        let allOptions = (size.map { ["size=\($0)"] } ?? []) + options
        let arguments = ["-t", type] + (allOptions.isEmpty ? [] : ["-o", allOptions.joined(separator: ",")])
            + [type, mountPoint.path(percentEncoded: false)]
        try run("/bin/mount", arguments, refusal: "mounting a \(type)", sourceLocation: sourceLocation)
        return ScratchVolume(url: mountPoint, image: nil)
    }

    /// Makes an ext4 image of `megabytes` in `folder` (`mkfs.ext4` with its defaults, reserved
    /// blocks and journal included) and mounts it through a loop device.
    public static func mountExt4(megabytes: Int, in folder: URL,
                                 sourceLocation: SourceLocation = #_sourceLocation) throws -> ScratchVolume {
        let mountPoint = try makeMountPoint("ext4", in: folder)
        let image = folder.appending(path: mountPoint.lastPathComponent + ".img")
        let imagePath = image.path(percentEncoded: false)
        guard FileManager.default.createFile(atPath: imagePath, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: imagePath])
        }
        let handle = try FileHandle(forWritingTo: image)
        try handle.truncate(atOffset: UInt64(megabytes) << 20)
        try handle.close()
        try run("/sbin/mkfs.ext4", ["-q", "-F", "-E", "nodiscard", imagePath], refusal: "making an ext4 image",
                sourceLocation: sourceLocation)
        try run("/bin/mount", ["-o", "loop", imagePath, mountPoint.path(percentEncoded: false)],
                refusal: "mounting an ext4 image on a loop device", sourceLocation: sourceLocation)
        return ScratchVolume(url: mountPoint, image: image)
    }

    deinit {
        if (try? runProcess(URL(filePath: "/bin/umount"), [path]))?.status != 0 {
            _ = try? runProcess(URL(filePath: "/bin/umount"), ["-l", path])
        }
        try? FileManager.default.removeItem(at: url)  // the empty mount point; best effort
        if let image { try? FileManager.default.removeItem(at: image) }
    }

    private static func makeMountPoint(_ type: String, in folder: URL, named name: String? = nil) throws -> URL {
        let mountPoint = folder.appending(path: name ?? "volume-\(type)-\(UInt32.random(in: 0 ... .max))", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        return mountPoint
    }

    /// Runs a set-up command; a failure prints why and cancels the test (it needs root, or a
    /// tool that is missing).
    private static func run(_ tool: String, _ arguments: [String], refusal: String, sourceLocation: SourceLocation) throws {
        let result: ProcessResult
        do {
            result = try runProcess(URL(filePath: tool), arguments)
        } catch {
            result = ProcessResult(status: -1, output: "", error: "\(tool) could not be run: \(error)")
        }
        guard result.status != 0 else { return }
        let reason = "\(refusal) was refused (\(result.error.trimmingCharacters(in: .whitespacesAndNewlines))); this test needs root"
        print("SKIPPED: \(reason)")
        try Test.cancel(Comment(rawValue: reason), sourceLocation: sourceLocation)
    }
}
