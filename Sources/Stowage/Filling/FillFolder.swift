import Foundation

/// The folder a fill keeps its files in, `.stowage-fill` inside the folder filled, and what can
/// be done with it afterwards: see what is filled (``status()``) and give the space back
/// (``release(amount:)``).
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

    // MARK: Release

    /// Gives back the space of the fill: all of it, or at least `amount` bytes (whole files
    /// removed from the newest, the last one shrunk), and removes the fill folder once it
    /// holds nothing.
    ///
    /// Only files the manifest names that are still the files the fill made (the same device
    /// and inode and, where the file system keeps extended attributes, the fill's marker) are
    /// removed or shrunk; they are removed by the one removal walk, which checks each again just
    /// before unlinking it. Works after the filling process crashed.
    ///
    /// - Throws: ``StowageError/Code/busy`` while a fill is running in this folder;
    ///   ``StowageError/Code/invalidArgument`` for a negative amount;
    ///   ``StowageError/Code/decodingFailed`` for a damaged manifest (or one naming anything but
    ///   a fill file's name) on a file system without markers to rebuild it from; the error of
    ///   a fill file that cannot be removed, naming it (the others chosen are removed, and the
    ///   manifest names what is left).
    @discardableResult
    public func release(amount: Int64? = nil) throws -> FillReleaseReport {
        try release(amount: amount, reporter: nil, cancellation: nil)
    }

    /// Gives back the space of the fill as ``release(amount:)`` does, on a thread of its own,
    /// reporting progress; cancelling the task stops the release before its next file and
    /// returns what was released until then, marked ``FillReleaseReport/wasCancelled`` (the
    /// manifest still names every file left, so a later release finishes the job).
    ///
    /// This is a long-running call under the one contract (see ``WorkProgress`` and
    /// "Long-running work" in the README): cancellation is not an error, progress comes from
    /// the releasing thread, throttled to `progressInterval`.
    /// The handler is required, so that a call without one (in an `async` function too) stays
    /// the synchronous form; pass `{ _ in }` to get cancellation alone.
    ///
    /// ```swift
    /// let report = try await FillFolder(in: volumeURL).release { progress in
    ///     print("\(progress.items) files, \(ByteCount(progress.bytes).formatted()) given back")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - amount: Give back at least this many bytes; `nil` for everything.
    ///   - progressInterval: The least time between two progress reports.
    ///   - progress: Called on the releasing thread (``WorkProgress/Phase/removing``) with the
    ///     fill files removed or shrunk so far, the bytes they gave back, and the bytes the
    ///     release will give back in all (``WorkProgress/expectedBytes``: the amount, or what
    ///     the fill's files hold). Keep it short.
    /// - Throws: as ``release(amount:)``; cancellation is not an error.
    @discardableResult
    public func release(amount: Int64? = nil, progressInterval: Duration = WorkProgress.defaultInterval,
                        progress: @escaping @Sendable (WorkProgress) -> Void) async throws -> FillReleaseReport {
        let cancellation = CancellationFlag()
        return try await LongRunningWork.run(progressInterval: progressInterval, progress: progress,
                                             cancel: { cancellation.cancel() }) { reporter in
            try release(amount: amount, reporter: reporter, cancellation: cancellation)
        }
    }

    private func release(amount: Int64?, reporter: ProgressReporter?, cancellation: CancellationFlag?) throws -> FillReleaseReport {
        if let amount, amount < 0 {
            throw StowageError(.invalidArgument, operation: .release, path: path,
                               reason: "the amount to release cannot be negative (\(amount))")
        }
        let outcome = try perform(.release) { () -> FillReleaseReport? in
            guard let folder = try openIfPresent(for: .release) else { return nil }
            guard try folder.tryLock(exclusive: true) else {
                throw StowageError(.busy, operation: .release, path: path,
                                   reason: "a fill is running in this folder; stop it first (a held fill releases itself when stopped)")
            }
            defer { folder.unlock() }
            // A rebuilt manifest is saved at the end, once space is freed: on a full disk it could not be before.
            var (manifest, mustSave) = try readManifest(in: folder, rebuildingIfDamaged: true)
            let availableBefore = try folder.spaceFigures().available
            var expected: Int64?
            if reporter?.isActive == true {
                let held = try heldBytes(of: manifest, in: folder)
                expected = amount.map { min($0, held) } ?? held
                reporter?.report(.removing, items: 0, bytes: 0, expectedBytes: expected)
            }
            // The files to give back, newest first, chosen from the manifest (the fill's own
            // files only); the last one is shrunk when the amount ends inside it.
            var victims: [SweepEngine.Candidate] = []
            var forgotten = Set<String>()  // gone, or not ours: forgotten, never touched
            var chosen: Int64 = 0
            var shrinking: (entry: FillManifest.Entry, bytes: Int64)?
            for entry in manifest.files.reversed() {
                if let amount, chosen >= amount { break }
                guard let status = try verifiedStatus(of: entry, in: folder, ofFill: manifest.id) else {
                    forgotten.insert(entry.name)
                    continue
                }
                if let amount, status.allocatedSize > amount - chosen {
                    shrinking = (entry, amount - chosen)
                    break
                }
                victims.append(SweepEngine.Candidate(path: RawPath(entry.name), folder: RawPath(""), status: status, reason: .clear))
                chosen += status.allocatedSize
            }
            try FaultPoint.fillReleaseChosen.reach()
            // Removed by the one removal walk, which checks each file again just before unlinking it
            // (this folder's lock is held already).
            let removal = try Removal.run(root: folder, path: path, .chosen(victims), operation: .release, reporter: reporter,
                                          cancellation: cancellation, expectedBytes: expected)
            var cancelled = removal.wasCancelled
            var released = removal.removed.reduce(Int64(0)) { $0 + $1.allocatedBytes }
            forgotten.formUnion(removal.removed.map(\.path))
            let failure = removal.issues.first { $0.errno != nil }
            var shrunk = 0
            if let shrinking, !cancelled, failure == nil {
                if cancellation?.isCancelled == true {
                    cancelled = true
                } else if let freed = try shrink(shrinking.entry, ofFill: manifest.id, in: folder, by: shrinking.bytes) {
                    released += freed
                    shrunk = 1
                    reporter?.report(.removing, items: removal.removed.count + shrunk, bytes: released, expectedBytes: expected)
                } else {
                    forgotten.insert(shrinking.entry.name)  // replaced since it was examined: not ours any more
                }
            }
            let removed = removal.removed.count
            // Names are unique in a manifest (``readManifest`` refuses others), so a name forgets one entry.
            manifest.files.removeAll { forgotten.contains($0.name) }
            if (mustSave || !forgotten.isEmpty) && !manifest.files.isEmpty {
                do {
                    try save(manifest, in: folder)
                } catch where failure != nil || Self.isNoSpace(error) {
                    // The removal's error is the one to report, and no room (nothing freed yet:
                    // cancelled, or an amount of a block) is not a failure of the release: the
                    // manifest on disk still names every file left (a damaged one is rebuilt
                    // again, names of files gone are forgotten by the next release).
                }
            }
            if let failure {
                var error = StowageError(SystemCallError(errno: failure.errno ?? .ioError, call: "unlinkat"),
                                         operation: .release, path: failure.path)
                error.reason = "\(failure.message); the rest of the fill stays, named in its manifest"
                throw error
            }
            if manifest.files.isEmpty {
                do {
                    try folder.removeEntry(FillManifest.fileName, folder: false)
                } catch Errno.noSuchEntry {
                    // a fill that stopped before its first file wrote no manifest
                }
                try removeFolderIfEmpty()
            }
            let remaining = try heldBytes(of: manifest, in: folder)
            return FillReleaseReport(folder: path, removedFileCount: removed, shrunkFileCount: shrunk, releasedBytes: released,
                                     availableBytesBefore: availableBefore, availableBytesAfter: availableBefore, remainingBytes: remaining,
                                     wasCancelled: cancelled)
        }
        guard var report = outcome else {
            let available = try perform(.release) { try Sys.spaceFigures(atPath: Container.existingAncestor(of: parent)).available }
            return FillReleaseReport(folder: path, removedFileCount: 0, shrunkFileCount: 0, releasedBytes: 0,
                                     availableBytesBefore: available, availableBytesAfter: available, remainingBytes: 0)
        }
        // Measured once the fill folder is closed (a removed folder's blocks are freed when its
        // last descriptor closes), and settled: XFS frees a removed file's blocks from a
        // background worker, which `syncfs` does not wait for.
        report.availableBytesAfter = try perform(.release) { try SettledFigures.of(openParent()).available }
        return report
    }

    /// Shrinks a fill file by at least `bytes` (whole blocks), checking on the open file that
    /// it is still the fill's (``verifiedStatus(of:in:ofFill:)``); returns the allocated bytes
    /// given back, or `nil` when the file is not the fill's (any more).
    private func shrink(_ entry: FillManifest.Entry, ofFill id: String, in folder: OpenFile, by bytes: Int64) throws -> Int64? {
        guard let (file, opened) = try openVerified(entry, in: folder, ofFill: id) else { return nil }
        let block = max(1, try file.spaceFigures().blockSize)
        let keep = max(0, (opened.size - bytes) / block * block)
        try file.truncate(to: keep)
        let after = try file.status()
        try file.close()
        return opened.allocatedSize - after.allocatedSize
    }

    private func removeFolderIfEmpty() throws {
        do {
            try openParent().removeEntry(Self.name, folder: true)
        } catch Errno.notEmpty, Errno.fileExists {
            // foreign entries remain (reported by status); the folder stays with them
        }
    }

    /// The folder that was filled, following links (it is named by the caller, as any path).
    private func openParent() throws -> OpenFile {
        try OpenFile.openFolder(atPath: parent.fileSystemPath, followingLinks: true)
    }

    // MARK: Folder and manifest

    /// Opens the fill folder for `operation`, or `nil` when there is none. A link in its place
    /// is not followed, and a mount in its place is refused.
    func openIfPresent(for operation: StowageError.Operation) throws -> OpenFile? {
        do {
            return try openFillFolder(in: openParent(), for: operation)
        } catch Errno.noSuchEntry {
            return nil  // no fill folder, or not even the folder filled: nothing is filled there
        }
    }

    /// Opens the fill folder, creating it (owner-only) if needed.
    func openCreating() throws -> OpenFile {
        let parentFolder = try openParent()
        do {
            try parentFolder.createFolder(Self.name, mode: .ownerOnlyFolder)
        } catch Errno.fileExists {
            // made by an earlier fill: filled further
        }
        return try openFillFolder(in: parentFolder, for: .fill)
    }

    /// Opens the fill folder in `parentFolder`, never through a link, and refuses it when it is
    /// another mount (a fill there would fill another volume, a release remove from it).
    private func openFillFolder(in parentFolder: OpenFile, for operation: StowageError.Operation) throws -> OpenFile {
        let folder: OpenFile
        do {
            folder = try parentFolder.openFolder(Self.name)
        } catch let error as SystemCallError where [Errno.notFolder, .tooManySymbolicLinkLevels].contains(error.errno) {
            // O_NOFOLLOW | O_DIRECTORY on a link says "not a folder": say what it is.
            guard try parentFolder.statusIfPresent(of: Self.name)?.kind == .symbolicLink else { throw error }
            throw StowageError(.invalidPath, operation: operation, path: path, errno: error.errno, systemCall: error.call,
                               reason: "it is a symbolic link, not the folder a fill makes; Stowage never follows one there")
        }
        guard try folder.mountIdentity().isSameMount(as: parentFolder.mountIdentity()) else {
            throw StowageError(.refused, operation: operation, path: path,
                               reason: "it is a mount point, not the folder a fill makes; Stowage never fills or removes across a mount")
        }
        return folder
    }

    /// The manifest, or a new one when the folder has none. A damaged manifest is rebuilt from
    /// the marked files when `rebuildingIfDamaged` (and saved), or reported.
    func loadManifest(in folder: OpenFile, rebuildingIfDamaged: Bool, availableNow: Int64? = nil) throws -> FillManifest {
        let (manifest, isRebuilt) = try readManifest(in: folder, rebuildingIfDamaged: rebuildingIfDamaged, availableNow: availableNow)
        if isRebuilt { try save(manifest, in: folder) }
        return manifest
    }

    /// ``loadManifest(in:rebuildingIfDamaged:availableNow:)`` without saving a rebuilt manifest
    /// (a release saves it once it has freed space): the manifest, and whether it was rebuilt.
    private func readManifest(in folder: OpenFile, rebuildingIfDamaged: Bool,
                              availableNow: Int64? = nil) throws -> (manifest: FillManifest, isRebuilt: Bool) {
        let content: Data
        do {
            content = try folder.openForReading(FillManifest.fileName).readAll()
        } catch Errno.noSuchEntry {
            return (FillManifest(availableBefore: try availableNow ?? folder.spaceFigures().available), false)
        }
        // A manifest that names anything but fill files' names, each once (a path out of the
        // folder: a damaged or hostile one), is damaged as a whole: nothing it names is trusted.
        if var manifest = try? JSONDecoder().decode(FillManifest.self, from: content), manifest.format == FillManifest.currentFormat,
           manifest.files.allSatisfy({ FillManifest.isFileName($0.name) }), Set(manifest.files.map(\.name)).count == manifest.files.count {
            try adoptMarkedFiles(into: &manifest, in: folder)
            return (manifest, false)
        }
        let manifestPath = path + "/" + FillManifest.fileName
        guard rebuildingIfDamaged else {
            throw StowageError(.decodingFailed, operation: .inspect, path: manifestPath,
                               reason: "the fill manifest is damaged; `release` rebuilds it from the marked fill files")
        }
        var rebuilt = FillManifest(availableBefore: try folder.spaceFigures().available)
        guard let marked = try markedFiles(in: folder) else {
            throw StowageError(.decodingFailed, operation: .release, path: manifestPath,
                               reason: "the fill manifest is damaged and this file system keeps no markers to rebuild it from; "
                                   + "check the folder and remove it by hand")
        }
        // The fill is the one whose marker most files carry (a folder holds one fill; files of
        // any other stay, as foreign entries), so that its files verify against the new manifest.
        let counts = Dictionary(marked.map { ($0.marker, 1) }, uniquingKeysWith: +)
        if let (marker, _) = counts.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key.lexicographicallyPrecedes($1.key)) }) {
            rebuilt.id = String(decoding: marker, as: UTF8.self)
            rebuilt.files = marked.filter { $0.marker == marker }.map(\.entry)
        }
        return (rebuilt, true)
    }

    /// Adds to `manifest` the files that carry its marker but that it does not name: the
    /// manifest is not synced to disk as the fill goes (that would flush the fill's data at
    /// every new file), so after a power loss it can be older than the files.
    private func adoptMarkedFiles(into manifest: inout FillManifest, in folder: OpenFile) throws {
        let named = Set(manifest.files.map(\.name))
        let marked = try markedFiles(in: folder) ?? []  // no markers here: nothing to adopt
        let id = Array(manifest.id.utf8)
        manifest.files += marked.filter { $0.marker == id && !named.contains($0.entry.name) }.map(\.entry)
    }

    /// The fill files in `folder` (by name) that carry a fill marker, with the marker (the id
    /// of their fill); `nil` when this file system keeps no markers. Files gone meanwhile are
    /// skipped.
    private func markedFiles(in folder: OpenFile) throws -> [(entry: FillManifest.Entry, marker: [UInt8])]? {
        var found: [(entry: FillManifest.Entry, marker: [UInt8])] = []
        for raw in try folder.entryNames().sorted() where raw.isUTF8 && FillManifest.isFileName(raw.description) {
            let name = raw.description
            do {
                let file = try folder.openForInspection(name)
                let status = try file.status()
                // One name only, as verifiedStatus requires: a marked hard link is never adopted.
                guard status.isFile, status.linkCount == 1, let marker = try file.attribute(FillManifest.markerAttribute) else { continue }
                found.append((.init(name: name, device: status.device, inode: status.inode), marker))
            } catch Self.replacedEntry {
                continue
            } catch Errno.attributesUnsupported {
                return nil
            }
        }
        return found
    }

    /// Saves the manifest atomically. Not synced: a crash of the filling process leaves it
    /// intact (the page cache outlives processes), and the markers cover a power loss.
    func save(_ manifest: FillManifest, in folder: OpenFile) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try AtomicWrite.write(try encoder.encode(manifest), into: folder, name: FillManifest.fileName,
                              durable: false, protection: nil, keepingMarkers: false)
    }

    /// The status of a manifest entry's file if it is still the file the fill `id` made, else
    /// `nil` (gone, or replaced by something else under its name).
    ///
    /// The file must be a regular file with the recorded device and inode and, where the file
    /// system keeps extended attributes, carry the fill's marker: a file system can give a new
    /// file the inode number of a removed one (ext4 does), so the inode alone cannot tell. The
    /// checks are made on one opened file (never through a link), so the status and the marker
    /// belong to the same file.
    func verifiedStatus(of entry: FillManifest.Entry, in folder: OpenFile, ofFill id: String) throws -> FileStatus? {
        // A first look by name, so that nothing but a regular file with the recorded inode is opened;
        // never by a name that could lead out of the folder (``loadManifest`` refuses those already).
        guard FillManifest.isFileName(entry.name),
              let named = try folder.statusIfPresent(of: entry.name), named.isFile,
              named.inode == entry.inode, named.device == entry.device else { return nil }
        let file: OpenFile
        do {
            file = try folder.openForInspection(entry.name)
        } catch Self.replacedEntry {
            return nil
        }
        return try verifiedStatus(of: file, as: entry, ofFill: id)
    }

    /// Whether `error` says the volume (or the user's quota) has no room.
    private static func isNoSpace(_ error: any Error) -> Bool {
        switch error {
        case let error as SystemCallError: [.noSpace, .quotaExceeded].contains(error.errno)
        case let error as StowageError: error.code == .noSpace
        default: false
        }
    }

    /// The entry's file opened for writing, with its status, if it is still the file the fill
    /// `id` made (checked by name first, so that nothing else is opened for writing, then on the
    /// opened file itself, so that what is written to is what was checked); else `nil`.
    func openVerified(_ entry: FillManifest.Entry, in folder: OpenFile, ofFill id: String) throws -> (file: OpenFile, status: FileStatus)? {
        guard try verifiedStatus(of: entry, in: folder, ofFill: id) != nil else { return nil }
        let file: OpenFile
        do {
            file = try folder.open(entry.name, flags: Sys.readWrite | Sys.nonBlocking)
        } catch Self.replacedEntry {
            return nil
        }
        guard let status = try verifiedStatus(of: file, as: entry, ofFill: id) else { return nil }
        return (file, status)
    }

    /// The allocated bytes of the manifest's files that are still the fill's own.
    private func heldBytes(of manifest: FillManifest, in folder: OpenFile) throws -> Int64 {
        try manifest.files.reduce(Int64(0)) { sum, entry in
            sum + ((try verifiedStatus(of: entry, in: folder, ofFill: manifest.id))?.allocatedSize ?? 0)
        }
    }

    /// The status of the open `file` if it is the entry's file of the fill `id` (see above).
    private func verifiedStatus(of file: OpenFile, as entry: FillManifest.Entry, ofFill id: String) throws -> FileStatus? {
        let status = try file.status()
        // One name only: a fill file never has another, and a hard link to a file elsewhere
        // must be neither shrunk (its data is that file's) nor counted as space given back.
        guard status.isFile, status.inode == entry.inode, status.device == entry.device, status.linkCount == 1 else { return nil }
        do {
            guard try file.attribute(FillManifest.markerAttribute) == Array(id.utf8) else { return nil }
        } catch Errno.attributesUnsupported {
            // no extended attributes on this file system: the device and inode alone identify the file
        }
        return status
    }

    /// How opening a fill file's name fails when something else took its place since it was
    /// examined: it is gone, or a link (refused by `O_NOFOLLOW`), or a socket.
    private static let replacedEntry: [Errno] = [.noSuchEntry, .tooManySymbolicLinkLevels, .noDeviceOrAddress]

    private func perform<T>(_ operation: StowageError.Operation, _ body: () throws -> T) throws -> T {
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

/// What ``FillFolder/release(amount:)`` gave back.
public struct FillReleaseReport: Sendable, Hashable, Codable {
    /// The fill folder.
    public var folder: String
    /// Fill files removed.
    public var removedFileCount: Int
    /// Fill files shrunk (at most one, when an amount was asked for).
    public var shrunkFileCount: Int
    /// The allocated bytes of the files removed or shrunk.
    public var releasedBytes: Int64
    /// The volume's available bytes before the release.
    public var availableBytesBefore: Int64
    /// The volume's available bytes after the release.
    public var availableBytesAfter: Int64
    /// The allocated bytes of the fill files still there.
    public var remainingBytes: Int64
    /// Whether the release was cancelled before it finished (only the `async`
    /// ``FillFolder/release(amount:progressInterval:progress:)`` can be): the files left are
    /// still in the manifest, for a later release. Not part of the report's JSON.
    public var wasCancelled = false

    /// The JSON names: each property's own, ``wasCancelled`` left out (the command never cancels this work).
    private enum CodingKeys: String, CodingKey {
        case folder, removedFileCount, shrunkFileCount, releasedBytes, availableBytesBefore, availableBytesAfter, remainingBytes
    }
}

/// The fill folder's record of its files, rewritten as each file is created.
struct FillManifest: Codable, Sendable {
    static let fileName = "manifest.json"
    static let filePrefix = "fill-"
    static let currentFormat = 1
    /// The extended attribute every fill file carries, whose value is the manifest's id.
    static let markerAttribute = ExtendedAttributes.stowagePrefix + "fill"

    struct Entry: Codable, Sendable, Hashable {
        var name: String
        var device: UInt64
        var inode: UInt64
    }

    var format = FillManifest.currentFormat
    var id = String(UInt64.random(in: .min ... .max), radix: 16)
    /// When the first fill began, in seconds since 1970 (a number: formatting a date as text
    /// costs Foundation milliseconds the first time, which a fill of a few milliseconds notices).
    var created = Date().timeIntervalSince1970
    /// The volume's available bytes when the first fill began.
    var availableBefore: Int64
    var files: [Entry] = []

    init(availableBefore: Int64) { self.availableBefore = availableBefore }

    /// The highest number in a fill file's name: 9 digits, so the next number never overflows.
    static let highestFileNumber = 999_999_999

    /// Whether `name` is a fill file's name, as ``nextFileName(after:)`` makes them: the prefix
    /// and 1 to 9 ASCII digits, one path component that cannot lead out of the fill folder.
    static func isFileName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        let prefix = Array(filePrefix.utf8)
        let digits = String(highestFileNumber).count
        return bytes.starts(with: prefix) && (prefix.count + 1...prefix.count + digits).contains(bytes.count)
            && bytes[prefix.count...].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// The next file's name: one after the highest number in use, or after `name` if higher;
    /// `nil` when that number would need more than 9 digits (``isFileName(_:)``).
    func nextFileName(after name: String? = nil) -> String? {
        let numbers = (files.map(\.name) + [name].compactMap { $0 }).compactMap { Int($0.dropFirst(Self.filePrefix.count)) }
        let next = (numbers.max() ?? 0) + 1
        guard next <= Self.highestFileNumber else { return nil }
        let number = String(next)
        return Self.filePrefix + String(repeating: "0", count: max(0, 6 - number.count)) + number
    }
}
