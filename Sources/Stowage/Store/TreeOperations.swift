import Foundation

/// Removal and copying of whole items, by file descriptor, never following links.
///
/// Removal goes through the one removal walk (``SweepEngine``), with the goal "everything".
enum TreeOperations {
    /// Removes the item `name` in `folder`: a file, a link (the link itself) or a whole folder
    /// with everything in it, Stowage's own items included. Pins do not protect what the caller
    /// names explicitly.
    ///
    /// A folder that is a mount point, or that holds one (a bind mount included) or a folder
    /// that cannot be read, is refused before anything is removed: it could not go whole.
    ///
    /// - Throws: a `SystemCallError` (`ENOENT` when nothing is there), or ``StowageError``
    ///   naming what stops the removal.
    static func remove(_ name: String, in folder: OpenFile) throws {
        try remove(RawPath(name), in: folder)
    }

    /// ``remove(_:in:)`` of a name as bytes.
    static func remove(_ name: RawPath, in folder: OpenFile) throws {
        let status = try Sys.fstatat(folder.descriptor, name)
        guard status.isFolder else {
            try folder.removeEntry(name, folder: false)
            return
        }
        let child = try folder.openFolder(name)
        guard try child.mountIdentity().isSameMount(as: folder.mountIdentity()) else {
            throw StowageError(.refused, operation: .remove, path: name.description,
                               reason: "it is a mount point; Stowage never removes across a mount")
        }
        let engine = SweepEngine(rootPath: name.description, root: child, policy: SweepPolicy(),
                                 goal: .everything(.wholeTree), now: Date())
        let selection = try engine.select()
        if let blocker = engine.issues.first {
            throw blocked(by: blocker, removing: name, nothingRemoved: true)
        }
        let removed = engine.remove(selection.victims)
        _ = engine.removeFolders(engine.emptiedFolders(by: removed))
        if let blocker = engine.issues.first {
            throw blocked(by: blocker, removing: name, nothingRemoved: false)
        }
        try folder.removeEntry(name, folder: true)
    }

    /// The error for a folder removal stopped by `issue`.
    private static func blocked(by issue: UsageIssue, removing name: RawPath, nothingRemoved: Bool) -> StowageError {
        let outcome = nothingRemoved ? "nothing was removed" : "the rest was removed"
        guard issue.errno != 0 else {
            return StowageError(.refused, operation: .remove, path: name.description,
                                reason: "\(issue.path): \(issue.message); \(outcome)")
        }
        var error = StowageError(SystemCallError(errno: Errno(rawValue: issue.errno), call: "unlinkat"), operation: .remove, path: issue.path)
        error.reason = "\(issue.message); \(outcome)"
        return error
    }

    /// Removes everything inside the open folder `root` (a location's or a cache's), keeping
    /// the folder itself, through the removal walk with the ``SweepEngine/Scope/contents`` scope:
    /// mount points inside are left alone and reported; pinned items, Stowage's records and
    /// journals, a `CACHEDIR.TAG` directly in it, and writes in progress are kept.
    ///
    /// - Parameters:
    ///   - path: Names the folder in the report and its issues.
    ///   - reporter, cancellation, location: as ``Sweeper/run(root:path:policy:goal:dryRun:now:operation:reporter:cancellation:location:)``.
    @discardableResult
    static func removeContents(of root: OpenFile, path: String, dryRun: Bool,
                               operation: StowageError.Operation, now: Date = Date(), reporter: ProgressReporter? = nil,
                               cancellation: CancellationFlag? = nil, location: Location? = nil) throws -> SweepReport {
        try Sweeper.run(root: root, path: path, policy: SweepPolicy(), goal: .everything(.contents),
                        dryRun: dryRun, now: now, operation: operation, reporter: reporter, cancellation: cancellation,
                        location: location)
    }

    /// Copies the item `name` in `source` to `destinationName` in `destination`. Files are
    /// copied byte for byte (writable by the owner whatever the source's mode), folders
    /// recursively, links as links; a device, socket or pipe fails the copy. Fails with `EEXIST`
    /// when the destination exists.
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
    static func copyFile(_ input: OpenFile, to destination: OpenFile, as name: String,
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
