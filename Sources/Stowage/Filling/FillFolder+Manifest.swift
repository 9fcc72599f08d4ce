import Foundation

extension FillFolder {
    /// The folder that was filled, following links (it is named by the caller, as any path).
    func openParent() throws -> OpenFile {
        try OpenFile.openFolder(atPath: parent.fileSystemPath, followingLinks: true)
    }

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
    func readManifest(in folder: OpenFile, rebuildingIfDamaged: Bool,
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
}
