import Foundation
import FoundationWalk

/// `UsageBaseline DIR`: the size of a tree the common Foundation way, the peer of `stowage usage` in
/// usage.sh: it sums `fileSize` (logical) and `totalFileAllocatedSize` (allocated) of the regular files.
/// Like most such code it counts a file once per hard link, leaves out the folders' own size and does not
/// follow symbolic links, so its totals are close to du's, not equal; on Linux swift-corelibs-foundation
/// even reports allocated sizes as `st_blocks * st_blksize` (8 times too much on ext4). It is here for its
/// speed and memory. Prints one line of JSON: `allocatedBytes`, `logicalBytes` and the counts it saw.
var (allocatedBytes, logicalBytes, files, folders, symbolicLinks) = (0, 0, 0, 0, 0)
let failures = FoundationWalk.forEach(Array(CommandLine.arguments.dropFirst()), count: 1, usage: "UsageBaseline DIR",
                                      keys: [.isRegularFileKey, .isDirectoryKey, .isSymbolicLinkKey, .fileSizeKey,
                                             .totalFileAllocatedSizeKey]) { _, values in
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
