#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call and the path it was about.
struct SystemCallError: Error, CustomStringConvertible {
    var call: String
    var path: String
    var code: Int32

    var description: String {
        "\(call) \(path): \(String(cString: strerror(code)))"
    }
}

/// The few system calls MakeTree makes, straight to the C library (open, pwrite, close)
/// rather than through Foundation (`Data.write(to:)`, `FileManager`), whose per-call work adds
/// up over 200,000 files. Paths are absolute; every call throws `SystemCallError` on failure.
enum FileSystem {
    /// Creates a folder (its parent must exist; it must not).
    static func makeFolder(_ path: String) throws {
        try check(mkdir(path, 0o755), "mkdir", path)
    }

    /// Creates a file of `size` bytes, taken from `data` over and over.
    static func writeFile(_ path: String, size: Int, from data: [UInt8]) throws {
        let descriptor = try create(path)
        defer { close(descriptor) }
        try writeAll(descriptor, count: size, at: 0, from: data, path: path)
    }

    /// Creates a sparse file: `size` bytes long, with data only in the 4 KiB blocks at
    /// `dataOffsets` (multiples of 4 KiB below `size`); the rest is a hole that takes no space.
    static func writeSparseFile(_ path: String, size: Int, dataOffsets: [Int], from data: [UInt8]) throws {
        let descriptor = try create(path)
        defer { close(descriptor) }
        try check(ftruncate(descriptor, off_t(size)), "ftruncate", path)
        for offset in dataOffsets {
            try writeAll(descriptor, count: min(4096, size - offset), at: offset, from: data, path: path)
        }
    }

    /// Gives the file at `target` another name, `path`.
    static func hardLink(_ target: String, at path: String) throws {
        try check(link(target, path), "link", path)
    }

    /// Creates a symbolic link at `path` whose content is `target` (relative to the link's
    /// folder, and not required to exist).
    static func symbolicLink(_ target: String, at path: String) throws {
        try check(symlink(target, path), "symlink", path)
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

    /// Throws the current `errno` when a call returned a negative value.
    private static func check(_ result: Int32, _ call: String, _ path: String) throws {
        if result < 0 {
            throw SystemCallError(call: call, path: path, code: errno)
        }
    }
}
