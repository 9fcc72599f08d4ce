import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A cache folder as the tests see it from outside, by `lstat`: what a `DiskCache`'s limits count.
public enum CacheFolder {
    /// The entry files under `folder` (regular files, not Stowage's `.stowage-*` bookkeeping nor
    /// `CACHEDIR.TAG`) and their allocated bytes (`st_blocks`).
    public static func entries(in folder: URL) throws -> (files: Int, allocatedBytes: Int64) {
        var files = 0
        var bytes: Int64 = 0
        let root = folder.path(percentEncoded: false)
        for relative in try FileManager.default.subpathsOfDirectory(atPath: root) {
            let name = (relative as NSString).lastPathComponent
            var status = stat()
            guard lstat(root + "/" + relative, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
                  !name.hasPrefix(".stowage-"), name != "CACHEDIR.TAG" else { continue }
            files += 1
            bytes += Int64(status.st_blocks) * 512
        }
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
