import BenchmarkSupport

/// The shape of the tree MakeTree makes. The numbers aim at something like an app's data
/// folder or a source checkout: mostly small files, a long tail of large ones, a few links.
enum Shape {
    /// Entries (files, folders and links) in each folder that gets filled.
    static let entriesPerFolder = 20 ... 60
    /// The root is at depth 0; no folder is made below this depth.
    static let maximumDepth = 8
    /// Chance that an entry is a subfolder, while more folders are still needed: about 4 of
    /// 40 entries, so each level has a few times as many folders as the one above.
    static let subfolderPerMillion = 100_000
    /// Chance that a non-folder entry is another name (hard link) for an earlier file.
    static let hardLinkPerMillion = 10_000
    /// Chance that a non-folder entry is a symbolic link.
    static let symbolicLinkPerMillion = 10_000
    /// One sparse file per this many files (at least one), of 64-160 MiB apparent size.
    static let filesPerSparseFile = 40_000
    static let sparseSizes = (64 << 20) ... (160 << 20)

    /// The size of a regular file, in bytes: 85% are 0-4 KiB (a twentieth of those empty),
    /// 14.7% are 4-64 KiB and 0.3% are 64 KiB-4 MiB, the last two log-uniform. That is about
    /// 8 KB a file on average, 1.6 GB for 200,000 files.
    static func fileSize(_ random: inout SplitMix64) -> Int {
        let roll = random.below(1_000_000)
        if roll < 3_000 {
            return random.octaves(from: 64 << 10, count: 6)  // 64 KiB ..< 4 MiB
        } else if roll < 150_000 {
            return random.octaves(from: 4 << 10, count: 4)  // 4 KiB ..< 64 KiB
        } else {
            return random.chance(perMillion: 50_000) ? 0 : random.within(1 ... 4096)
        }
    }

    static let fileStems = ["IMG", "document", "cache", "data", "thumbnail", "log", "index", "blob", "note", "track"]
    static let fileExtensions = ["jpg", "png", "json", "txt", "sqlite", "log", "bin", "plist", "html", "swift"]
    static let folderStems = ["cache", "assets", "Documents", "sessions", "images", "db", "tmp", "lib", "src", "v2"]
}

/// What MakeTree made, for its report.
struct TreeStats {
    /// Regular files, each counted once (sparse ones included; hard links not).
    var files = 0
    var sparseFiles = 0
    var emptyFiles = 0
    /// Files of 4 KiB-64 KiB and of 64 KiB and more (sparse ones not included).
    var mediumFiles = 0
    var largeFiles = 0
    /// Folders below the root, and the depth of the deepest (the root is at 0).
    var folders = 0
    var deepestFolder = 0
    /// Extra names of files counted in `files`.
    var hardLinks = 0
    var symbolicLinksToFiles = 0
    var symbolicLinksToFolders = 0
    var danglingSymbolicLinks = 0
    /// The apparent size of the regular files, each counted once: what `du -b` adds up for them.
    var logicalBytes = 0
    /// The bytes written; the rest of `logicalBytes` is in the holes of sparse files.
    var writtenBytes = 0

    var symbolicLinks: Int { symbolicLinksToFiles + symbolicLinksToFolders + danglingSymbolicLinks }
}

/// Makes the tree: fills folders picked at random among those made but not yet filled, until
/// it has made as many regular files as asked. Everything it does follows from the seed.
struct TreeMaker {
    /// A folder of the tree: its path relative to the root ("" for the root) and its depth.
    struct Folder {
        var relativePath: String
        var depth: Int
    }

    let root: String
    let fileCount: Int
    private(set) var stats = TreeStats()
    private var random: SplitMix64
    /// What file contents are cut from: 1 MiB of random bytes (not zeros, which some file
    /// systems compress or skip).
    private let data: [UInt8]
    /// Relative paths of the regular files made so far (sparse ones excepted), for links.
    private var filePaths: [String] = []
    /// Relative paths of the folders made so far (the root excepted), for links.
    private var folderPaths: [String] = []
    /// Folders made but not filled yet.
    private var pending: [Folder] = []
    private let sparseInterval: Int

    init(root: String, fileCount: Int, seed: UInt64) {
        self.root = root
        self.fileCount = fileCount
        random = SplitMix64(seed: seed)
        var bytes = [UInt8](repeating: 0, count: 1 << 20)
        for index in stride(from: 0, to: bytes.count, by: 8) {
            withUnsafeBytes(of: random.next()) { bytes.replaceSubrange(index ..< index + 8, with: $0) }
        }
        data = bytes
        sparseInterval = max(1, fileCount / max(1, fileCount / Shape.filesPerSparseFile))
    }

    /// Makes the root folder (which must not exist) and everything in it.
    mutating func make() throws {
        try FileSystem.makeFolder(root)
        pending = [Folder(relativePath: "", depth: 0)]
        while stats.files < fileCount {
            if pending.isEmpty {
                // Every folder made is full and files are still missing (the estimate in
                // `needsMoreFolders` fell short): add a folder to the root.
                pending.append(try makeFolder(in: Folder(relativePath: "", depth: 0), name: "more-\(stats.folders)"))
            }
            let folder = pending.remove(at: random.below(pending.count))
            try fill(folder)
        }
    }

    /// Makes the entries of one folder; subfolders are only made, to be filled later.
    private mutating func fill(_ folder: Folder) throws {
        let entries = random.within(Shape.entriesPerFolder)
        for index in 0 ..< entries where stats.files < fileCount {
            if folder.depth < Shape.maximumDepth && needsMoreFolders
                && random.chance(perMillion: Shape.subfolderPerMillion) {
                pending.append(try makeFolder(in: folder, name: "\(random.element(of: Shape.folderStems))-\(index)"))
            } else if !filePaths.isEmpty && random.chance(perMillion: Shape.hardLinkPerMillion) {
                try FileSystem.hardLink(absolute(random.element(of: filePaths)), at: absolute(folder, "link-\(index)"))
                stats.hardLinks += 1
            } else if random.chance(perMillion: Shape.symbolicLinkPerMillion) {
                try makeSymbolicLink(in: folder, name: "alias-\(index)")
            } else {
                let name = "\(random.element(of: Shape.fileStems))-\(index).\(random.element(of: Shape.fileExtensions))"
                if stats.files % sparseInterval == sparseInterval / 2 {
                    try makeSparseFile(in: folder, name: name)
                } else {
                    try makeFile(in: folder, name: name)
                }
                stats.files += 1
            }
        }
    }

    /// Whether the folders waiting to be filled may not hold the files still to make, given
    /// about 36 files a folder (40 entries, less subfolders and links). Without this check
    /// the tree would keep branching to the end and leave most of its folders empty.
    private var needsMoreFolders: Bool {
        (fileCount - stats.files) > pending.count * 36
    }

    private mutating func makeFolder(in parent: Folder, name: String) throws -> Folder {
        let folder = Folder(relativePath: relative(parent, name), depth: parent.depth + 1)
        try FileSystem.makeFolder(absolute(folder.relativePath))
        folderPaths.append(folder.relativePath)
        stats.folders += 1
        stats.deepestFolder = max(stats.deepestFolder, folder.depth)
        return folder
    }

    private mutating func makeFile(in folder: Folder, name: String) throws {
        let size = Shape.fileSize(&random)
        let path = relative(folder, name)
        try FileSystem.writeFile(absolute(path), size: size, from: data)
        filePaths.append(path)
        if size == 0 { stats.emptyFiles += 1 }
        if size >= 64 << 10 { stats.largeFiles += 1 } else if size >= 4 << 10 { stats.mediumFiles += 1 }
        stats.logicalBytes += size
        stats.writtenBytes += size
    }

    /// A sparse file with data in its first block and in one block further on.
    private mutating func makeSparseFile(in folder: Folder, name: String) throws {
        let size = random.within(Shape.sparseSizes)
        let offsets = [0, random.below(size / 4096) * 4096]
        try FileSystem.writeSparseFile(absolute(folder, name), size: size, dataOffsets: offsets, from: data)
        stats.sparseFiles += 1
        stats.logicalBytes += size
        stats.writtenBytes += offsets.count * 4096
    }

    /// A relative symbolic link: half of them to a file, 3 in 10 to a folder (perhaps one
    /// that contains the link: walkers must not follow links), 2 in 10 to nothing.
    private mutating func makeSymbolicLink(in folder: Folder, name: String) throws {
        let roll = random.below(10)
        let target: String
        if roll < 5 && !filePaths.isEmpty {
            target = random.element(of: filePaths)
            stats.symbolicLinksToFiles += 1
        } else if roll < 8 && !folderPaths.isEmpty {
            target = random.element(of: folderPaths)
            stats.symbolicLinksToFolders += 1
        } else {
            target = "missing-\(stats.danglingSymbolicLinks)/gone.txt"
            stats.danglingSymbolicLinks += 1
        }
        // From the link's folder up to the root, then down to the target.
        let up = String(repeating: "../", count: folder.depth)
        try FileSystem.symbolicLink(up + target, at: absolute(folder, name))
    }

    private func relative(_ folder: Folder, _ name: String) -> String {
        folder.relativePath.isEmpty ? name : folder.relativePath + "/" + name
    }

    private func absolute(_ relativePath: String) -> String {
        root + "/" + relativePath
    }

    private func absolute(_ folder: Folder, _ name: String) -> String {
        absolute(relative(folder, name))
    }
}
