import Foundation

/// Recursive removal and copying of items, by file descriptor, never following links.
enum TreeOperations {
    /// Removes the item `name` in `folder`: a file, a link (the link itself) or a whole folder.
    static func remove(_ name: String, in folder: OpenFile) throws {
        let status = try folder.status(of: name)
        if status.isFolder {
            do {
                let child = try folder.openFolder(name)
                try removeContents(of: child)
            }
            try folder.removeEntry(name, folder: true)
        } else {
            try folder.removeEntry(name, folder: false)
        }
    }

    /// Removes everything inside `folder`, keeping the folder itself.
    ///
    /// - Parameter keeping: Names directly in `folder` to leave in place.
    static func removeContents(of folder: OpenFile, keeping: Set<String> = []) throws {
        for name in try folder.entryNames() where !keeping.contains(name) {
            do {
                try remove(name, in: folder)
            } catch let error as SystemCallError where error.errno == Sys.noSuchEntry {
                continue  // removed by someone else meanwhile: the goal is reached
            }
        }
    }

    /// Copies the item `name` in `source` to `destinationName` in `destination`. Files are
    /// copied byte for byte (writable by the owner whatever the source's mode), folders
    /// recursively, links as links. Fails with `EEXIST` when the destination exists.
    static func copy(_ name: String, in source: OpenFile, to destination: OpenFile,
                     as destinationName: String, durable: Bool, protection: FileProtection?,
                     followingLink: Bool = false) throws {
        let status = followingLink ? try Sys.fstatat(source.descriptor, name, followingLinks: true)
                                   : try source.status(of: name)
        switch status.kind {
        case .file:
            let input = followingLink ? OpenFile(adopting: try Sys.openat(source.descriptor, name, Sys.readOnly))
                                      : try source.openForReading(name)
            try copyFile(input, to: destination, as: destinationName, durable: durable, protection: protection)
        case .folder:
            let input = followingLink ? try OpenFile.openFolder(in: source, name, followingLinks: true)
                                      : try source.openFolder(name)
            let mode = protection.folderMode
            try destination.createFolder(destinationName, mode: mode)
            let output = try destination.openFolder(destinationName)
            for child in try input.entryNames() {
                try copy(child, in: input, to: output, as: child, durable: durable, protection: protection)
            }
            if durable { try output.syncFolder() }
        case .symbolicLink:
            try destination.createLink(destinationName, to: try source.linkTarget(of: name))
        case .other:
            throw StowageError(.unsupported, operation: .move, path: name,
                               reason: "'\(name)' is a device, socket or pipe, which Stowage does not copy")
        }
    }

    /// Copies the open file `input` into a new file `name` in `destination`.
    static func copyFile(_ input: OpenFile, to destination: OpenFile, as name: String,
                         durable: Bool, protection: FileProtection?) throws {
        let mode = protection.fileMode
        let output = try destination.open(name, flags: Sys.writeCreateExclusive, mode: mode)
        do {
            let chunk = 1 << 20
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 16)
            defer { buffer.deallocate() }
            while true {
                let count = try Sys.read(input.descriptor, buffer, chunk)
                if count == 0 { break }
                try Sys.writeAll(output.descriptor, UnsafeRawBufferPointer(start: buffer, count: count))
            }
            if durable { try output.syncData() }
            try output.close()
        } catch {
            try? destination.removeEntry(name, folder: false)  // best effort: report the copy's error
            throw error
        }
    }
}
