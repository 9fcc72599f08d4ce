#if canImport(Darwin)
import Darwin

/// The first 64-bit words of an open file, read afresh on every ``load(_:_:)`` with `pread`
/// (Apple platforms): whatever any process writes to the file (`pwrite`) is seen at once, as
/// through the `MAP_SHARED` mapping Linux uses (`SharedMapping+Linux.swift`).
///
/// **A file cut short is survived** by construction: a `pread` past the file's end reads fewer
/// bytes, never faults, and the load then returns `nil`, which the caller treats as a damaged
/// file. A mapping would raise `SIGBUS` there, and guarding its loads as Linux does needs
/// `sigsetjmp` and `pthread_once`, which the Apple type-check's stand-in SDK does not declare
/// (they would have to be added and verified against Apple's Libc first). The price is a system
/// call per load, about 0.6 µs on Linux where it was measured (a `DiskCache` memory hit loads once).
/// A read that races a writer may see a mix of old and new words: the caller's check word tells.
///
/// `@unchecked Sendable`: `file` and `words` never change after `init`; `pread` takes no
/// position, so concurrent loads do not disturb each other.
package final class SharedMapping: @unchecked Sendable {
    /// The file, held open for as long as this value lives.
    private let file: OpenFile
    /// The number of words read at most.
    package let words: Int

    /// Reads the first `words` 64-bit words of `file` on each load (the file may be shorter).
    package init(_ file: OpenFile, words: Int) throws {
        self.file = file
        self.words = words
    }

    /// The first `count` words (stored little endian); `nil` when the file no longer holds them,
    /// or cannot be read now (the caller then measures again, as for a damaged file).
    package func load<Result>(_ count: Int, _ body: (UnsafeBufferPointer<UInt64>?) -> Result) -> Result {
        precondition(count > 0 && count <= words)
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: count) { buffer in
            // An error reads as a damaged file: the index is then measured again, never trusted.
            guard (try? file.read(into: UnsafeMutableRawBufferPointer(buffer), at: 0)) == count * 8 else { return body(nil) }
            for index in 0..<count { buffer[index] = UInt64(littleEndian: buffer[index]) }
            return body(UnsafeBufferPointer(buffer))
        }
    }
}
#endif
