// safe-save: saving a file over an old one, two ways, and checking what is left.
//
//   safe-save wrong FILE BYTES        truncates FILE, then writes BYTES bytes of "n" in place
//   safe-save right FILE BYTES        writes them to a temporary file beside FILE, fsyncs it,
//                                     renames it over FILE, fsyncs the folder
//   safe-save check FILE OLD NEW      exits 0 when FILE holds OLD bytes of "o" (the old content)
//                                     or NEW bytes of "n" (the new one), and the new one when
//                                     STOWAGE_COMMAND_STATUS is 0 (the save said it succeeded);
//                                     else says what it found and exits 1
//
// Either save exits 1 with the system's error when a write fails (ENOSPC on a full disk).
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func fail(_ message: String) -> Never {
    let line = Array("safe-save: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

func systemError(_ call: String, _ path: String) -> Never {
    fail("\(call) \(path): \(String(cString: strerror(errno)))")
}

/// Writes all of `bytes` to `fd`, in 4096-byte pieces as most programs do.
func writeAll(_ fd: Int32, _ bytes: [UInt8], _ path: String) {
    var done = 0
    while done < bytes.count {
        let count = bytes[done...].prefix(4096).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            systemError("write", path)
        }
        done += count
    }
}

/// The common way: open with O_TRUNC and write. A full disk leaves the file short, or empty:
/// the old content is gone before the new one is safe.
func saveInPlace(_ path: String, _ bytes: [UInt8]) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    if fd < 0 { systemError("open", path) }
    writeAll(fd, bytes, path)
    if fsync(fd) != 0 { systemError("fsync", path) }
    close(fd)
}

/// The safe way: the new content goes to a temporary file beside the old one, reaches the disk
/// (fsync), and only then replaces it (rename is atomic), and the folder's entry is made durable
/// too. A full disk fails the temporary file, which is removed; the old file is untouched.
func saveAtomically(_ path: String, _ bytes: [UInt8]) {
    let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
    let temporary = "\(path).tmp-\(getpid())"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o644)
    if fd < 0 { systemError("open", temporary) }
    func abandon(_ call: String) -> Never {
        let saved = errno
        close(fd)
        unlink(temporary)
        errno = saved
        systemError(call, temporary)
    }
    var done = 0
    while done < bytes.count {
        let count = bytes[done...].prefix(4096).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            abandon("write")
        }
        done += count
    }
    if fsync(fd) != 0 { abandon("fsync") }
    if close(fd) != 0 {
        unlink(temporary)
        systemError("close", temporary)
    }
    if rename(temporary, path) != 0 {
        let saved = errno
        unlink(temporary)
        errno = saved
        systemError("rename", path)
    }
    let folderFD = open(folder, O_RDONLY | O_DIRECTORY)
    if folderFD >= 0 {
        if fsync(folderFD) != 0 { systemError("fsync", folder) }
        close(folderFD)
    }
}

/// Reads the whole file, or `nil` when it is missing.
func contents(of path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY)
    if fd < 0 { return nil }
    defer { close(fd) }
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { return result }
        result += buffer[..<count]
    }
}

func number(_ text: String) -> Int {
    guard let value = Int(text), value >= 0 else { fail("'\(text)' is not a byte count") }
    return value
}

let arguments = Array(CommandLine.arguments.dropFirst())
let old = UInt8(ascii: "o"), new = UInt8(ascii: "n")
switch (arguments.first, arguments.count) {
case ("wrong", 3):
    saveInPlace(arguments[1], [UInt8](repeating: new, count: number(arguments[2])))
case ("right", 3):
    saveAtomically(arguments[1], [UInt8](repeating: new, count: number(arguments[2])))
case ("check", 4):
    let (oldCount, newCount) = (number(arguments[2]), number(arguments[3]))
    let saved = getenv("STOWAGE_COMMAND_STATUS").map { String(cString: $0) } == "0"
    guard let bytes = contents(of: arguments[1]) else { fail("\(arguments[1]) is gone") }
    let isOld = bytes.count == oldCount && bytes.allSatisfy { $0 == old }
    let isNew = bytes.count == newCount && bytes.allSatisfy { $0 == new }
    if isNew || (isOld && !saved) { exit(0) }
    let found = "\(bytes.count) bytes: \(bytes.filter { $0 == old }.count) old, \(bytes.filter { $0 == new }.count) new"
    fail(isOld ? "the save said it succeeded, but the file holds the old content" : "the file holds neither version (\(found))")
default:
    fail("usage: safe-save wrong|right FILE BYTES, or safe-save check FILE OLD NEW")
}
