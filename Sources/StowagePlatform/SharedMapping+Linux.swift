#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#if canImport(Glibc) || canImport(Musl)
import CStowageShims

/// The first bytes of an open file (Linux) mapped into memory, read-only, with `MAP_SHARED`, as 64-bit
/// words: whatever any process writes to the file (`pwrite`) is seen at once (the kernel's page
/// cache is the one copy, on Linux and Darwin alike). Reading a word is a memory load, not a
/// system call: what lets a ``DiskCache`` check, on every memory hit, that no other process
/// changed the cache.
///
/// Read-only on purpose: a store into a mapped page can need a new block (copy-on-write file
/// systems such as btrfs and APFS, a sparse file), and on a full volume the kernel can only
/// answer that with `SIGBUS`; a `pwrite` returns `ENOSPC` instead.
///
/// **A file cut short is survived.** Stowage only ever makes the file longer, but anyone else
/// may truncate it (a backup restore, a cleaning tool): a load from a page the file no longer
/// reaches raises `SIGBUS`, which would end the process (as it does for SQLite's `-shm` file).
/// So every load goes through ``load(_:)``, a guarded load in the C shim: a jump point armed per
/// thread (`sigsetjmp` without the signal mask, no system call) and a `SIGBUS` handler, installed
/// once per process, that jumps back when a guarded load faulted and otherwise hands the signal
/// to the action in place before it (by default: the process ends, as without it). The load then
/// returns `nil`, and the caller treats the file as damaged. Costs about 30 ns per load of the
/// index's six words (42 ns against 15 ns unguarded, measured at -O2 on a loaded 2-core machine);
/// the alternatives were worse: an `fstat` before each load costs about 0.5 µs (as much as a
/// whole memory hit) and still leaves a window between the check and the load; `pread` instead
/// of a mapping costs as much; a private or anonymous fallback mapping stops seeing the other
/// processes' words. Bytes past the file's end on its last page read as zeros (no fault).
/// A handler installed later that does not pass `SIGBUS` on, or a debugger stopping on the
/// fault, sees it first. On Apple platforms the words are read with `pread` instead (see
/// `SharedMapping+Darwin.swift`).
///
/// `@unchecked Sendable`: the address and length never change after `init`, and every access to
/// the memory is an atomic load (acquire) through the C shim.
package final class SharedMapping: @unchecked Sendable {
    private let base: UnsafeMutableRawPointer
    /// The number of words mapped.
    package let words: Int

    /// Maps the first `words` 64-bit words of `file`, for reading (the file may be shorter).
    package init(_ file: OpenFile, words: Int) throws {
        guard cstowage_guard_mapped_loads() == 0 else { throw SystemCallError(errno: Errno.current, call: "sigaction") }
        let length = words * 8
        guard let address = mmap(nil, length, PROT_READ, MAP_SHARED, file.descriptor, 0),
              address != UnsafeMutableRawPointer(bitPattern: -1) else {
            throw SystemCallError(errno: Errno.current, call: "mmap")
        }
        base = address
        self.words = words
    }

    deinit { _ = munmap(base, words * 8) }

    /// The first `count` words (stored little endian), each loaded atomically (acquiring: what
    /// was written before it is seen too); `nil` when the file no longer reaches them.
    package func load<Result>(_ count: Int, _ body: (UnsafeBufferPointer<UInt64>?) -> Result) -> Result {
        precondition(count > 0 && count <= words)
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: count) { buffer in
            guard cstowage_guarded_load_u64(base.assumingMemoryBound(to: UInt64.self), Int32(count), buffer.baseAddress!) == 0 else {
                return body(nil)
            }
            for index in 0..<count { buffer[index] = UInt64(littleEndian: buffer[index]) }
            return body(UnsafeBufferPointer(buffer))
        }
    }
}
#endif
