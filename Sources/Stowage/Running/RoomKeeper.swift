import Foundation

/// Copies what a room's command wrote (the layer's upper folders) to a keep folder, under each
/// covered folder's absolute path, after the command ended.
struct RoomKeeper {
    /// The layer's root, still open (so still there after the namespace is gone).
    let layer: OpenFile
    /// The covered folders and their numbers (`upper/<n>`).
    let folders: [(path: String, index: Int)]

    /// Copies every upper folder's content to `keepFolder` + its folder's path: files, folders
    /// and links; whiteouts (removed real items), devices, sockets and pipes are listed, not
    /// copied.
    func copy(to keepFolder: URL) throws -> KeptWrites {
        let keepPath = keepFolder.fileSystemPath
        var kept = KeptWrites(folder: keepPath, fileCount: 0, folderCount: 0, linkCount: 0, copiedBytes: 0,
                              removedPaths: [], skippedPaths: [])
        try Container.createFolders(atPath: keepPath)
        let upper = try layer.openFolder("upper")
        for (path, index) in folders {
            let source = try upper.openFolder(String(index))
            let names = try source.entryNames()
            guard !names.isEmpty else { continue }
            let destinationPath = keepPath + path
            try Container.createFolders(atPath: destinationPath)
            let destination = try OpenFile.openFolder(atPath: destinationPath, followingLinks: false)
            for name in names {
                try TreeOperations.copy(name, in: source, to: destination, as: name, durable: false, protection: nil,
                                        skippingSpecialItems: true, visit: { relative, status in kept.count(path + "/" + relative, status) })
            }
        }
        return kept
    }
}

extension KeptWrites {
    /// Counts one item of an upper folder, at its absolute path in the room.
    mutating func count(_ path: String, _ status: FileStatus) {
        switch status.kind {
        case .file:
            fileCount += 1
            copiedBytes += status.size
        case .folder: folderCount += 1
        case .symbolicLink: linkCount += 1
        case .other:
            if status.isWhiteout { removedPaths.append(path) } else { skippedPaths.append(path) }
        }
    }
}
