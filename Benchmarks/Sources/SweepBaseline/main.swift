import Foundation
import FoundationWalk

/// `SweepBaseline DIR TARGET_BYTES`: sweeps a folder down to a size the common Foundation way, least
/// recently used first, the peer of `stowage sweep` in sweep.sh: it walks (FoundationWalk), sorts the
/// regular files by `contentAccessDate` and removes the oldest with `FileManager.removeItem(at:)` until
/// the files' allocated total is at most TARGET_BYTES. A file's allocated size is its `fileSize` rounded
/// up to 4 KiB (on Linux, Foundation's `totalFileAllocatedSize` is `st_blocks * st_blksize`, 8 times too
/// much on ext4; it is asked for anyway, as such code does, and reported); folders are not counted.
/// Prints one line of JSON; exits 1 if it could not get down to the target.
let arguments = Array(CommandLine.arguments.dropFirst()), target = arguments.count == 2 ? Int(arguments[1]) ?? -1 : -1
var candidates: [(url: URL, accessDate: Date, allocatedBytes: Int)] = [], allocated = 0, foundationAllocated = 0
var failures = FoundationWalk.forEach(target >= 0 ? arguments : [], count: 2, usage: "SweepBaseline DIR TARGET_BYTES",
                                      keys: [.contentAccessDateKey, .totalFileAllocatedSizeKey, .fileSizeKey,
                                             .isRegularFileKey]) { url, values in
    guard values.isRegularFile == true else { return }
    let bytes = ((values.fileSize ?? 0) + 4095) / 4096 * 4096
    candidates.append((url, values.contentAccessDate ?? .distantPast, bytes))
    allocated += bytes
    foundationAllocated += values.totalFileAllocatedSize ?? 0
}
let allocatedBefore = allocated
var filesRemoved = 0
for candidate in candidates.sorted(by: { $0.accessDate < $1.accessDate }) where allocated > target {
    do {
        try FileManager.default.removeItem(at: candidate.url)
        (allocated, filesRemoved) = (allocated - candidate.allocatedBytes, filesRemoved + 1)
    } catch {
        failures += 1
        FileHandle.standardError.write(Data("warning: \(candidate.url.path(percentEncoded: false)): \(error)\n".utf8))
    }
}
print("""
    {"filesRemoved": \(filesRemoved), "bytesFreed": \(allocatedBefore - allocated), "targetBytes": \(target), \
    "filesSeen": \(candidates.count), "allocatedBefore": \(allocatedBefore), "allocatedAfter": \(allocated), \
    "foundationAllocatedBefore": \(foundationAllocated), "failures": \(failures)}
    """)
exit(allocated > target ? 1 : 0)
