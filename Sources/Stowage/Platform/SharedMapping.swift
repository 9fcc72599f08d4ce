#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CStowageShims

/// The first bytes of an open file mapped into memory, read-only, with `MAP_SHARED`, as 64-bit
/// words: whatever any process writes to the file (`pwrite`) is seen at once (the kernel's page
/// cache is the one copy, on Linux and Darwin alike). Reading a word is a memory load, not a
/// system call: what lets a ``DiskCache`` check, on every memory hit, that no other process
/// changed the cache.
///
/// Read-only on purpose: a store into a mapped page can need a new block (copy-on-write file
/// systems such as btrfs and APFS, a sparse file), and on a full volume the kernel can only
/// answer that with `SIGBUS`; a `pwrite` returns `ENOSPC` instead. The file must be at least
/// `words * 8` bytes long before it is mapped, and never be made shorter while mapped (a load
/// past the file's end is `SIGBUS` too, as for SQLite's `-shm` file): only Stowage writes its
/// bookkeeping files, and it only ever makes them longer.
///
/// `@unchecked Sendable`: the address and length never change after `init`, and every access to
/// the memory is an atomic load (acquire) through the C shim.
final class SharedMapping: @unchecked Sendable {
    private let base: UnsafeMutableRawPointer
    /// The number of words mapped.
    let words: Int

    /// Maps the first `words` 64-bit words of `file`, for reading.
    init(_ file: OpenFile, words: Int) throws {
        let length = words * 8
        guard let address = mmap(nil, length, PROT_READ, MAP_SHARED, file.descriptor, 0),
              address != UnsafeMutableRawPointer(bitPattern: -1) else {
            throw SystemCallError(errno: Errno.current, call: "mmap")
        }
        base = address
        self.words = words
    }

    deinit { _ = munmap(base, words * 8) }

    /// Word `index`, stored little endian (acquiring: what was written before it is seen too).
    func load(_ index: Int) -> UInt64 {
        precondition(index >= 0 && index < words)
        return UInt64(littleEndian: cstowage_atomic_load_u64(base.assumingMemoryBound(to: UInt64.self) + index))
    }
}
