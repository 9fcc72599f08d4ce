#if canImport(Darwin)
import Darwin
/// What `fdopendir` returns. Apple's `DIR` is a complete struct (Libc's include/dirent.h), which
/// Swift imports as a typed pointer.
package typealias DirectoryStreamHandle = UnsafeMutablePointer<DIR>

/// How ``DirectoryStream`` reads a folder on Apple platforms: `fdopendir` and `readdir`, whose
/// entries carry their names' lengths (`d_namlen`).
struct DirectoryReader {
    static let call = "readdir"

    private let stream: DirectoryStreamHandle

    /// Takes `fd` over; when `fdopendir` fails, closes it and throws.
    init(adopting fd: Int32) throws {
        guard let stream = fdopendir(fd) else {
            let code = Errno.current
            try? Sys.close(fd)  // best effort: the stream failed, its descriptor is useless
            throw SystemCallError(errno: code, call: "fdopendir")
        }
        self.stream = stream
    }

    /// Closes the stream and with it `fd`.
    func close(_ fd: Int32) { closedir(stream) }

    /// The next entry, `nil` at the end.
    func next(_ fd: Int32) throws -> DirectoryEntry? {
        errno = 0
        guard let entry = readdir(stream) else {
            let code = Errno.current
            if code.rawValue != 0 { throw SystemCallError(errno: code, call: Self.call) }
            return nil
        }
        // d_name holds 1024 bytes on Apple platforms (64-bit inodes); the entry stays where it
        // is until the next readdir.
        let name = UnsafeRawPointer(entry).advanced(by: MemoryLayout<dirent>.offset(of: \dirent.d_name)!).assumingMemoryBound(to: CChar.self)
        return DirectoryEntry(name: name, nameLength: Int(entry.pointee.d_namlen), type: entry.pointee.d_type)
    }
}
#endif
