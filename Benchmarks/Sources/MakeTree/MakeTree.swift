#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BenchmarkSupport

/// `MakeTree DIR [--files N] [--seed S]`: makes a realistic, repeatable tree of files to
/// measure usage scans on (see `Shape` for what it contains). Used by `Benchmarks/usage.sh`.
@main
struct MakeTree {
    static let usage = """
        USAGE: MakeTree DIR [--files N] [--seed S]

        Makes the folder DIR (which must not exist; its parent must) and fills it with N
        regular files (default 200000) in nested folders 20-60 entries wide and up to 8
        deep: mostly files of 0-4 KiB, some of 4-64 KiB, a few of 64 KiB-4 MiB, about 1
        sparse file of 64-160 MiB per 40000 files, plus hard links and symbolic links (to
        files, to folders, dangling), about 1% each. The same N and seed S (default 1)
        make the same tree. Prints what it made.
        """

    struct Options {
        var directory = ""
        var files = 200_000
        var seed: UInt64 = 1
    }

    static func main() {
        let options = commandLineOptions(usage: usage, parse)

        var maker = TreeMaker(root: options.directory, fileCount: options.files, seed: options.seed)
        let start = ContinuousClock.now
        do {
            try maker.make()
        } catch {
            printError("error: \(error)")
            exit(1)
        }
        report(maker.stats, options: options, seconds: seconds(since: start))
    }

    /// Parses the arguments after the program name; `nil` when help was asked for.
    static func parse(_ arguments: [String]) throws -> Options? {
        guard let parsed = try GeneratorArguments.parse(arguments) else { return nil }
        var options = Options()
        options.directory = parsed.directory
        options.files = parsed.files ?? options.files
        options.seed = parsed.seed ?? options.seed
        return options
    }

    static func report(_ stats: TreeStats, options: Options, seconds: Double) {
        let regular = stats.files - stats.emptyFiles - stats.mediumFiles - stats.largeFiles - stats.sparseFiles
        print("""
            MakeTree: made \(options.directory) in \(fixed(seconds, 1)) s (--files \(options.files) --seed \(options.seed))
              files           \(grouped(stats.files)) regular: \(grouped(regular)) of 1 B-4 KiB, \(grouped(stats.emptyFiles)) empty, \
            \(grouped(stats.mediumFiles)) of 4-64 KiB, \(grouped(stats.largeFiles)) of 64 KiB-4 MiB, \(grouped(stats.sparseFiles)) sparse
              folders         \(grouped(stats.folders)) below the root, the deepest at depth \(stats.deepestFolder)
              hard links      \(grouped(stats.hardLinks)) (extra names for some of the files above)
              symbolic links  \(grouped(stats.symbolicLinks)): \(grouped(stats.symbolicLinksToFiles)) to files, \
            \(grouped(stats.symbolicLinksToFolders)) to folders, \(grouped(stats.danglingSymbolicLinks)) dangling
              logical bytes   \(grouped(stats.logicalBytes)) (\(binary(stats.logicalBytes))) in regular files, each counted once
              written bytes   \(grouped(stats.writtenBytes)) (\(binary(stats.writtenBytes))); the rest is in the holes of sparse files
            """)
    }
}
