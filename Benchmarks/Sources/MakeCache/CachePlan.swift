#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BenchmarkSupport

/// One file of the cache: its path below the root ("3f/9a0c...": a 40-digit hash, its first two
/// digits naming one of the 256 folders 00-ff), its size and its times.
struct CacheFile {
    var path: String, size: Int, access: timespec, modification: timespec
}

/// Every file of the cache, worked out from the number of files, the seed and the time `now` alone,
/// so that MakeCache can bring a swept folder back to the same files and times (`--repair`).
///
/// - Names are unique: their first 64 bits are successive outputs of one SplitMix64.
/// - Sizes: 99% of 1-64 KiB (an octave, 1-2 KiB ... 32-64 KiB, chosen with weights 6, 5, 4, 3, 2, 1,
///   then a size uniformly within it), 1% of 64 KiB-1 MiB: about 1.43 GB allocated for 100,000 files.
/// - Access times are all different, in whole seconds (tools that keep only seconds, or a `Double`,
///   see the same order): the 30 days before `now` are cut into as many slots as files, each file gets
///   a second in its own slot, and the slots are shuffled among the files. Each has random nanoseconds.
/// - Modification times are 1 s to 12 days (log-uniform) before the access time, all different (their
///   nanoseconds are the file's index): a sweep by the later of the two goes in the same order.
struct CachePlan {
    static let folders = 256, accessWindow = 30 * 86_400, maximumFileSize = 1 << 20
    let files: [CacheFile]

    init(count: Int, seed: UInt64, now: Int) throws {
        guard count <= Self.accessWindow else {
            throw UsageError("\(count) files do not get distinct whole-second access times within 30 days")
        }
        // Separate streams for names, sizes and times, so that each follows from the seed alone.
        var seeds = SplitMix64(seed: seed)
        var names = SplitMix64(seed: seeds.next()), sizes = SplitMix64(seed: seeds.next())
        var times = SplitMix64(seed: seeds.next())
        let windowStart = now - Self.accessWindow
        var accessSeconds = (0 ..< count).map { slot in
            let lower = slot * Self.accessWindow / count, upper = (slot + 1) * Self.accessWindow / count
            return windowStart + lower + times.below(upper - lower)
        }
        times.shuffle(&accessSeconds)
        files = (0 ..< count).map { index in
            let hash = hex(names.next(), digits: 16) + hex(names.next(), digits: 16) + hex(names.next() >> 32, digits: 8)
            let access = timespec(tv_sec: accessSeconds[index], tv_nsec: times.below(1_000_000_000))
            let age = 1 + times.octaves(from: 1, count: 20)  // 1 s ..< 2^20 s (12 days)
            return CacheFile(path: "\(hash.prefix(2))/\(hash.dropFirst(2))", size: Self.fileSize(&sizes), access: access,
                             modification: timespec(tv_sec: access.tv_sec - age, tv_nsec: index))
        }
    }

    static func fileSize(_ random: inout SplitMix64) -> Int {
        if random.chance(perMillion: 10_000) { return random.octaves(from: 64 << 10, count: 4) }  // 64 KiB ..< 1 MiB
        var (roll, octave) = (random.below(21), 0)  // 6 + 5 + 4 + 3 + 2 + 1
        while roll >= 6 - octave { (roll, octave) = (roll - (6 - octave), octave + 1) }
        let start = 1024 << octave  // 1 KiB ..< 64 KiB
        return start + random.below(start)
    }
}

/// `value` as `digits` lowercase hexadecimal digits (its low 4 x `digits` bits, zero-padded).
func hex(_ value: UInt64, digits: Int) -> String {
    let alphabet = Array("0123456789abcdef".utf8)
    return String(decoding: (0 ..< digits).map { alphabet[Int(value >> (4 * UInt64(digits - 1 - $0)) & 0xF)] }, as: UTF8.self)
}
