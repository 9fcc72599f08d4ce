import Foundation

/// Removal and copying of whole items, by file descriptor, never following links.
///
/// Removal goes through the one removal walk (``SweepEngine``), with the goal "everything".
enum TreeOperations {
    /// Removes the item `name` in `folder`: a file, a link (the link itself) or a whole folder,
    /// which must not be a mount point and must hold no mount point (each is refused, never
    /// crossed). Pins do not protect what the caller names explicitly.
    ///
    /// - Throws: a `SystemCallError`, or ``StowageError`` naming the first thing that could not
    ///   be removed (a mount point, a file that changed meanwhile, an in-flight write).
    static func remove(_ name: String, in folder: OpenFile) throws {
        let status = try folder.status(of: name)
        guard status.isFolder else {
            try folder.removeEntry(name, folder: false)
            return
        }
        let child = try folder.openFolder(name)
        guard try child.mountIdentity().isSameMount(as: folder.mountIdentity()) else {
            throw StowageError(.refused, operation: .remove, path: name,
                               reason: "it is a mount point; Stowage never removes across a mount")
        }
        let report = try removeEverything(in: child, path: name, honouringPins: false, dryRun: false)
        if let issue = report.issues.first {
            throw StowageError(.ioFailure, operation: .remove, path: name,
                               reason: "\(issue.path) could not be removed: \(issue.message)")
        }
        try folder.removeEntry(name, folder: true)
    }

    /// Removes everything inside the open folder `root`, keeping the folder itself (and a
    /// `CACHEDIR.TAG` directly in it), through the removal walk: mount points inside are left
    /// alone and reported, pinned items are kept when `honouringPins`, in-flight writes younger
    /// than the grace period are kept.
    ///
    /// - Parameter path: Names the folder in the report and its issues.
    @discardableResult
    static func removeEverything(in root: OpenFile, path: String, honouringPins: Bool, dryRun: Bool,
                                 operation: StowageError.Operation = .remove, now: Date = Date()) throws -> SweepReport {
        try Sweeper.run(root: root, path: path, policy: SweepPolicy(), goal: .everything(honouringPins: honouringPins),
                        dryRun: dryRun, now: now, operation: operation)
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
