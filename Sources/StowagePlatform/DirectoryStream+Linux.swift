#if canImport(Glibc) || canImport(Musl)
#if canImport(Glibc)
import Glibc
#else
import Musl
#endif
import CStowageShims

/// How ``DirectoryStream`` reads a folder on Linux: `getdents64` into a buffer of its own, one
/// call per 32 KB of entries (glibc's `readdir` does the same, but `fdopendir` first costs an
/// `fstat` and two `fcntl`s per folder, which a scan of a large tree pays thousands of times).
struct DirectoryReader {
    static let call = "getdents64"
    /// What one call may fill: glibc's `readdir` buffer (most folders take one call and the one
    /// that says the end).
    static let bufferSize = 32 * 1024
    /// Where a `struct linux_dirent64`'s fields sit (the layout is the kernel's ABI on every
    /// architecture): `d_ino` (64 bits), `d_off`, `d_reclen` (16 bits), `d_type` (8 bits), then
    /// `d_name`.
    private static let recordLengthOffset = 16, typeOffset = 18, nameOffset = 19
    /// The reader's position (the next record's offset, the bytes filled) sits in two words
    /// before the records: reading then changes no field of the stream, each access to which
    /// would cost an exclusivity check.
    private static let headerSize = 16

    private let header: UnsafeMutablePointer<Int>
    private let records: UnsafeMutableRawPointer

    /// Takes `fd` over; nothing is checked until the first read (`ENOTDIR` then for a file).
    init(adopting fd: Int32) throws {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: Self.headerSize + Self.bufferSize, alignment: 8)
        header = memory.initializeMemory(as: Int.self, repeating: 0, count: 2)
        records = memory + Self.headerSize
    }

    /// Closes `fd` (not through the budget's `close`: a folder is never an unnamed file).
    func close(_ fd: Int32) {
        UnsafeMutableRawPointer(header).deallocate()
        _ = closeDescriptor(fd)
    }

    /// The next entry, `nil` at the end.
    @inline(__always)
    func next(_ fd: Int32) throws -> DirectoryEntry? {
        while true {
            var offset = header[0]
            if offset >= header[1] {
                let filled: Int
                do {
                    filled = try Sys.retrying(Self.call) { cstowage_getdents64(fd, records, Self.bufferSize) }
                } catch Errno.noSuchEntry {
                    // The folder was removed while it was read: its end, as glibc's readdir
                    // makes it ("POSIX.1 requires that we treat this condition like normal EOF").
                    return nil
                }
                if filled == 0 { return nil }
                (offset, header[1]) = (0, filled)
            }
            let record = records + offset
            let recordLength = Int(record.load(fromByteOffset: Self.recordLengthOffset, as: UInt16.self))
            header[0] = offset + recordLength
            // An entry with inode 0 is a deleted one some file systems still list (glibc's
            // readdir skips them too).
            if record.load(as: UInt64.self) == 0 { continue }
            let name = (record + Self.nameOffset).assumingMemoryBound(to: CChar.self)
            // The NUL ends the name within the record (the padding after it is not cleared):
            // at most the record's bytes after d_name.
            return DirectoryEntry(name: name, nameLength: strnlen(name, recordLength - Self.nameOffset),
                                  type: record.load(fromByteOffset: Self.typeOffset, as: UInt8.self))
        }
    }
}

/// `close(2)`, under a name the reader's own `close` does not hide.
@inline(__always) private func closeDescriptor(_ fd: Int32) -> Int32 { close(fd) }
#endif
