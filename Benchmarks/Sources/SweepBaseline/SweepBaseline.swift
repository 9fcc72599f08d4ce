import Foundation
import FoundationWalk

/// `SweepBaseline DIR TARGET_BYTES`: sweeps a folder down to a size the common Foundation
/// way, least recently used first, as the peer that `stowage sweep` is measured against in
/// `Benchmarks/sweep.sh`.
///
/// It walks with `FileManager.default.enumerator(at:includingPropertiesForKeys:)`, asks each
/// URL for its `resourceValues(forKeys:)`, sorts the regular files by `contentAccessDate`, and
/// removes the oldest with `FileManager.removeItem(at:)` until the files' allocated total is
/// at most TARGET_BYTES, as apps and answers on the web usually do.
///
/// The allocated size of a file is its `fileSize` rounded up to a multiple of 4 KiB (the
/// block size of ext4, APFS and most others): on Linux, swift-corelibs-foundation reports
/// `totalFileAllocatedSize` as `st_blocks * st_blksize` instead of `st_blocks * 512`, 8 times
/// too much on ext4. For files without holes that rounding equals `du`'s count. The folders'
/// own blocks are not counted, as in most such code. It asks for `totalFileAllocatedSize`
/// anyway, as that code does, and reports Foundation's total next to its own.
///
/// Prints one line of JSON: `filesRemoved`, `bytesFreed`, the totals before and after, and the
/// counts it saw.
@main
struct SweepBaseline {
    static let keys: [URLResourceKey] = [
        .contentAccessDateKey, .totalFileAllocatedSizeKey, .fileSizeKey, .isRegularFileKey,
    ]

    /// A regular file, a candidate for removal.
    struct Candidate {
        var url: URL
        var accessDate: Date
        var allocatedBytes: Int
    }

    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count == 2, !arguments[0].hasPrefix("-"), let target = Int(arguments[1]), target >= 0 else {
            FileHandle.standardError.write(Data("USAGE: SweepBaseline DIR TARGET_BYTES\n".utf8))
            exit(2)
        }
        let path = arguments[0]
        let root = FoundationWalk.folder(path)

        // MARK: Gather

        var candidates: [Candidate] = []
        var allocatedBefore = 0
        /// What Foundation says the files take (see above): for the report only.
        var foundationAllocatedBefore = 0
        /// Entries that could not be read (reported on standard error) or removed.
        var failures = FoundationWalk.forEach(in: root, keys: keys) { url, values in
            guard values.isRegularFile == true else { return }
            let allocated = ((values.fileSize ?? 0) + 4095) / 4096 * 4096
            candidates.append(Candidate(url: url, accessDate: values.contentAccessDate ?? .distantPast,
                                        allocatedBytes: allocated))
            allocatedBefore += allocated
            foundationAllocatedBefore += values.totalFileAllocatedSize ?? 0
        }

        // MARK: Sweep, least recently used first

        candidates.sort { $0.accessDate < $1.accessDate }
        var allocated = allocatedBefore
        var filesRemoved = 0
        var bytesFreed = 0
        for candidate in candidates {
            if allocated <= target { break }
            do {
                try FileManager.default.removeItem(at: candidate.url)
            } catch {
                failures += 1
                FileHandle.standardError.write(Data("warning: \(candidate.url.path(percentEncoded: false)): \(error)\n".utf8))
                continue
            }
            allocated -= candidate.allocatedBytes
            bytesFreed += candidate.allocatedBytes
            filesRemoved += 1
        }

        print("""
            {"filesRemoved": \(filesRemoved), "bytesFreed": \(bytesFreed), "targetBytes": \(target), \
            "filesSeen": \(candidates.count), "allocatedBefore": \(allocatedBefore), "allocatedAfter": \(allocated), \
            "foundationAllocatedBefore": \(foundationAllocatedBefore), "failures": \(failures)}
            """)
        if allocated > target { exit(1) }
    }
}
