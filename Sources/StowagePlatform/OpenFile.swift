#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Stowage's Platform layer supports Darwin, Glibc and Musl systems")
#endif
import Foundation
import CStowageShims

/// An open file descriptor, closed when the last reference goes away or by ``close()``.
///
/// Every path walk in Stowage holds folders open as `OpenFile`s and names items relative to
/// them (`openat`, `renameat`, `unlinkat`), so a folder swapped for a symbolic link between a
/// check and its use cannot redirect an operation outside the container.
///
/// Not `Sendable`: a descriptor lives within one call on one thread. (A non-copyable struct
/// would say the same more cheaply, but Swift 6.3 crashes compiling `catch` clauses around
/// non-copyable values; revisit with a later compiler.)
package final class OpenFile {
    package private(set) var descriptor: Int32

    package init(adopting descriptor: Int32) { self.descriptor = descriptor }

    deinit {
        if descriptor >= 0 { try? Sys.close(descriptor) }  // best effort: an implicit close has nobody to tell
    }

    /// Closes now and reports a failure (some file systems report write errors only on close).
    package func close() throws {
        let fd = descriptor
        descriptor = -1
        try Sys.close(fd)
    }

    // MARK: Opening relative to this folder

    /// Opens the sub-folder `name`, never through a symbolic link.
    package func openFolder(_ name: String) throws -> OpenFile {
        OpenFile(adopting: try openFolderDescriptor(name))
    }

    /// Opens the sub-folder `name` as a bare descriptor, for callers that must catch the error
    /// before owning the result.
    package func openFolderDescriptor(_ name: String) throws -> Int32 {
        try Sys.openat(descriptor, name, Sys.folderReadOnly | O_NOFOLLOW)
    }

    /// Opens the file `name` for reading, never through a symbolic link, and without waiting: a
    /// FIFO put in a file's place does not block the open, nor a terminal become this process's.
    /// Callers check ``status()``'s kind before reading (a FIFO reads as empty, a character
    /// device such as `/dev/zero` without end). `O_NONBLOCK` changes nothing for a regular file.
    package func openForReading(_ name: String) throws -> OpenFile {
        OpenFile(adopting: try Sys.openat(descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY))
    }

    /// Opens the file at the relative `path` (names separated by `/`) for reading, as
    /// ``openForReading(_:)`` does, in one system call that follows no symbolic link anywhere in
    /// `path` and never leaves this folder (Linux's `openat2`, Darwin's `O_NOFOLLOW_ANY`).
    ///
    /// - Throws: `ENOSYS` where the system cannot (open one name at a time then), `ELOOP` for a
    ///   link on the way, and what `openat` throws.
    package func openForReading(beneath path: String) throws -> OpenFile {
        OpenFile(adopting: try Sys.openBeneath(descriptor, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY))
    }

    /// Opens `name` read-only to examine it (status, attributes), never through a symbolic
    /// link and without waiting: a FIFO put in a file's place does not block the open.
    package func openForInspection(_ name: String) throws -> OpenFile {
        OpenFile(adopting: try Sys.openat(descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY))
    }

    /// Opens `name` with the given flags (`O_NOFOLLOW` is always added).
    package func open(_ name: String, flags: Int32, mode: FilePermissions = .defaultFile) throws -> OpenFile {
        OpenFile(adopting: try Sys.openat(descriptor, name, flags | O_NOFOLLOW, mode: mode))
    }

    /// Opens an absolute path as a folder (used only for location roots).
    package static func openFolder(atPath path: String, followingLinks: Bool) throws -> OpenFile {
        OpenFile(adopting: try Sys.open(path, Sys.folderReadOnly | (followingLinks ? 0 : O_NOFOLLOW)))
    }

    /// Opens an absolute path given as bytes as a folder (a folder inside a scanned tree, whose
    /// names need not be UTF-8).
    package static func openFolder(atPath path: RawPath, followingLinks: Bool) throws -> OpenFile {
        OpenFile(adopting: try Sys.openat(AT_FDCWD, path, Sys.folderReadOnly | (followingLinks ? 0 : O_NOFOLLOW)))
    }

    /// Opens the folder `name` in `folder`, following a link when asked (resources outside containers).
    package static func openFolder(in folder: OpenFile, _ name: RawPath, followingLinks: Bool) throws -> OpenFile {
        OpenFile(adopting: try Sys.openat(folder.descriptor, name, Sys.folderReadOnly | (followingLinks ? 0 : O_NOFOLLOW)))
    }


    /// Opens the sub-folder `name` (bytes, as a walk read it), never through a symbolic link.
    package func openFolder(_ name: RawPath) throws -> OpenFile {
        OpenFile(adopting: try Sys.openat(descriptor, name, Sys.folderReadOnly | O_NOFOLLOW))
    }

    /// Opens the file `name` (bytes, as a folder listing read it) for reading, as
    /// ``openForReading(_:)-(String)`` does.
    package func openForReading(_ name: RawPath) throws -> OpenFile {
        OpenFile(adopting: try Sys.openat(descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY))
    }

    /// Opens `name` (bytes) with the given flags (`O_NOFOLLOW` is always added).
    package func open(_ name: RawPath, flags: Int32, mode: FilePermissions = .defaultFile) throws -> OpenFile {
        OpenFile(adopting: try Sys.openat(descriptor, name, flags | O_NOFOLLOW, mode: mode))
    }

    /// Creates the sub-folder `name` (bytes).
    package func createFolder(_ name: RawPath, mode: FilePermissions) throws {
        try Sys.mkdirat(descriptor, name, mode: mode)
    }

    /// The target of the symbolic link `name`, exactly as bytes.
    package func linkTarget(of name: RawPath) throws -> RawPath {
        try Sys.readlinkat(descriptor, name)
    }

    /// Creates a symbolic link `name` pointing at `target`, both as bytes.
    package func createLink(_ name: RawPath, to target: RawPath) throws {
        try Sys.symlinkat(target, descriptor, name)
    }

    /// Removes the entry `name` (bytes; a folder only when `folder` is set, and it must be empty).
    package func removeEntry(_ name: RawPath, folder: Bool) throws {
        try Sys.unlinkat(descriptor, name, folder: folder)
    }

    /// The status of `name` (bytes, not following a link), or `nil` when there is no such entry.
    package func statusIfPresent(of name: RawPath) throws -> FileStatus? {
        do {
            return try Sys.fstatat(descriptor, name)
        } catch Errno.noSuchEntry {
            return nil
        }
    }

    /// Which mount this open file is on: ``MountIdentity``.
    package func mountIdentity() throws -> MountIdentity {
        let identity = try Sys.identity(descriptor)
        return MountIdentity(device: identity.device, mountID: identity.mountID)
    }

    /// Creates the sub-folder `name`.
    package func createFolder(_ name: String, mode: FilePermissions) throws {
        try Sys.mkdirat(descriptor, name, mode: mode)
    }

    /// Removes the entry `name` (a folder only when `folder` is set; it must be empty).
    package func removeEntry(_ name: String, folder: Bool) throws {
        try Sys.unlinkat(descriptor, name, folder: folder)
    }

    /// Renames `from` in this folder to `to` in `destination`, replacing what is there.
    package func rename(_ from: String, to destination: OpenFile, as to: String) throws {
        try Sys.renameat(descriptor, from, destination.descriptor, to)
    }

    /// Renames `from` in this folder to `to` in `destination`, failing with `EEXIST` when
    /// `to` exists. Uses `renameat2(RENAME_NOREPLACE)`; where the file system lacks it, checks
    /// first, which leaves a small race that only other writers of the same name can hit.
    package func renameWithoutReplacing(_ from: String, to destination: OpenFile, as to: String) throws {
        do {
            try Sys.renameat2(descriptor, from, destination.descriptor, to, exchange: false)
        } catch Errno.renameFlagsUnavailable {
            if try destination.statusIfPresent(of: to) != nil {
                throw SystemCallError(errno: .fileExists, call: "renameat")
            }
            try Sys.renameat(descriptor, from, destination.descriptor, to)
        }
    }

    /// Swaps `first` and `second` in this folder atomically (`RENAME_EXCHANGE`); throws an
    /// "unavailable" error (see `Errno.renameFlagsUnavailable`) where the file system lacks it.
    package func exchange(_ first: String, _ second: String) throws {
        try Sys.renameat2(descriptor, first, descriptor, second, exchange: true)
    }

    package func setPermissions(_ mode: FilePermissions) throws { try Sys.fchmod(descriptor, mode) }

    // MARK: Status

    package func status() throws -> FileStatus { try Sys.fstat(descriptor) }

    package func status(of name: String) throws -> FileStatus { try Sys.fstatat(descriptor, name) }

    /// The status of `name`, or `nil` when there is no such entry.
    package func statusIfPresent(of name: String) throws -> FileStatus? {
        do {
            return try Sys.fstatat(descriptor, name)
        } catch Errno.noSuchEntry {
            return nil
        }
    }

    // MARK: Reading

    /// Reads the whole file into `Data`, sized once from `fstat` and grown if the file grew.
    package func readAll() throws -> Data {
        // A size Int cannot hold (past 2 GiB on watchOS, whose arm64_32 has a 32-bit Int) cannot be
        // read into memory: EOVERFLOW, as the C library says of a size its type cannot hold.
        guard let expected = Int(exactly: try status().size), expected < Int.max else {
            throw SystemCallError(errno: .valueTooLarge, call: "read")
        }
        var capacity = max(expected + 1, 4096)
        var buffer = malloc(capacity)!
        var count = 0
        while true {
            if count == capacity {
                capacity *= 2
                buffer = realloc(buffer, capacity)!
            }
            let read: Int
            do {
                read = try Sys.read(descriptor, buffer + count, capacity - count)
            } catch {
                free(buffer)
                throw error
            }
            if read == 0 { break }
            count += read
        }
        return Data(bytesNoCopy: buffer, count: count, deallocator: .free)
    }

    /// Fills `buffer` from `offset` on, with no allocation: returns the bytes read (fewer only at
    /// the end of the file).
    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try Sys.preadAll(descriptor, buffer, at: offset)
    }

    /// Up to `count` bytes from `offset` (fewer only at the end of the file).
    package func read(atMost count: Int, at offset: Int64) throws -> Data {
        guard count > 0 else { return Data() }
        let buffer = malloc(count)!
        do {
            let read = try self.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: count), at: offset)
            return Data(bytesNoCopy: buffer, count: read, deallocator: .free)
        } catch {
            free(buffer)
            throw error
        }
    }

    /// Exactly `count` bytes that start with `known` (the first of them, read already) and go on
    /// from `offset + known.count` in the file; `nil` when the file ends before (one buffer, no copy
    /// of what is read).
    package func read(exactly count: Int, at offset: Int64, startingWith known: Data) throws -> Data? {
        let first = min(known.count, count)
        guard count > 0 else { return Data() }
        let buffer = malloc(count)!
        known.prefix(first).withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            if let source = bytes.baseAddress { buffer.copyMemory(from: source, byteCount: first) }
        }
        do {
            let read = try Sys.preadAll(descriptor, UnsafeMutableRawBufferPointer(start: buffer + first, count: count - first),
                                        at: offset + Int64(first))
            guard first + read == count else {
                free(buffer)
                return nil
            }
            return Data(bytesNoCopy: buffer, count: count, deallocator: .free)
        } catch {
            free(buffer)
            throw error
        }
    }

    // MARK: Writing

    package func writeAll(_ data: Data) throws {
        let fd = descriptor
        let failure = data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> (any Error)? in
            guard bytes.count > 0 else { return nil }
            do {
                try Sys.writeAll(fd, bytes)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    package func writeAll(_ data: Data, at offset: Int64) throws {
        let fd = descriptor
        let failure = data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> (any Error)? in
            guard bytes.count > 0 else { return nil }
            do {
                try Sys.pwriteAll(fd, bytes, at: offset)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    package func truncate(to length: Int64) throws { try Sys.ftruncate(descriptor, length) }

    package func syncData() throws { try Sys.syncData(descriptor) }

    package func syncFolder() throws { try Sys.syncFolder(descriptor) }

    package func lock(exclusive: Bool) throws { try Sys.flock(descriptor, exclusive: exclusive) }

    /// The figures of the volume holding this file (`fstatvfs`). A method, so the descriptor
    /// stays open for the call even when this is the object's last use.
    package func spaceFigures() throws -> Sys.SpaceFigures { try Sys.spaceFigures(descriptor) }

    /// Writes back this file's whole volume; see ``Sys/syncVolume(_:)``.
    package func syncVolume() throws { try Sys.syncVolume(descriptor) }

    /// The extended attribute `name`, or `nil` when absent.
    package func attribute(_ name: String) throws -> [UInt8]? { try ExtendedAttributes.value(name, of: descriptor) }

    /// Sets the extended attribute `name`.
    package func setAttribute(_ name: String, to value: [UInt8]) throws { try ExtendedAttributes.set(name, to: value, on: descriptor) }

    package func tryLock(exclusive: Bool) throws -> Bool { try Sys.tryLock(descriptor, exclusive: exclusive) }

    package func unlock() { Sys.unlock(descriptor) }

    // MARK: Folder entries

    /// The names in this folder as bytes (``RawPath``), without `.` and `..`, in the order the
    /// system returns them. Names stay bytes (Stowage's Architecture article: bytes at every boundary): one that is not UTF-8 is never turned
    /// into another name.
    package func entryNames() throws -> [RawPath] {
        var names: [RawPath] = []
        try forEachEntry { name, _ in names.append(name) }
        return names
    }

    /// Calls `body` with each entry's name as bytes and the type the folder reports (`nil` when
    /// the file system does not say; callers `fstatat` then). Read through ``DirectoryStream``,
    /// the one folder reader of the library.
    package func forEachEntry(_ body: (RawPath, FileStatus.Kind?) throws -> Void) throws {
        // A new open description of this folder, so the read starts at its beginning.
        let stream = try DirectoryStream(adopting: try Sys.openat(descriptor, ".", Sys.folderReadOnly))
        try stream.forEachEntry { entry in
            try body(RawPath(entry), entry.kind)
            return true
        }
    }
}

/// Which mount a file is on. Two files are on the same mount when their mount identities
/// (`statx`'s `stx_mnt_id`) are equal; a bind mount of a folder of the same file system shares
/// the device number but not the mount identity. Where the system does not tell the mount
/// identity, the device numbers are compared, as `find -xdev` and `rm --one-file-system` do.
package struct MountIdentity: Hashable, Sendable {
    package var device: UInt64
    package var mountID: UInt64?

    package init(device: UInt64, mountID: UInt64?) {
        self.device = device
        self.mountID = mountID
    }

    /// Whether `other` is on the same mount as this.
    package func isSameMount(as other: MountIdentity) -> Bool {
        guard device == other.device else { return false }
        if let mountID, let otherID = other.mountID { return mountID == otherID }
        return true
    }
}
