#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Stowage's Platform layer supports Darwin, Glibc and Musl systems")
#endif

/// A name or a relative path (names joined by `/`) as the kernel has it: bytes, which need not
/// be UTF-8.
///
/// The removal walk reads names from `getdents` and passes the same bytes back to `openat`,
/// `fstatat` and `unlinkat`, so a name that is not valid UTF-8 can be removed like any other
/// (a `String` would replace its bad bytes with U+FFFD, and the kernel would find no such name).
/// ``description`` is the lossy form, for people; ``isUTF8`` says whether it lost anything.
package struct RawPath: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The bytes, without a terminating NUL.
    package private(set) var bytes: [UInt8]

    /// The empty path: the walk's root folder itself.
    package static let root = RawPath(bytes: [])

    package init(bytes: [UInt8]) { self.bytes = bytes }

    /// The path spelled by `string` in UTF-8.
    package init(_ string: String) { bytes = Array(string.utf8) }

    /// The name at `cName`, a C string from `readdir`.
    package init(cString cName: UnsafePointer<CChar>) {
        let count = Self.length(ofCString: cName)
        bytes = cName.withMemoryRebound(to: UInt8.self, capacity: count) { Array(UnsafeBufferPointer(start: $0, count: count)) }
    }

    /// The name of a folder's entry, whose length the listing gave (no byte loop to find its NUL).
    package init(_ entry: DirectoryEntry) {
        let count = entry.nameLength
        bytes = entry.name.withMemoryRebound(to: UInt8.self, capacity: count) { Array(UnsafeBufferPointer(start: $0, count: count)) }
    }

    /// The bytes of the C string at `cName` before its NUL (`strlen`, which the Darwin surface
    /// does not declare).
    package static func length(ofCString cName: UnsafePointer<CChar>) -> Int {
        var count = 0
        while cName[count] != 0 { count += 1 }
        return count
    }

    package var isEmpty: Bool { bytes.isEmpty }

    /// Whether the bytes begin with `prefix`'s UTF-8 bytes.
    package func hasPrefix(_ prefix: String) -> Bool { bytes.starts(with: prefix.utf8) }

    /// Whether the bytes are exactly `string`'s UTF-8 bytes.
    package func equals(_ string: String) -> Bool { bytes.elementsEqual(string.utf8) }

    /// This path with `name` added below it (after a `/`, unless the path is empty or ends
    /// with one already, as `/` does); this path itself when `name` is empty (``root``).
    package func appending(_ name: RawPath) -> RawPath {
        if isEmpty { return name }
        if name.isEmpty { return self }
        // One allocation: a large tree builds a path per entry.
        var joined: [UInt8] = []
        joined.reserveCapacity(bytes.count + 1 + name.bytes.count)
        joined += bytes
        if bytes.last != UInt8(ascii: "/") { joined.append(UInt8(ascii: "/")) }
        joined += name.bytes
        return RawPath(bytes: joined)
    }

    /// The names, from the top.
    package var components: [RawPath] {
        bytes.split(separator: UInt8(ascii: "/")).map { RawPath(bytes: Array($0)) }
    }

    /// The folder holding the last name (``root`` for a single name) and that name.
    package var parentAndName: (parent: RawPath, name: RawPath) {
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return (.root, self) }
        return (RawPath(bytes: Array(bytes[..<slash])), RawPath(bytes: Array(bytes[(slash + 1)...])))
    }

    /// How many names deep the path is (0 for the root).
    package var depth: Int { isEmpty ? 0 : bytes.reduce(1) { $0 + ($1 == UInt8(ascii: "/") ? 1 : 0) } }

    /// Whether the bytes are valid UTF-8 (``description`` is then exact).
    package var isUTF8: Bool { Self.isUTF8(bytes) }

    /// Whether `bytes` are valid UTF-8. (`String(validating:as:)` would say it, but only from
    /// macOS 15 and iOS 18 on.)
    package static func isUTF8(_ bytes: [UInt8]) -> Bool {
        String(decoding: bytes, as: UTF8.self).utf8.elementsEqual(bytes)
    }

    /// The path as text; bytes that are not UTF-8 become U+FFFD (see ``isUTF8``).
    package var description: String { String(decoding: bytes, as: UTF8.self) }

    /// Calls `body` with the path as a NUL-terminated C string (copied to the stack for short
    /// paths: this runs for every `fstatat` and `unlinkat` of a sweep).
    package func withCString<Result>(_ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        try withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { buffer in
            bytes.withUnsafeBytes { source in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: source)
            }
            buffer[bytes.count] = 0
            return try body(buffer.baseAddress!)
        }
    }

    /// Byte order, as `memcmp` compares (and as `LC_ALL=C sort` sorts).
    package static func < (lhs: RawPath, rhs: RawPath) -> Bool {
        lhs.bytes.withUnsafeBufferPointer { left in
            rhs.bytes.withUnsafeBufferPointer { right in
                let common = min(left.count, right.count)
                let order = common == 0 ? 0 : memcmp(left.baseAddress!, right.baseAddress!, common)
                return order != 0 ? order < 0 : left.count < right.count
            }
        }
    }
}

extension String {
    /// Whether this string's UTF-8 bytes start with those of `prefix`: how file names compare.
    package func hasBytePrefix(_ prefix: String) -> Bool { utf8.starts(with: prefix.utf8) }
}
