#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Stowage's Platform layer supports Darwin, Glibc and Musl systems")
#endif
import CStowageShims

// Opening, closing, reading and writing files by descriptor.
extension Sys {
    /// `openat(2)`. The flags always include `O_CLOEXEC`.
    package static func openat(_ directory: Int32, _ name: String, _ flags: Int32, mode: FilePermissions = FilePermissions(rawValue: 0)) throws -> Int32 {
        try budgeted(opening: flags, call: "openat", status: { try fstatat(directory, name) },
                     entry: { BudgetEntry(directory: directory, name: Array(name.utf8)) }) {
            try retrying("openat") { name.withCString { systemOpenat(directory, $0, flags | O_CLOEXEC, mode_t(mode.rawValue)) } }
        }
    }

    /// `openat2(2)` with `RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH` on Linux, `openat(2)` with
    /// `O_NOFOLLOW_ANY` on Darwin (see `cstowage_open_beneath`). The flags always include `O_CLOEXEC`.
    package static func openBeneath(_ directory: Int32, _ path: String, _ flags: Int32) throws -> Int32 {
        try retrying("openat2") { path.withCString { cstowage_open_beneath(directory, $0, flags) } }
    }

    /// `openat(2)` of a name as bytes (see ``RawPath``). The flags always include `O_CLOEXEC`.
    package static func openat(_ directory: Int32, _ name: RawPath, _ flags: Int32, mode: FilePermissions = FilePermissions(rawValue: 0)) throws -> Int32 {
        try budgeted(opening: flags, call: "openat", status: { try fstatat(directory, name) },
                     entry: { BudgetEntry(directory: directory, name: name.bytes) }) {
            try retrying("openat") { name.withCString { systemOpenat(directory, $0, flags | O_CLOEXEC, mode_t(mode.rawValue)) } }
        }
    }

    /// `openat(2)` of a name given as a C string (as `readdir` hands it out, uncopied).
    package static func openat(_ directory: Int32, cName name: UnsafePointer<CChar>, _ flags: Int32) throws -> Int32 {
        try budgeted(opening: flags, call: "openat", status: { try fstatat(directory, cName: name, followingLinks: false) },
                     entry: { BudgetEntry(directory: directory, name: RawPath(cString: name).bytes) }) {
            try retrying("openat") { systemOpenat(directory, name, flags | O_CLOEXEC, 0) }
        }
    }

    /// `open(2)` of an absolute path.
    package static func open(_ path: String, _ flags: Int32) throws -> Int32 {
        try budgeted(opening: flags, call: "open", status: { try lstat(path) },
                     entry: { BudgetEntry(directory: AT_FDCWD, name: Array(path.utf8)) }) {
            try retrying("open") { path.withCString { systemOpen($0, flags | O_CLOEXEC, 0) } }
        }
    }

    /// `open(2)` of `/dev/null` for reading and writing, without `O_CLOEXEC` (unlike
    /// ``openNullDevice()``): a stand-in for a closed standard stream, which a child process
    /// inherits as it would the stream.
    package static func openNullDeviceAcrossExec() throws -> Int32 {
        try retrying("open") { "/dev/null".withCString { systemOpen($0, O_RDWR, 0) } }
    }

    /// `close(2)`. Not retried on EINTR: on Linux and Darwin the descriptor is gone either way.
    package static func close(_ fd: Int32) throws {
        budgetedClose(fd)
        if systemClose(fd) == -1 {
            let code = Errno.current
            if code != .interrupted { throw SystemCallError(errno: code, call: "close") }
        }
    }

    /// `dup(2)`.
    package static func dup(_ fd: Int32) throws -> Int32 {
        try retrying("dup") { systemDup(fd) }
    }

    /// `read(2)`; returns the number of bytes read, 0 at the end of the file.
    package static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) throws -> Int {
        try retrying("read") { systemRead(fd, buffer, count) }
    }

    /// `pread(2)`.
    package static func pread(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, at offset: Int64) throws -> Int {
        try retrying("pread") { systemPread(fd, buffer, count, off_t(offset)) }
    }

    /// `write(2)` until every byte is written.
    package static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws {
        // Charged as written at the end of the file: Stowage writes with `write(2)` only from the
        // start of a new or emptied file, in order (`pwrite` elsewhere). Settled with the file's
        // length afterwards whatever the offset was.
        try budgeted(resizing: fd, call: "write", to: { $0 + Int64(buffer.count) }) {
            var offset = 0
            while offset < buffer.count {
                let written = try retrying("write") {
                    systemWrite(fd, buffer.baseAddress! + offset, buffer.count - offset)
                }
                offset += written
            }
        }
    }

    /// `pwrite(2)` until every byte is written.
    package static func pwriteAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, at offset: Int64) throws {
        try budgeted(resizing: fd, call: "pwrite", to: { max($0, offset + Int64(buffer.count)) }) {
            var done = 0
            while done < buffer.count {
                let written = try retrying("pwrite") {
                    systemPwrite(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
                }
                done += written
            }
        }
    }

    /// `ftruncate(2)`.
    package static func ftruncate(_ fd: Int32, _ length: Int64) throws {
        try budgeted(resizing: fd, call: "ftruncate", to: { _ in length }) {
            _ = try retrying("ftruncate") { systemFtruncate(fd, off_t(length)) }
        }
    }

    /// `pread(2)` until `buffer` is full or the file ends; returns the bytes read.
    package static func preadAll(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        var done = 0
        while done < buffer.count {
            let count = try pread(fd, buffer.baseAddress! + done, buffer.count - done, at: offset + Int64(done))
            if count == 0 { break }
            done += count
        }
        return done
    }

    /// Copies the file open as `input` (`size` bytes) to the empty file open as `output`, holes
    /// kept as holes: only the data `lseek(SEEK_DATA)`/`lseek(SEEK_HOLE)` find is read and
    /// written, then `output` is made `size` long. A sparse terabyte costs what it holds, not a
    /// terabyte of zeros (a file system that does not tell holes apart reports one data range).
    package static func copyKeepingHoles(from input: Int32, to output: Int32, size: Int64) throws {
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var position: Int64 = 0
        while position < size {
            let dataStart = cstowage_seek_data(input, position)
            if dataStart < 0 {
                if errno == ENXIO { break }  // no data past `position`: the rest is a hole
                throw SystemCallError(errno: .current, call: "lseek")
            }
            let holeStart = cstowage_seek_hole(input, dataStart)
            guard holeStart >= 0 else { throw SystemCallError(errno: .current, call: "lseek") }
            var offset = Int64(dataStart)
            while offset < min(Int64(holeStart), size) {
                let wanted = Int(min(Int64(chunk), min(Int64(holeStart), size) - offset))
                let read = try preadAll(input, UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]), at: offset)
                if read == 0 { break }
                try pwriteAll(output, UnsafeRawBufferPointer(rebasing: buffer[0..<read]), at: offset)
                offset += Int64(read)
            }
            position = Int64(holeStart)
        }
        try ftruncate(output, size)
    }
}

// The libc functions under names that do not clash with the wrappers above.
@inline(__always) private func systemOpenat(_ d: Int32, _ p: UnsafePointer<CChar>, _ f: Int32, _ m: mode_t) -> Int32 { openat(d, p, f, m) }
@inline(__always) private func systemOpen(_ p: UnsafePointer<CChar>, _ f: Int32, _ m: mode_t) -> Int32 { open(p, f, m) }
@inline(__always) private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
@inline(__always) private func systemDup(_ fd: Int32) -> Int32 { dup(fd) }
@inline(__always) private func systemRead(_ fd: Int32, _ b: UnsafeMutableRawPointer, _ c: Int) -> Int { read(fd, b, c) }
@inline(__always) private func systemPread(_ fd: Int32, _ b: UnsafeMutableRawPointer, _ c: Int, _ o: off_t) -> Int { pread(fd, b, c, o) }
@inline(__always) private func systemWrite(_ fd: Int32, _ b: UnsafeRawPointer, _ c: Int) -> Int { write(fd, b, c) }
@inline(__always) private func systemPwrite(_ fd: Int32, _ b: UnsafeRawPointer, _ c: Int, _ o: off_t) -> Int { pwrite(fd, b, c, o) }
@inline(__always) private func systemFtruncate(_ fd: Int32, _ l: off_t) -> Int32 { ftruncate(fd, l) }
