#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BenchmarkSupport

/// Makes a repeatable cache folder to measure sweeps on, in which least-recently-used order is fully
/// determined (see `CachePlan`), or brings such a folder back to how it was made. Used by sweep.sh and watch.sh.
@main
struct MakeCache {
    static let usage = """
        USAGE: MakeCache DIR [--files N] [--seed S] [--now T] [--repair]

        Makes the folder DIR (which must not exist; its parent must) holding 256 folders 00 ... ff and
        N files (default 100000) named by 40-digit hexadecimal hashes, as content-addressed caches are:
        99% of 1-64 KiB, 1% of 64 KiB-1 MiB; about 1.4 GB allocated for 100,000 files. Every file has
        its own access time (distinct whole seconds over the 30 days before T, in random order) and its
        own modification time (before its access time). T is in seconds since the epoch (default: now).
        The same N, seed S (default 1) and T make the same folder.

        --repair makes DIR as it would be made with the same N, S and T, whatever a sweep left in it (it
        needs --now; DIR need not exist): it writes the files missing or of another size, removes what
        does not belong, makes missing folders and sets every file's times again (contents unchecked).
        """

    static func main() {
        var now: Int?, repair = false
        let arguments = commandLineOptions(usage: usage) { arguments in
            try GeneratorArguments.parse(arguments) { option, remaining in
                switch option {
                case "--now":
                    guard let value = remaining.popFirst().flatMap({ Int($0) }), value > CachePlan.accessWindow else {
                        throw UsageError("--now needs a time in seconds since the epoch")
                    }
                    now = value
                case "--repair": repair = true
                default: return false
                }
                return true
            }
        }
        if repair && now == nil { printError("error: --repair needs the --now the folder was made with"); exit(2) }
        let (root, files, seed, start) = (arguments.directory, arguments.files ?? 100_000, arguments.seed ?? 1, ContinuousClock.now)
        let moment = now ?? time(nil)
        do {
            let plan = try CachePlan(count: files, seed: seed, now: moment)
            if repair, try FileSystem.status(root) != nil {
                let (written, removed, made) = try Self.repair(plan, in: root, seed: seed)
                print("MakeCache: repaired \(root) in \(fixed(seconds(since: start), 1)) s: wrote \(grouped(written)) files, "
                      + "removed \(grouped(removed)) items, made \(grouped(made)) folders, set the times of all \(grouped(files)) files")
                return
            }
            try FileSystem.makeFolder(root)
            for folder in 0 ..< CachePlan.folders { try FileSystem.makeFolder(root + "/" + hex(UInt64(folder), digits: 2)) }
            let data = contents(seed: seed)
            var allocated = 0
            for file in plan.files {
                try FileSystem.writeFile(root + "/" + file.path, size: file.size, from: data)
                // After the writes, which set both times to the present.
                try FileSystem.setTimes(root + "/" + file.path, access: file.access, modification: file.modification)
                allocated += try FileSystem.allocatedBytes(root + "/" + file.path)
            }
            let large = plan.files.filter { $0.size >= 64 << 10 }.count, logical = plan.files.reduce(0) { $0 + $1.size }
            let accessSeconds = plan.files.map(\.access.tv_sec)
            print("""
                MakeCache: made \(root) in \(fixed(seconds(since: start), 1)) s (--files \(files) --seed \(seed) --now \(moment))
                  files            \(grouped(files)) in 256 folders 00-ff, named by hashes: \(grouped(files - large)) of 1-64 KiB, \
                \(grouped(large)) of 64 KiB-1 MiB
                  logical bytes    \(grouped(logical)) (\(binary(logical)))
                  allocated bytes  \(grouped(allocated)) (\(binary(allocated))) in the files (st_blocks x 512; the folders take more)
                  access times     all different, in whole seconds: oldest \(utcDate(accessSeconds.min() ?? moment)), \
                newest \(utcDate(accessSeconds.max() ?? moment)), in random order
                  modified         1 s-12 days before each file's access time, all different
                """)
        } catch {
            printError("error: \(error)")
            exit(1)
        }
    }

    /// Brings a folder made as above back to how it was made; how many files it wrote, items it removed
    /// (a folder counted once with what it held) and folders it made.
    static func repair(_ plan: CachePlan, in root: String, seed: UInt64) throws -> (Int, Int, Int) {
        var (written, removed, made) = (0, 0, 0)
        let folders = (0 ..< CachePlan.folders).map { hex(UInt64($0), digits: 2) }, belongs = Set(folders)
        for name in try FileSystem.names(in: root) where !belongs.contains(name) {  // the root holds the folders alone
            try FileSystem.remove(root + "/" + name)
            removed += 1
        }
        var present = Set<String>()  // what the folders hold, by path below the root
        for folder in folders {
            let status = try FileSystem.status(root + "/" + folder)
            if let status, FileSystem.isFolder(status) {
                for name in try FileSystem.names(in: root + "/" + folder) { present.insert(folder + "/" + name) }
            } else {
                if status != nil { try FileSystem.remove(root + "/" + folder) }  // something else in its place
                try FileSystem.makeFolder(root + "/" + folder)
                made += 1
            }
        }
        let planned = Set(plan.files.map(\.path))
        for path in present where !planned.contains(path) {
            try FileSystem.remove(root + "/" + path)
            removed += 1
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
                written += 1
            }
            try FileSystem.setTimes(path, access: file.access, modification: file.modification)
        }
        return (written, removed, made)
    }

    /// What file contents are cut from: random bytes (not zeros, which some file systems compress or
    /// skip), as many as the largest file.
    static func contents(seed: UInt64) -> [UInt8] {
        var random = SplitMix64(seed: ~seed)
        return (0 ..< CachePlan.maximumFileSize / 8).flatMap { _ in withUnsafeBytes(of: random.next()) { Array($0) } }
    }
}
