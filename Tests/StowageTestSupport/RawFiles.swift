#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Files and folders named by bytes, which need not be UTF-8: Foundation's `String` paths cannot
/// name them (a `String` repairs bad bytes with U+FFFD, which names another file), so these make
/// them with the raw libc calls.
public enum RawFiles {
    /// Calls `body` with `path` as a NUL-terminated C string.
    public static func withPath<Result>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> Result) -> Result {
        (path.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// `path` followed by `/` and `name`.
    public static func join(_ path: String, _ name: [UInt8]) -> [UInt8] {
        Array(path.utf8) + [UInt8(ascii: "/")] + name
    }

    /// Makes the folder at `path` (its parent must exist).
    public static func makeFolder(_ path: [UInt8]) throws {
        guard withPath(path, { mkdir($0, 0o755) }) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Makes the file at `path`, which must not exist, holding `size` bytes of `byte` (written,
    /// so they are allocated).
    public static func makeFile(_ path: [UInt8], size: Int = 0, byte: UInt8 = 0x61) throws {
        let fd = withPath(path) { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        let chunk = [UInt8](repeating: byte, count: min(size, 1 << 20))
        var left = size
        while left > 0 {
            let written = chunk.withUnsafeBytes { write(fd, $0.baseAddress!, min(left, chunk.count)) }
            guard written > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            left -= written
        }
    }

    /// Whether something is at `path` (a link is not followed).
    public static func exists(_ path: [UInt8]) -> Bool {
        var status = stat()
        return withPath(path) { lstat($0, &status) } == 0
    }
}
