#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call and the path it was about.
public struct SystemCallError: Error, CustomStringConvertible {
    public var call: String, path: String, code: Int32
    public var description: String { "\(call) \(path): \(String(cString: strerror(code)))" }
}

/// The system calls of the generators and benchmarks, straight to the C library rather than through
/// Foundation, whose per-call work adds up over 200,000 files. Paths are absolute; every call throws
/// `SystemCallError` on failure; nothing follows a symbolic link.
public enum FileSystem {
    /// Creates a folder (its parent must exist; it must not).
    public static func makeFolder(_ path: String) throws { try check(mkdir(path, 0o755), "mkdir", path) }

    /// Creates a file of `size` bytes, taken from `data` over and over.
    public static func writeFile(_ path: String, size: Int, from data: [UInt8]) throws {
        let descriptor = try create(path)
        defer { close(descriptor) }
        try writeAll(descriptor, count: size, at: 0, from: data, path: path)
    }

    /// Creates a sparse file, `size` bytes long with data only in the 4 KiB blocks at `dataOffsets`.
    public static func writeSparseFile(_ path: String, size: Int, dataOffsets: [Int], from data: [UInt8]) throws {
        let descriptor = try create(path)
        defer { close(descriptor) }
        try check(ftruncate(descriptor, off_t(size)), "ftruncate", path)
        for offset in dataOffsets { try writeAll(descriptor, count: min(4096, size - offset), at: offset, from: data, path: path) }
    }

    public static func hardLink(_ target: String, at path: String) throws { try check(link(target, path), "link", path) }

    /// A symbolic link at `path` to `target` (relative to the link's folder; it need not exist).
    public static func symbolicLink(_ target: String, at path: String) throws { try check(symlink(target, path), "symlink", path) }

    /// Sets the access and modification times, to the nanosecond.
    public static func setTimes(_ path: String, access: timespec, modification: timespec) throws {
        try check(utimensat(AT_FDCWD, path, [access, modification], AT_SYMLINK_NOFOLLOW), "utimensat", path)
    }

    /// `st_blocks` x 512, as `du` counts.
    public static func allocatedBytes(_ path: String) throws -> Int {
        guard let status = try status(path) else { throw SystemCallError(call: "lstat", path: path, code: ENOENT) }
        return Int(status.st_blocks) * 512
    }

    /// What `lstat` says, or `nil` if there is nothing at `path`.
    public static func status(_ path: String) throws -> stat? {
        var status = stat()
        if lstat(path, &status) == 0 { return status }
        if errno == ENOENT { return nil }
        throw SystemCallError(call: "lstat", path: path, code: errno)
    }

    public static func isFolder(_ status: stat) -> Bool { status.st_mode & S_IFMT == S_IFDIR }

    /// The names in a folder, "." and ".." left out, in no particular order.
    public static func names(in path: String) throws -> [String] {
        guard let stream = opendir(path) else { throw SystemCallError(call: "opendir", path: path, code: errno) }
        defer { closedir(stream) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw SystemCallError(call: "readdir", path: path, code: errno) }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    /// Removes a file or link, or a folder with everything in it.
    public static func remove(_ path: String) throws {
        if let status = try status(path), isFolder(status) {
            for name in try names(in: path) { try remove(path + "/" + name) }
            try check(rmdir(path), "rmdir", path)
        } else {
            try check(unlink(path), "unlink", path)
        }
    }

    /// A fresh folder `<prefix>-XXXXXX` in $BENCHMARK_DIRECTORY (default: $TMPDIR, or /tmp).
    public static func makeScratchFolder(_ prefix: String) throws -> String {
        let parent = absolutePath(getenv("BENCHMARK_DIRECTORY").map { String(cString: $0) }
            ?? getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp")
        var template = Array("\(parent)/\(prefix)-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw SystemCallError(call: "mkdtemp", path: parent, code: errno) }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The allocated bytes of the regular files below the folder at `path`.
    public static func allocatedBytesOfFiles(in path: String) throws -> Int {
        try names(in: path).reduce(0) { total, name in
            guard let status = try status(path + "/" + name) else { return total }  // removed meanwhile
            if isFolder(status) { return total + (try allocatedBytesOfFiles(in: path + "/" + name)) }
            return total + (status.st_mode & S_IFMT == S_IFREG ? Int(status.st_blocks) * 512 : 0)
        }
    }

    private static func create(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        try check(descriptor, "open", path)
        return descriptor
    }

    /// Writes `count` bytes from `offset` on, cycling through `data`.
    private static func writeAll(_ descriptor: Int32, count: Int, at offset: Int, from data: [UInt8], path: String) throws {
        var done = 0
        try data.withUnsafeBytes { buffer in
            while done < count {
                let written = pwrite(descriptor, buffer.baseAddress, min(count - done, buffer.count), off_t(offset + done))
                if written < 0 && errno == EINTR { continue }
                try check(written < 0 ? -1 : 0, "pwrite", path)
                done += written
            }
        }
    }

    private static func check(_ result: Int32, _ call: String, _ path: String) throws {
        if result < 0 { throw SystemCallError(call: call, path: path, code: errno) }
    }
}
