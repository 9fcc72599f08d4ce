#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BenchmarkSupport

/// `MakeTree DIR [--files N] [--seed S]`: makes a realistic, repeatable tree of files to measure usage
/// scans on, something like an app's data folder or a source checkout. Used by usage.sh.
@main
struct MakeTree {
    static let usage = """
        USAGE: MakeTree DIR [--files N] [--seed S]

        Makes the folder DIR (which must not exist; its parent must) and fills it with N regular files
        (default 200000) in nested folders 20-60 entries wide and up to 8 deep: mostly files of 0-4 KiB,
        some of 4-64 KiB, a few of 64 KiB-4 MiB, about 1 sparse file of 64-160 MiB per 40000 files, plus
        hard links and symbolic links (to files, to folders, dangling), about 1% each. The same N and
        seed S (default 1) make the same tree. Prints what it made.
        """

    static func main() {
        let arguments = commandLineOptions(usage: usage) { try GeneratorArguments.parse($0) }
        var maker = TreeMaker(root: arguments.directory, fileCount: arguments.files ?? 200_000, seed: arguments.seed ?? 1)
        let start = ContinuousClock.now
        do { try maker.make() } catch {
            printError("error: \(error)")
            exit(1)
        }
        let stats = maker.stats, files = stats.files
        let small = files - stats.emptyFiles - stats.mediumFiles - stats.largeFiles - stats.sparseFiles
        print("""
            MakeTree: made \(maker.root) in \(fixed(seconds(since: start), 1)) s (--files \(files) --seed \(arguments.seed ?? 1))
              files           \(grouped(files)) regular: \(grouped(small)) of 1 B-4 KiB, \(grouped(stats.emptyFiles)) empty, \
            \(grouped(stats.mediumFiles)) of 4-64 KiB, \(grouped(stats.largeFiles)) of 64 KiB-4 MiB, \(grouped(stats.sparseFiles)) sparse
              folders         \(grouped(stats.folders)) below the root, the deepest at depth \(stats.deepestFolder)
              hard links      \(grouped(stats.hardLinks)) (extra names for some of the files above)
              symbolic links  \(grouped(stats.linksToFiles + stats.linksToFolders + stats.danglingLinks)): \
            \(grouped(stats.linksToFiles)) to files, \(grouped(stats.linksToFolders)) to folders, \(grouped(stats.danglingLinks)) dangling
              logical bytes   \(grouped(stats.logicalBytes)) (\(binary(stats.logicalBytes))) in regular files, each counted once
              written bytes   \(grouped(stats.writtenBytes)) (\(binary(stats.writtenBytes))); the rest is in the holes of sparse files
            """)
    }
}

/// What MakeTree made: regular files each counted once (sparse ones included, hard links not), by size.
struct TreeStats {
    var files = 0, sparseFiles = 0, emptyFiles = 0, mediumFiles = 0, largeFiles = 0
    var folders = 0, deepestFolder = 0, hardLinks = 0, linksToFiles = 0, linksToFolders = 0, danglingLinks = 0
    /// The apparent size of the regular files (what `du -b` adds up for them), and the bytes written.
    var logicalBytes = 0, writtenBytes = 0
}

/// Makes the tree: fills folders picked at random among those made but not yet filled, until it has
/// made as many regular files as asked. Everything it does follows from the seed.
struct TreeMaker {
    /// Entries (files, folders, links) of a folder filled, and no folder below depth 8 (the root is 0).
    static let entriesPerFolder = 20 ... 60, maximumDepth = 8
    /// Chances: an entry is a subfolder, while more are needed (about 4 of 40 entries); a non-folder
    /// entry is a hard link to an earlier file; or a symbolic link.
    static let subfolderPerMillion = 100_000, hardLinkPerMillion = 10_000, symbolicLinkPerMillion = 10_000
    /// One sparse file per this many files (at least one), of 64-160 MiB apparent size.
    static let filesPerSparseFile = 40_000, sparseSizes = (64 << 20) ... (160 << 20)
    static let fileStems = ["IMG", "document", "cache", "data", "thumbnail", "log", "index", "blob", "note", "track"]
    static let fileExtensions = ["jpg", "png", "json", "txt", "sqlite", "log", "bin", "plist", "html", "swift"]
    static let folderStems = ["cache", "assets", "Documents", "sessions", "images", "db", "tmp", "lib", "src", "v2"]

    /// A folder: its path relative to the root ("" for the root) and its depth.
    struct Folder { var relativePath: String, depth: Int }

    let root: String, fileCount: Int
    private(set) var stats = TreeStats()
    private var random: SplitMix64
    /// What file contents are cut from: 1 MiB of random bytes (not zeros, which some file systems skip).
    private let data: [UInt8]
    /// Regular files (sparse ones excepted) and folders made so far, for links; folders not filled yet.
    private var filePaths: [String] = [], folderPaths: [String] = [], pending: [Folder] = []
    private let sparseInterval: Int

    init(root: String, fileCount: Int, seed: UInt64) {
        (self.root, self.fileCount, random) = (root, fileCount, SplitMix64(seed: seed))
        var bytes: [UInt8] = []
        for _ in 0 ..< (1 << 20) / 8 { withUnsafeBytes(of: random.next()) { bytes += $0 } }
        data = bytes
        sparseInterval = max(1, fileCount / max(1, fileCount / Self.filesPerSparseFile))
    }

    /// The size of a regular file: 85% of 0-4 KiB (a twentieth of those empty), 14.7% of 4-64 KiB and
    /// 0.3% of 64 KiB-4 MiB, the last two log-uniform: about 8 KB a file, 1.6 GB for 200,000 files.
    mutating func fileSize() -> Int {
        let roll = random.below(1_000_000)
        if roll < 3_000 { return random.octaves(from: 64 << 10, count: 6) }  // 64 KiB ..< 4 MiB
        if roll < 150_000 { return random.octaves(from: 4 << 10, count: 4) }  // 4 KiB ..< 64 KiB
        return random.chance(perMillion: 50_000) ? 0 : random.within(1 ... 4096)
    }

    /// Makes the root folder (which must not exist) and everything in it.
    mutating func make() throws {
        try FileSystem.makeFolder(root)
        pending = [Folder(relativePath: "", depth: 0)]
        while stats.files < fileCount {
            if pending.isEmpty {  // every folder made is full, files are still missing: one more in the root
                pending.append(try makeFolder(in: Folder(relativePath: "", depth: 0), name: "more-\(stats.folders)"))
            }
            try fill(pending.remove(at: random.below(pending.count)))
        }
    }

    /// Makes the entries of one folder; subfolders are only made, to be filled later.
    private mutating func fill(_ folder: Folder) throws {
        for index in 0 ..< random.within(Self.entriesPerFolder) where stats.files < fileCount {
            // Folders waiting to be filled may not hold the files still to make, at about 36 files a
            // folder: without this the tree would keep branching and leave most of its folders empty.
            if folder.depth < Self.maximumDepth && fileCount - stats.files > pending.count * 36
                && random.chance(perMillion: Self.subfolderPerMillion) {
                pending.append(try makeFolder(in: folder, name: "\(random.element(of: Self.folderStems))-\(index)"))
            } else if !filePaths.isEmpty && random.chance(perMillion: Self.hardLinkPerMillion) {
                try FileSystem.hardLink(root + "/" + random.element(of: filePaths), at: path(folder, "link-\(index)"))
                stats.hardLinks += 1
            } else if random.chance(perMillion: Self.symbolicLinkPerMillion) {
                try makeSymbolicLink(in: folder, name: "alias-\(index)")
            } else {
                let name = "\(random.element(of: Self.fileStems))-\(index).\(random.element(of: Self.fileExtensions))"
                if stats.files % sparseInterval == sparseInterval / 2 {  // data in its first block and one further on
                    let size = random.within(Self.sparseSizes), offsets = [0, random.below(size / 4096) * 4096]
                    try FileSystem.writeSparseFile(path(folder, name), size: size, dataOffsets: offsets, from: data)
                    (stats.sparseFiles, stats.logicalBytes, stats.writtenBytes) =
                        (stats.sparseFiles + 1, stats.logicalBytes + size, stats.writtenBytes + offsets.count * 4096)
                } else {
                    let size = fileSize()
                    try FileSystem.writeFile(path(folder, name), size: size, from: data)
                    filePaths.append(relative(folder, name))
                    if size == 0 { stats.emptyFiles += 1 }
                    if size >= 64 << 10 { stats.largeFiles += 1 } else if size >= 4 << 10 { stats.mediumFiles += 1 }
                    (stats.logicalBytes, stats.writtenBytes) = (stats.logicalBytes + size, stats.writtenBytes + size)
                }
                stats.files += 1
            }
        }
    }

    private mutating func makeFolder(in parent: Folder, name: String) throws -> Folder {
        let folder = Folder(relativePath: relative(parent, name), depth: parent.depth + 1)
        try FileSystem.makeFolder(root + "/" + folder.relativePath)
        folderPaths.append(folder.relativePath)
        (stats.folders, stats.deepestFolder) = (stats.folders + 1, max(stats.deepestFolder, folder.depth))
        return folder
    }

    /// A relative symbolic link: half of them to a file, 3 in 10 to a folder (perhaps one that contains
    /// the link: walkers must not follow links), 2 in 10 to nothing.
    private mutating func makeSymbolicLink(in folder: Folder, name: String) throws {
        let roll = random.below(10), target: String
        if roll < 5 && !filePaths.isEmpty {
            (target, stats.linksToFiles) = (random.element(of: filePaths), stats.linksToFiles + 1)
        } else if roll < 8 && !folderPaths.isEmpty {
            (target, stats.linksToFolders) = (random.element(of: folderPaths), stats.linksToFolders + 1)
        } else {
            (target, stats.danglingLinks) = ("missing-\(stats.danglingLinks)/gone.txt", stats.danglingLinks + 1)
        }
        // From the link's folder up to the root, then down to the target.
        try FileSystem.symbolicLink(String(repeating: "../", count: folder.depth) + target, at: path(folder, name))
    }

    private func relative(_ folder: Folder, _ name: String) -> String {
        folder.relativePath.isEmpty ? name : folder.relativePath + "/" + name
    }

    private func path(_ folder: Folder, _ name: String) -> String { root + "/" + relative(folder, name) }
}
