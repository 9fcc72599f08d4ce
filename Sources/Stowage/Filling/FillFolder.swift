import Foundation

/// The folder a fill keeps its files in, `.stowage-fill` inside the folder filled, and what can
/// be done with it afterwards: see what is filled (``status()``) and give the space back
/// (``release(bytes:)``).
///
/// Every fill file carries the fill's marker (an extended attribute) from its creation and is
/// named in the folder's manifest, with its inode, right after; so a release, even after the
/// filling process was killed, removes exactly the files a fill made: anything else found in
/// the folder is reported and left alone.
public struct FillFolder: Sendable, Hashable {
    /// The fill folder's name in the folder filled.
    public static let name = RelativePath.reservedPrefix + "fill"

    /// The folder that was filled (the parent of the fill folder).
    public let parent: URL

    /// The fill folder inside `parent`.
    public var url: URL { parent.appending(path: Self.name, directoryHint: .isDirectory) }

    var path: String { url.fileSystemPath }

    /// The fill folder in `parent`, which need not exist yet.
    public init(in parent: URL) { self.parent = parent }

    // MARK: Status

    /// What is filled in this folder, or `nil` when nothing is.
    ///
    /// - Throws: ``StowageError/Code/decodingFailed`` for a damaged manifest that cannot be
    ///   rebuilt; errors reading the folder, naming it.
    public func status() throws -> FillStatus? {
        try perform(.inspect) {
            guard let folder = try openIfPresent(for: .inspect) else { return nil }
            let isFilling = !(try folder.tryLock(exclusive: false))
            if !isFilling { folder.unlock() }
            let manifest = try loadManifest(in: folder, rebuildingIfDamaged: false)
            var ours: Set<String> = [FillManifest.fileName]
            var allocated: Int64 = 0
            for entry in manifest.files {
                guard let status = try verifiedStatus(of: entry, in: folder, ofFill: manifest.id) else { continue }
                ours.insert(entry.name)
                allocated += status.allocatedSize
            }
            let figures = try folder.spaceFigures()
            // Foreign: everything but the fill's own files, its manifest and writes in progress
            // (a file replaced under a fill file's name included).
            let foreign = try folder.entryNames()
                .filter { !($0.isUTF8 && (ours.contains($0.description) || TemporaryItem.isTemporary($0.description))) }
                .sorted().map(\.description)
            return FillStatus(folder: path, fileCount: ours.count - 1, allocatedBytes: allocated,
                              availableBytesBefore: manifest.availableBefore, availableBytes: figures.available,
                              foreignEntries: foreign, isFilling: isFilling)
        }
    }

    func perform<T>(_ operation: StowageError.Operation, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SystemCallError {
            throw StowageError(error, operation: operation, path: path)
        }
    }
}

/// What a fill folder holds: see ``FillFolder/status()``.
public struct FillStatus: Sendable, Hashable, Codable {
    /// The fill folder.
    public var folder: String
    /// The fill files in it.
    public var fileCount: Int
    /// Their allocated bytes: what a release gives back.
    public var allocatedBytes: Int64
    /// The volume's available bytes when the first fill into this folder began.
    public var availableBytesBefore: Int64
    /// The volume's available bytes now.
    public var availableBytes: Int64
    /// Entries in the folder that no fill made; a release leaves them alone.
    public var foreignEntries: [String]
    /// Whether a fill is running in the folder now (it holds the folder's lock).
    public var isFilling: Bool
}
