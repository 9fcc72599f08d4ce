import Foundation
import Testing

/// A small real file system mounted for one test: a tmpfs (or another memory file system such
/// as ramfs), or an ext4, XFS or btrfs image on a loop device. Unmounted, and its image removed, when the
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
        try run(try requireTool("mount", sourceLocation: sourceLocation), arguments, refusal: "mounting a \(type)", sourceLocation: sourceLocation)
        return ScratchVolume(url: mountPoint, image: nil)
    }

    /// Makes an ext4 image of `megabytes` in `folder` (`mkfs.ext4` with its defaults, reserved
    /// blocks and journal included) and mounts it through a loop device. `blockSize` sets the
    /// block size (`mkfs.ext4` picks 1,024 bytes below 512 MB, 4,096 above); `reservedPercent`
    /// the blocks kept for root (5% unless given; root, as the tests run, writes into them past
    /// the available bytes).
    public static func mountExt4(megabytes: Int, blockSize: Int? = nil, reservedPercent: Int? = nil, in folder: URL,
                                 sourceLocation: SourceLocation = #_sourceLocation) throws -> ScratchVolume {
        let options = (blockSize.map { ["-b", String($0)] } ?? []) + (reservedPercent.map { ["-m", String($0)] } ?? [])
        return try mountImage("ext4", megabytes: megabytes, making: ["-q", "-F", "-E", "nodiscard"] + options,
                              in: folder, sourceLocation: sourceLocation)
    }

    /// Makes an XFS image of `megabytes` (at least 300: `mkfs.xfs` refuses less) in `folder`,
    /// with `mkfs.xfs`'s defaults (speculative preallocation, background inode inactivation, as
    /// on a real disk), and mounts it through a loop device.
    public static func mountXFS(megabytes: Int, in folder: URL,
                                sourceLocation: SourceLocation = #_sourceLocation) throws -> ScratchVolume {
        try mountImage("xfs", megabytes: megabytes, making: ["-q", "-f", "-K"], in: folder, sourceLocation: sourceLocation)
    }

    /// Makes a btrfs image of `megabytes` (at least 114: `mkfs.btrfs` refuses less) in
    /// `folder`, with `mkfs.btrfs`'s defaults (metadata twice, copy on write), and mounts it
    /// through a loop device.
    public static func mountBtrfs(megabytes: Int, in folder: URL,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws -> ScratchVolume {
        try mountImage("btrfs", megabytes: megabytes, making: ["-q", "-f", "-K"], in: folder, sourceLocation: sourceLocation)
    }

    /// Makes an image of `type` (`mkfs.<type>` with `options`) and mounts it on a loop device.
    private static func mountImage(_ type: String, megabytes: Int, making options: [String], in folder: URL,
                                   sourceLocation: SourceLocation) throws -> ScratchVolume {
        let mkfs = try requireTool("mkfs.\(type)", sourceLocation: sourceLocation)
        let mount = try requireTool("mount", sourceLocation: sourceLocation)
        let mountPoint = try makeMountPoint(type, in: folder)
        let image = folder.appending(path: mountPoint.lastPathComponent + ".img")
        let imagePath = image.path(percentEncoded: false)
        guard FileManager.default.createFile(atPath: imagePath, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: imagePath])
        }
        let handle = try FileHandle(forWritingTo: image)
        try handle.truncate(atOffset: UInt64(megabytes) << 20)
        try handle.close()
        try run(mkfs, options + [imagePath], refusal: "making an \(type) image", sourceLocation: sourceLocation)
        try run(mount, ["-o", "loop", imagePath, mountPoint.path(percentEncoded: false)],
                refusal: "mounting an \(type) image on a loop device", sourceLocation: sourceLocation)
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

/// Removes a test's folder: first unmounts whatever is still mounted below it (deepest first: a
/// volume released after its folder, or left by a test that failed), then makes everything
/// removable (tests take permissions away) and removes it, never across into another mount.
///
/// Without the unmounting, a folder released before its volume kept the mount point, and so
/// itself, behind after every run.
public func removeTestFolder(_ path: String) {
    // Resolved (links, `.`, `..`, repeated slashes), as the mount table names mount points; never
    // `/`, and never a relative path.
    guard path.hasPrefix("/") else { return }
    var own = stat()
    if lstat(path, &own) == 0, own.st_mode & S_IFMT == S_IFLNK {
        unlink(path)  // a link is removed, never what it leads to
        return
    }
    guard let resolved = realpath(path, nil) else { return }
    let folder = String(cString: resolved)
    free(resolved)
    guard folder != "/" else { return }
    // In this process (`umount2`), by the mount table's bytes: a table holding any path that is
    // not UTF-8, anyone's, once read as no mount at all, and the folder stayed behind.
    for mountPoint in mountPoints(below: Array(folder.utf8)).sorted(by: { $0.count > $1.count }) {
        let path = mountPoint.map { CChar(bitPattern: $0) } + [0]
        if umount2(path, 0) != 0 { _ = umount2(path, Int32(MNT_DETACH)) }
    }
    // In this process first: a shell, chmod and rm for each of a run's thousand-odd folders cost
    // about 5 ms of CPU each, and held a thread of the test runner's pool while they ran.
    if removeTreeInProcess(folder) { return }
    let script = "chmod -R u+rwx \"$1\" 2>/dev/null; rm -rf --one-file-system \"$1\""
    // Again after a moment, a few times, if something was still writing (a child killed at a
    // deadline, whose own children die a moment later), or where this process gave up.
    for attempt in 0..<4 {
        if attempt > 0 { Thread.sleep(forTimeInterval: 0.5) }
        _ = try? runProcess(URL(filePath: "/bin/sh"), ["-c", script, "sh", folder], within: .seconds(120))
        if !FileManager.default.fileExists(atPath: folder) { return }
    }
}

/// Removes `path` and everything below it, as `chmod -R u+rwx` and `rm -rf --one-file-system` do:
/// each folder made readable, writable and searchable by its owner first (tests take permissions
/// away), names as bytes, symbolic links removed and never followed, nothing on another file
/// system touched. Whether `path` is gone: `false` leaves the rest to the shell's tools (a folder
/// on another file system, more than 64 levels, anything refused), never a half-checked removal.
public func removeTreeInProcess(_ path: String) -> Bool {
    var status = stat()
    guard lstat(path, &status) == 0 else { return errno == ENOENT }
    guard status.st_mode & S_IFMT == S_IFDIR else { return unlink(path) == 0 || errno == ENOENT }
    if status.st_mode & S_IRWXU != S_IRWXU { _ = fchmodat(AT_FDCWD, path, (status.st_mode & 0o7777) | S_IRWXU, AT_SYMLINK_NOFOLLOW) }
    let folder = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    // The folder opened is the one looked at (not a mount or a link put there since).
    var opened = stat()
    guard folder >= 0, fstat(folder, &opened) == 0, opened.st_dev == status.st_dev, opened.st_ino == status.st_ino else {
        if folder >= 0 { close(folder) }
        return false
    }
    let emptied = removeContents(of: folder, device: status.st_dev, levelsLeft: 64)
    return emptied && (rmdir(path) == 0 || errno == ENOENT)
}

/// Removes what the folder open as `folder` holds (and closes it); whether all of it is gone.
private func removeContents(of folder: Int32, device: dev_t, levelsLeft: Int) -> Bool {
    guard let stream = fdopendir(folder) else {
        close(folder)
        return false
    }
    defer { closedir(stream) }
    // The names first, then the removals: a folder's listing is not changed while it is read.
    var names: [[CChar]] = []
    while let entry = readdir(stream) {
        let name = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
            tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) { Array(UnsafeBufferPointer(start: $0, count: strlen($0) + 1)) }
        }
        if name == [0x2E, 0] || name == [0x2E, 0x2E, 0] { continue }
        names.append(name)
    }
    var allGone = true
    for name in names {
        var status = stat()
        guard fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
            allGone = allGone && errno == ENOENT
            continue
        }
        if status.st_mode & S_IFMT == S_IFDIR {
            guard status.st_dev == device, levelsLeft > 0 else {
                allGone = false
                continue
            }
            if status.st_mode & S_IRWXU != S_IRWXU { _ = fchmodat(folder, name, (status.st_mode & 0o7777) | S_IRWXU, AT_SYMLINK_NOFOLLOW) }
            let inner = openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            // The folder opened is the one looked at, on this file system (not a mount made since).
            var opened = stat()
            guard inner >= 0, fstat(inner, &opened) == 0, opened.st_dev == device, opened.st_ino == status.st_ino else {
                if inner >= 0 { close(inner) }
                allGone = false
                continue
            }
            guard removeContents(of: inner, device: device, levelsLeft: levelsLeft - 1) else {
                allGone = false
                continue
            }
            allGone = (unlinkat(folder, name, AT_REMOVEDIR) == 0 || errno == ENOENT) && allGone
        } else {
            allGone = (unlinkat(folder, name, 0) == 0 || errno == ENOENT) && allGone
        }
    }
    return allGone
}

/// The mount points strictly below `folder`, as bytes, from `/proc/self/mountinfo` (empty where it
/// cannot be read). Read as bytes: a mount point anywhere on the machine whose path is not UTF-8
/// must not hide the others.
public func mountPoints(below folder: [UInt8]) -> [[UInt8]] {
    guard let table = mountTable() else { return [] }
    let prefix = folder + [UInt8(ascii: "/")]
    return table.split(separator: UInt8(ascii: "\n")).compactMap { line in
        let fields = line.split(separator: UInt8(ascii: " "))
        guard fields.count > 4 else { return nil }
        let mountPoint = unescapeMountField(fields[4])
        return mountPoint.starts(with: prefix) ? mountPoint : nil
    }
}

/// `/proc/self/mountinfo`, whole, as bytes; `nil` where it cannot be read.
///
/// Read to the end with `read(2)`: Foundation's `FileManager.contents(atPath:)` and
/// `String(contentsOfFile:)` return only the first 4 KB of a `/proc` file (measured: 4,088 of
/// 6,068 bytes), and a full run's table is longer, so the newest mounts, listed last, were never
/// seen, never unmounted, and their test folders stayed.
public func mountTable() -> [UInt8]? {
    let file = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC)
    guard file >= 0 else { return nil }
    defer { close(file) }
    var table: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16_384)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count >= 0 else { return nil }
        if count == 0 { return table }
        table += chunk.prefix(count)
    }
}

/// A mountinfo field with its octal escapes (`\040` for a space) decoded.
func unescapeMountField(_ field: some Collection<UInt8>) -> [UInt8] {
    var bytes: [UInt8] = []
    var rest = Array(field)[...]
    while let byte = rest.popFirst() {
        let digits = rest.prefix(3)
        // The kernel writes a byte as three octal digits, so the first is 0 to 3.
        if byte == UInt8(ascii: "\\"), digits.count == 3, (0x30...0x33).contains(digits.first!),
           digits.allSatisfy({ (0x30...0x37).contains($0) }) {
            bytes.append(digits.reduce(0) { $0 &* 8 &+ ($1 - 0x30) })
            rest = rest.dropFirst(3)
        } else {
            bytes.append(byte)
        }
    }
    return bytes
}

/// Makes the folder `path` (bytes, which need not be UTF-8: the `mount` command takes text) and
/// mounts a tmpfs of `size` (`1m`) on it with `mount(2)`. Where that is refused (not root), it
/// prints why and cancels the test, as ``ScratchVolume`` does. The removal of a test's folder
/// unmounts it (`removeTestFolder` reads the mount table as bytes).
public func mountTmpfs(atBytes path: [UInt8], size: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let cPath = path.map { CChar(bitPattern: $0) } + [0]
    guard mkdir(cPath, 0o755) == 0 || errno == EEXIST, mount("tmpfs", cPath, "tmpfs", 0, "size=\(size)") == 0 else {
        let reason = "a tmpfs at \(String(decoding: path, as: UTF8.self)) was refused (errno \(errno)); this test needs root"
        print("SKIPPED: \(reason)")
        try Test.cancel(Comment(rawValue: reason), sourceLocation: sourceLocation)
    }
}
