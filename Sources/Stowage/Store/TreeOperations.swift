import Foundation

/// Copying of whole items, by file descriptor, never following links (removal is
/// ``Removal/removeItem(_:in:)``).
enum TreeOperations {
    /// Copies the item `name` in `source` to `destinationName` in `destination`. Files are
    /// copied byte for byte (writable by the owner whatever the source's mode), folders
    /// recursively, links as links; a device, socket or pipe fails the copy. Fails with `EEXIST`
    /// when the destination exists. Names and link targets are carried as bytes (<doc:Architecture>, bytes at every boundary):
    /// an entry whose name is not UTF-8 is copied under that same name.
    static func copy(_ name: RawPath, in source: OpenFile, to destination: OpenFile,
                     as destinationName: RawPath, durable: Bool, protection: FileProtection?,
                     followingLink: Bool = false) throws {
        let status = try Sys.fstatat(source.descriptor, name, followingLinks: followingLink)
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
            throw StowageError(.unsupported, operation: .move, path: name.description,
                               reason: "'\(name)' is a device, socket or pipe, which Stowage does not copy")
        }
    }

    /// Copies what is left to read of `input` to `output`, a MiB at a time.
    static func copyBytes(from input: OpenFile, to output: OpenFile) throws {
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try Sys.read(input.descriptor, buffer, chunk)
            if count == 0 { break }
            try Sys.writeAll(output.descriptor, UnsafeRawBufferPointer(start: buffer, count: count))
        }
    }

    /// Copies the open file `input` into a new file `name` in `destination`.
    static func copyFile(_ input: OpenFile, to destination: OpenFile, as name: RawPath,
                         durable: Bool, protection: FileProtection?) throws {
        let mode = protection.fileMode
        let output = try destination.open(name, flags: Sys.writeCreateExclusive, mode: mode)
        do {
            try copyBytes(from: input, to: output)
            if durable { try output.syncData() }
            try output.close()
        } catch {
            try? destination.removeEntry(name, folder: false)  // best effort: report the copy's error
            throw error
        }
    }
}
