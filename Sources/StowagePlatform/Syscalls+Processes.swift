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

// What a room needs of the system besides its child: /dev/null, page size, loop devices, finding
// and checking executables, the working folder.
extension Sys {
    /// `/dev/null`, open for reading and writing (close-on-exec): what a range's runs get as
    /// standard input, and as output when it is not shown.
    package static func openNullDevice() throws -> OpenFile {
        OpenFile(adopting: try open("/dev/null", O_RDWR | O_CLOEXEC))
    }

    /// The size of a memory page (`sysconf(_SC_PAGESIZE)`): tmpfs counts its size in pages.
    package static var pageSize: Int64 { Int64(max(4096, cstowage_page_size())) }

    /// Attaches the open file `backing` to a free loop device that detaches itself when its last
    /// user lets go (`LO_FLAGS_AUTOCLEAR`). Returns the open device (the caller closes it once
    /// the device is mounted) and its path.
    package static func attachLoopDevice(_ backing: Int32) throws -> (device: OpenFile, path: String) {
        var number: Int32 = 0
        let fd = try retrying("ioctl(LOOP_CONFIGURE)") { cstowage_loop_attach(backing, &number) }
        return (OpenFile(adopting: fd), "/dev/loop\(number)")
    }
}

extension Sys {
    /// Whether `path` is a regular file this process may execute (`stat`, then `access(X_OK)`).
    package static func isExecutableFile(_ path: [UInt8]) -> Bool {
        RawPath(bytes: path).withCString { cPath in
            // Missing or unreadable: not found, as execvp says.
            guard let status = try? fstatat(AT_FDCWD, cName: cPath, followingLinks: true), status.kind == .file else { return false }
            return access(cPath, X_OK) == 0
        }
    }

    /// The access this process has to `path` as permission bits (`r` 4, `w` 2, `x` 1), by
    /// `access(2)`: what the owner's bits must say of a covered folder that, in a user
    /// namespace, shows as this user's own. (`access` checks the real ids; stowage is never
    /// set-user-ID, so they are the effective ones.)
    package static func accessBits(_ path: String) -> UInt32 {
        path.withCString { cPath in
            (access(cPath, R_OK) == 0 ? 4 : 0) | (access(cPath, W_OK) == 0 ? 2 : 0) | (access(cPath, X_OK) == 0 ? 1 : 0)
        }
    }

    /// The first executable file named `name` in `folders`, in order (`""` is the working
    /// folder, as in `PATH`), or `nil`; names and folders are bytes, as `PATH` holds them.
    package static func firstExecutable(named name: [UInt8], in folders: [[UInt8]]) -> [UInt8]? {
        folders.lazy.map { ($0.isEmpty ? Array(".".utf8) : $0) + [UInt8(ascii: "/")] + name }.first(where: isExecutableFile)
    }

    /// ``firstExecutable(named:in:)`` for a name and folders given as text.
    package static func firstExecutable(named name: String, in folders: [String]) -> String? {
        firstExecutable(named: Array(name.utf8), in: folders.map { Array($0.utf8) }).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `getcwd(3)`: the working folder as bytes, or `nil` when it cannot be named (removed, or
    /// too long).
    package static var workingDirectoryBytes: [UInt8]? {
        guard let path = getcwd(nil, 0) else { return nil }
        defer { free(path) }
        return RawPath(cString: path).bytes
    }

    /// ``workingDirectoryBytes`` as text, for messages.
    package static var workingDirectory: String? { workingDirectoryBytes.map { String(decoding: $0, as: UTF8.self) } }
}
