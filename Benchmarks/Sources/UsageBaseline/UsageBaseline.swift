import Foundation
import FoundationWalk

/// `UsageBaseline DIR`: the size of a tree the common Foundation way, as the peer that
/// `stowage usage` is measured against in `Benchmarks/usage.sh`.
///
/// It walks with `FileManager.default.enumerator(at:includingPropertiesForKeys:)` and asks
/// each URL for its `resourceValues(forKeys:)`, summing `fileSize` (logical) and
/// `totalFileAllocatedSize` (allocated) over regular files, as apps and answers on the web
/// usually do. Like them, it counts a file once per hard link, ignores the space taken by
/// folders themselves, and does not follow symbolic links; so its totals are close to, not
/// equal to, `du`'s. It is here for its speed and memory, not as a reference for the totals:
/// on Linux, swift-corelibs-foundation even reports allocated sizes as `st_blocks * st_blksize`
/// instead of `st_blocks * 512` (8 times too much on ext4, whose `st_blksize` is 4096).
///
/// Prints one line of JSON: `allocatedBytes`, `logicalBytes` and the counts it saw.
@main
struct UsageBaseline {
    static let keys: [URLResourceKey] = [
        .isRegularFileKey, .isDirectoryKey, .isSymbolicLinkKey, .fileSizeKey, .totalFileAllocatedSizeKey,
    ]

    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.count == 1, let path = arguments.first, !path.hasPrefix("-") else {
            FileHandle.standardError.write(Data("USAGE: UsageBaseline DIR\n".utf8))
            exit(2)
        }
        let root = FoundationWalk.folder(path)
        var allocatedBytes = 0
        var logicalBytes = 0
        var files = 0
        var folders = 0
        var symbolicLinks = 0
        /// Entries that could not be read (reported on standard error) or given resource values.
        let failures = FoundationWalk.forEach(in: root, keys: keys) { _, values in
            if values.isSymbolicLink == true {
                symbolicLinks += 1
            } else if values.isDirectory == true {
                folders += 1
            } else if values.isRegularFile == true {
                files += 1
                logicalBytes += values.fileSize ?? 0
                allocatedBytes += values.totalFileAllocatedSize ?? 0
            }
        }

        print("""
            {"allocatedBytes": \(allocatedBytes), "logicalBytes": \(logicalBytes), "files": \(files), \
            "folders": \(folders), "symbolicLinks": \(symbolicLinks), "failures": \(failures)}
            """)
    }
}
