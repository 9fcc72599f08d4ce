import Foundation

/// Copies what a room's command wrote (the layer's upper folders) to a keep folder, under each
/// covered folder's absolute path, after the command ended.
///
/// Names are bytes from `readdir` to `mkdirat`/`openat`/`symlinkat` (a name that is not UTF-8 is
/// kept like any other), and one item that cannot be copied (unreadable, say) does not stop the
/// rest: it is listed in ``KeptWrites/notCopied`` with the reason.
struct RoomKeeper {
    /// The layer's root, still open (so still there after the namespace is gone).
    let layer: OpenFile
    /// The covered folders and their numbers (`upper/<n>`).
    let folders: [(path: String, index: Int)]

    /// Copies every upper folder's content to `keepFolder` + its folder's path: files, folders
    /// and links; whiteouts (removed real items) are listed as removed, devices, sockets and
    /// pipes as skipped, items that could not be copied as not copied.
    ///
    /// - Throws: Only when the keep folder itself, or the layer, cannot be used; a single item's
    ///   failure is listed, and the copy goes on.
    func copy(to keepFolder: URL) throws -> KeptWrites {
        let keepPath = keepFolder.fileSystemPath
        var kept = KeptWrites(folder: keepPath, fileCount: 0, folderCount: 0, symbolicLinkCount: 0, copiedBytes: 0,
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
            copy(names, of: source, to: destination, at: RawPath(path), into: &kept)
        }
        return kept
    }

    /// ``copy(to:)``, its failures as the error a report carries: what was copied, and why not
    /// all of it (items not copied are listed in the writes and counted in the error).
    func copyReporting(to keepFolder: URL) -> (kept: KeptWrites?, error: StowageError?) {
        do {
            let kept = try copy(to: keepFolder)
            guard kept.notCopied.isEmpty else {
                return (kept, StowageError(.ioFailure, operation: .run, path: keepFolder.fileSystemPath,
                                           reason: "\(kept.notCopied.count) of the command's writes could not be copied "
                                               + "(each listed); the rest were"))
            }
            return (kept, nil)
        } catch let error as StowageError {
            return (nil, error)
        } catch let error as SystemCallError {
            return (nil, StowageError(error, operation: .run, path: keepFolder.fileSystemPath))
        } catch {
            return (nil, StowageError(.ioFailure, operation: .run, path: keepFolder.fileSystemPath, underlying: error))
        }
    }

    /// Copies the items `names` of `source` into `destination`; `path` is `source`'s path in the room.
    private func copy(_ names: [RawPath], of source: OpenFile, to destination: OpenFile, at path: RawPath,
                      into kept: inout KeptWrites) {
        for name in names {
            let itemPath = path.appending(name)
            do {
                let status = try Sys.fstatat(source.descriptor, name)
                switch status.kind {
                case .file:
                    let input = OpenFile(adopting: try Sys.openat(source.descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK))
                    let output = OpenFile(adopting: try Sys.openat(destination.descriptor, name, Sys.writeCreateExclusive,
                                                                   mode: .defaultFile))
                    do {
                        // Holes stay holes: a sparse terabyte made in a 5 MB room must not
                        // become a terabyte of zeros on the real disk.
                        try Sys.copyKeepingHoles(from: input.descriptor, to: output.descriptor, size: status.size)
                    } catch {
                        try? destination.removeEntry(name, folder: false)  // best effort: the copy's error is listed
                        throw error
                    }
                case .folder:
                    let input = try source.openFolder(name)
                    let inner = try input.entryNames()
                    try Sys.mkdirat(destination.descriptor, name, mode: .defaultFolder)
                    kept.count(itemPath, status)
                    copy(inner, of: input, to: try destination.openFolder(name), at: itemPath, into: &kept)
                    continue
                case .symbolicLink:
                    try Sys.symlinkat(try Sys.readlinkat(source.descriptor, name), destination.descriptor, name)
                case .other:
                    break
                }
                kept.count(itemPath, status)
            } catch {
                kept.notCopied.append(KeptWrites.NotCopied(pathBytes: itemPath.bytes, reason: Self.reason(error)))
            }
        }
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? SystemCallError { return "\(error.call) failed: \(error.errno)" }
        return "\(error)"
    }
}

extension KeptWrites {
    /// Counts one item of an upper folder, at its absolute path in the room.
    mutating func count(_ path: RawPath, _ status: FileStatus) {
        switch status.kind {
        case .file:
            fileCount += 1
            copiedBytes += status.size
            allocatedBytes += status.allocatedSize
        case .folder: folderCount += 1
        case .symbolicLink: symbolicLinkCount += 1
        case .other:
            if status.isWhiteout { removedPaths.append(path.description) } else { skippedPaths.append(path.description) }
        }
    }
}
