import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A cache folder as the tests see it from outside, by `lstat`: what a `DiskCache`'s limits count.
public enum CacheFolder {
    /// The entry files under `folder` (regular files, not Stowage's `.stowage-*` bookkeeping nor
    /// `CACHEDIR.TAG`) and their allocated bytes (`st_blocks`).
    /// Folders and files that vanish while they are read (another process's eviction removes
    /// the fan-out folders it empties) are passed over, as a walk made a moment later would.
    public static func entries(in folder: URL) throws -> (files: Int, allocatedBytes: Int64) {
        var files = 0
        var bytes: Int64 = 0
        func walk(_ path: String) {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
            for name in names {
                var status = stat()
                guard lstat(path + "/" + name, &status) == 0 else { continue }
                switch status.st_mode & S_IFMT {
                case S_IFDIR:
                    walk(path + "/" + name)
                case S_IFREG where !name.hasPrefix(".stowage-") && name != "CACHEDIR.TAG":
                    files += 1
                    bytes += Int64(status.st_blocks) * 512
                default:
                    break
                }
            }
        }
        var status = stat()
        guard lstat(folder.path(percentEncoded: false), &status) == 0 else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: folder.path(percentEncoded: false)])
        }
        walk(folder.path(percentEncoded: false))
        return (files, bytes)
    }

    /// The read system calls this process has made (`syscr` in `/proc/self/io`; the read of that
    /// file counts too).
    public static func readCalls() throws -> Int {
        let text = try String(contentsOfFile: "/proc/self/io", encoding: .utf8)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("syscr:") }),
              let value = Int(line.dropFirst("syscr:".count).trimmingCharacters(in: .whitespaces)) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return value
    }
}
