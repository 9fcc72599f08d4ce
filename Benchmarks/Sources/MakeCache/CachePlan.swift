#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BenchmarkSupport

/// The shape of the cache MakeCache makes: a content-addressed cache like Git's objects or a
/// package manager's download cache, with 256 folders `00` ... `ff` and files named by the
/// rest of a 40-digit hexadecimal hash.
enum CacheShape {
    /// Folders `00` ... `ff`; a file goes into the one named by its hash's first two digits.
    static let folderCount = 256
    /// Access times are spread over this many seconds before `now`: 30 days.
    static let accessWindow = 30 * 86_400
    /// Chance that a file is one of the larger ones, of 64 KiB-1 MiB (log-uniform).
    static let largePerMillion = 10_000

    /// The size of a file, in bytes. 99% are of 1-64 KiB: an octave (1-2 KiB, 2-4 KiB, ...,
    /// 32-64 KiB) chosen with weights 6, 5, 4, 3, 2, 1, so that small files are the most
    /// common, then a size uniformly within it; 1% are of 64 KiB-1 MiB. That is about 12.5 KB
    /// a file on average: 1.23 GB for 100,000 files, 1.43 GB allocated.
    static func fileSize(_ random: inout SplitMix64) -> Int {
        if random.chance(perMillion: largePerMillion) {
            return random.octaves(from: 64 << 10, count: 4)  // 64 KiB ..< 1 MiB
        }
        var roll = random.below(21)  // 6 + 5 + 4 + 3 + 2 + 1
        var octave = 0
        while roll >= 6 - octave {
            roll -= 6 - octave
            octave += 1
        }
        let start = 1024 << octave  // 1 KiB ..< 64 KiB
        return start + random.below(start)
    }

    /// The largest file `fileSize` gives.
    static let maximumFileSize = 1 << 20

    /// The folder of the file with this hash: its first two digits.
    static func folderName(_ index: Int) -> String {
        hex(UInt64(index), digits: 2)
    }
}

/// One file of the cache: where it goes, how big it is, and its times.
struct CacheFile {
    /// Relative to the cache's root: "3f/9a0c...", 2 + 1 + 38 characters.
    var path: String
    var size: Int
    var access: timespec
    var modification: timespec
}

/// Every file of the cache, worked out from the number of files, the seed and the time `now`
/// alone; so MakeCache can later bring a swept folder back to the same files and times (see
/// `MakeCache --repair`).
///
/// - Names are unique: their first 64 bits are successive outputs of one SplitMix64, which
///   never repeats within 2^64 draws.
/// - Access times are all different, in whole seconds (so tools that keep only seconds, or a
///   `Double`, see the same order): the 30 days before `now` are cut into as many equal slots
///   as files, each file gets a second in its own slot, and the slots are shuffled among the
///   files, so the order of access is unrelated to names or to the order of creation. Each
///   also has random nanoseconds.
/// - Modification times are 1 s to 12 days (log-uniform) before the file's access time: the
///   file was written, then read later. They are all different too, as their nanoseconds are
///   the file's index. Since every file was modified before it was accessed, a sweep that goes
///   by the later of the two times removes files in the same order as one that goes by access.
struct CachePlan {
    let files: [CacheFile]

    struct TooManyFiles: Error, CustomStringConvertible {
        var count: Int
        var description: String {
            "\(count) files do not get distinct whole-second access times within 30 days (at most \(CacheShape.accessWindow))"
        }
    }

    init(count: Int, seed: UInt64, now: Int) throws {
        guard count <= CacheShape.accessWindow else { throw TooManyFiles(count: count) }
        // Separate streams for names, sizes and times, so that each follows from the seed alone.
        var seeds = SplitMix64(seed: seed)
        var names = SplitMix64(seed: seeds.next())
        var sizes = SplitMix64(seed: seeds.next())
        var times = SplitMix64(seed: seeds.next())

        // Access times: one second in each slot of the window, then shuffled.
        let windowStart = now - CacheShape.accessWindow
        var accessSeconds = (0 ..< count).map { slot in
            let lower = slot * CacheShape.accessWindow / count
            let upper = (slot + 1) * CacheShape.accessWindow / count
            return windowStart + lower + times.below(upper - lower)
        }
        times.shuffle(&accessSeconds)

        var files: [CacheFile] = []
        files.reserveCapacity(count)
        for index in 0 ..< count {
            let first = names.next()
            let hash = hex(first, digits: 16) + hex(names.next(), digits: 16) + hex(names.next() >> 32, digits: 8)
            let access = timespec(tv_sec: accessSeconds[index], tv_nsec: times.below(1_000_000_000))
            let age = 1 + times.octaves(from: 1, count: 20)  // 1 s ..< 2^20 s (12 days)
            let modification = timespec(tv_sec: access.tv_sec - age, tv_nsec: index)
            files.append(CacheFile(
                path: "\(hash.prefix(2))/\(hash.dropFirst(2))", size: CacheShape.fileSize(&sizes),
                access: access, modification: modification))
        }
        self.files = files
    }
}

/// `value` as `digits` lowercase hexadecimal digits (its low 4 x `digits` bits, zero-padded).
func hex(_ value: UInt64, digits: Int) -> String {
    let alphabet = Array("0123456789abcdef".utf8)
    var bytes = [UInt8](repeating: 0, count: digits)
    var rest = value
    for position in stride(from: digits - 1, through: 0, by: -1) {
        bytes[position] = alphabet[Int(rest & 0xF)]
        rest >>= 4
    }
    return String(decoding: bytes, as: UTF8.self)
}
