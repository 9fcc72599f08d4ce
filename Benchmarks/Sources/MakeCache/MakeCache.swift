#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BenchmarkSupport

/// `MakeCache DIR [--files N] [--seed S] [--now T] [--repair]`: makes a repeatable cache folder
/// to measure sweeps on, in which least-recently-used order is fully determined (see
/// `CachePlan`), or brings such a folder back to how it was made after a sweep. Used by
/// `Benchmarks/sweep.sh`.
@main
struct MakeCache {
    static let usage = """
        USAGE: MakeCache DIR [--files N] [--seed S] [--now T] [--repair]

        Makes the folder DIR (which must not exist; its parent must) holding 256 folders
        00 ... ff and N files (default 100000) named by 40-digit hexadecimal hashes, as
        content-addressed caches are: 99% of 1-64 KiB (small ones the most common), 1% of
        64 KiB-1 MiB; about 1.4 GB allocated for 100,000 files. Every file has its own
        access time (distinct whole seconds over the 30 days before T, in random order) and
        its own modification time (before its access time). T is in seconds since the epoch
        (default: now). The same N, seed S (default 1) and T make the same folder.

        --repair makes DIR as it would be made with the same N, S and T, whatever a sweep
        left in it (it needs --now; DIR need not exist): it writes the files that are
        missing or of another size, removes whatever does not belong, makes missing folders
        and sets every file's times again. File contents are not checked. That is much
        cheaper than removing what is left and making it all again, or than `cp -a` from a
        copy kept aside (which, on a `relatime` mount, also sets the access times of that
        copy's files to the present as it reads them).
        """

    struct Options {
        var directory = ""
        var files = 100_000
        var seed: UInt64 = 1
        var now: Int?
        var repair = false
    }

    /// What `make` made, for its report.
    struct Stats {
        var files = 0
        var largeFiles = 0
        var logicalBytes = 0
        /// `st_blocks` x 512 of the files, as `du` counts them (the folders not included).
        var allocatedBytes = 0
    }

    /// What `repair` changed, for its report.
    struct Repairs {
        var filesWritten = 0
        /// Files, links or folders that did not belong (a folder counted once with what it held).
        var itemsRemoved = 0
        var foldersMade = 0
    }

    static func main() {
        let options = commandLineOptions(usage: usage, parse)

        let start = ContinuousClock.now
        let now = options.now ?? time(nil)
        do {
            let plan = try CachePlan(count: options.files, seed: options.seed, now: now)
            if options.repair, try FileSystem.status(options.directory) != nil {
                let repairs = try repair(plan, in: options.directory, seed: options.seed)
                print("MakeCache: repaired \(options.directory) in \(fixed(seconds(since: start), 1)) s: "
                      + "wrote \(grouped(repairs.filesWritten)) files, removed \(grouped(repairs.itemsRemoved)) items, "
                      + "made \(grouped(repairs.foldersMade)) folders, set the times of all \(grouped(plan.files.count)) files")
            } else {
                let stats = try make(plan, in: options.directory, seed: options.seed)
                report(stats, plan: plan, options: options, now: now, seconds: seconds(since: start))
            }
        } catch {
            printError("error: \(error)")
            exit(1)
        }
    }

    /// Parses the arguments after the program name; `nil` when help was asked for.
    static func parse(_ arguments: [String]) throws -> Options? {
        var options = Options()
        let parsed = try GeneratorArguments.parse(arguments) { option, remaining in
            switch option {
            case "--now":
                guard let value = remaining.popFirst().flatMap({ Int($0) }), value > CacheShape.accessWindow else {
                    throw UsageError("--now needs a time in seconds since the epoch")
                }
                options.now = value
            case "--repair":
                options.repair = true
            default:
                return false
            }
            return true
        }
        guard let parsed else { return nil }
        if options.repair && options.now == nil {
            throw UsageError("--repair needs the --now the folder was made with")
        }
        options.directory = parsed.directory
        options.files = parsed.files ?? options.files
        options.seed = parsed.seed ?? options.seed
        return options
    }

    /// Makes the root folder, its 256 folders and the files, each with its times.
    static func make(_ plan: CachePlan, in root: String, seed: UInt64) throws -> Stats {
        try FileSystem.makeFolder(root)
        for folder in 0 ..< CacheShape.folderCount {
            try FileSystem.makeFolder(root + "/" + CacheShape.folderName(folder))
        }
        let data = contents(seed: seed)
        var stats = Stats()
        for file in plan.files {
            let path = root + "/" + file.path
            try FileSystem.writeFile(path, size: file.size, from: data)
            // After the writes, which set both times to the present.
            try FileSystem.setTimes(path, access: file.access, modification: file.modification)
            stats.files += 1
            if file.size >= 64 << 10 { stats.largeFiles += 1 }
            stats.logicalBytes += file.size
            stats.allocatedBytes += try FileSystem.allocatedBytes(path)
        }
        return stats
    }

    /// Brings a folder made by `make` back to how `make` left it (see the usage).
    static func repair(_ plan: CachePlan, in root: String, seed: UInt64) throws -> Repairs {
        var repairs = Repairs()
        // The root holds the 256 folders and nothing else.
        let folderNames = (0 ..< CacheShape.folderCount).map(CacheShape.folderName)
        let belongs = Set(folderNames)
        for name in try FileSystem.names(in: root) where !belongs.contains(name) {
            try FileSystem.remove(root + "/" + name)
            repairs.itemsRemoved += 1
        }
        // What the folders hold, by path relative to the root.
        var present = Set<String>()
        for folder in folderNames {
            let path = root + "/" + folder
            let status = try FileSystem.status(path)
            if let status, FileSystem.isFolder(status) {
                for name in try FileSystem.names(in: path) {
                    present.insert(folder + "/" + name)
                }
            } else {
                if status != nil { try FileSystem.remove(path) }  // something else in its place
                try FileSystem.makeFolder(path)
                repairs.foldersMade += 1
            }
        }
        let planned = Set(plan.files.map(\.path))
        for path in present where !planned.contains(path) {
            try FileSystem.remove(root + "/" + path)
            repairs.itemsRemoved += 1
        }

        var data: [UInt8] = []  // made when the first file must be written
        for file in plan.files {
            let path = root + "/" + file.path
            var intact = false
            if present.contains(file.path), let status = try FileSystem.status(path) {
                intact = status.st_mode & S_IFMT == S_IFREG && Int(status.st_size) == file.size
                if !intact { try FileSystem.remove(path) }
            }
            if !intact {
                if data.isEmpty { data = contents(seed: seed) }
                try FileSystem.writeFile(path, size: file.size, from: data)
                repairs.filesWritten += 1
            }
            try FileSystem.setTimes(path, access: file.access, modification: file.modification)
        }
        return repairs
    }

    /// What file contents are cut from: random bytes (not zeros, which some file systems
    /// compress or skip), as many as the largest file.
    static func contents(seed: UInt64) -> [UInt8] {
        var random = SplitMix64(seed: ~seed)
        var data = [UInt8](repeating: 0, count: CacheShape.maximumFileSize)
        for index in stride(from: 0, to: data.count, by: 8) {
            withUnsafeBytes(of: random.next()) { data.replaceSubrange(index ..< index + 8, with: $0) }
        }
        return data
    }

    static func report(_ stats: Stats, plan: CachePlan, options: Options, now: Int, seconds: Double) {
        let accessSeconds = plan.files.map(\.access.tv_sec)
        let oldest = accessSeconds.min() ?? now
        let newest = accessSeconds.max() ?? now
        print("""
            MakeCache: made \(options.directory) in \(fixed(seconds, 1)) s (--files \(options.files) --seed \(options.seed) --now \(now))
              files            \(grouped(stats.files)) in \(CacheShape.folderCount) folders 00-ff, named by hashes: \
            \(grouped(stats.files - stats.largeFiles)) of 1-64 KiB, \(grouped(stats.largeFiles)) of 64 KiB-1 MiB
              logical bytes    \(grouped(stats.logicalBytes)) (\(binary(stats.logicalBytes)))
              allocated bytes  \(grouped(stats.allocatedBytes)) (\(binary(stats.allocatedBytes))) in the files (st_blocks x 512; the folders take more)
              access times     all different, in whole seconds: oldest \(utcDate(oldest)), newest \(utcDate(newest)), in random order
              modified         1 s-12 days before each file's access time, all different
            """)
    }
}
