import Foundation

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
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
            FileHandle.standardError.write(Data("error: \(path) is not a folder\n".utf8))
            exit(1)
        }
        let root = URL(filePath: path, directoryHint: .isDirectory)
        let keySet = Set(keys)

        var allocatedBytes = 0
        var logicalBytes = 0
        var files = 0
        var folders = 0
        var symbolicLinks = 0
        /// Entries that could not be read (reported on standard error) or given resource values.
        var failures = 0

        guard let enumerator = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: keys, options: [],
            errorHandler: { url, error in
                failures += 1
                FileHandle.standardError.write(Data("warning: \(url.path(percentEncoded: false)): \(error)\n".utf8))
                return true  // go on with the rest of the tree
            }
        ) else {
            FileHandle.standardError.write(Data("error: cannot enumerate \(path)\n".utf8))
            exit(1)
        }
        for case let url as URL in enumerator {
            let values: URLResourceValues
            do {
                values = try url.resourceValues(forKeys: keySet)
            } catch {
                failures += 1
                continue
            }
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
