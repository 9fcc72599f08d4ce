import Foundation

extension Store {
    /// Copies a read-only resource (a file or folder, such as one from `Bundle.module`) into
    /// `location` on first use and returns the writable copy's URL; later calls return the
    /// existing copy without copying again.
    ///
    /// This is the usual answer to "the app bundle is read-only but I must edit this file".
    /// The copy is made under a temporary name and renamed into place, so a crash never leaves
    /// half a copy, and two processes materialising at once end with one complete copy. The
    /// copy is writable by its owner whatever the resource's permissions.
    ///
    /// ```swift
    /// let seed = Bundle.module.url(forResource: "seed", withExtension: "sqlite")!
    /// let database = try store.materialize(seed, to: "seed.sqlite", in: .applicationSupport)
    /// ```
    ///
    /// - Important: Once copied, the copy is yours: a newer resource in a later app version does
    ///   not replace it. Remove the copy (or version its path) to pick up a new resource.
    /// - Throws: ``StowageError/Code/notFound`` naming the resource when it does not exist,
    ///   ``StowageError/Code/invalidPath``, ``StowageError/Code/noSpace``.
    @discardableResult
    public func materialize(_ resource: URL, to path: String, in location: Location = .applicationSupport,
                            options: WriteOptions = .default) throws -> URL {
        let destination = try url(for: path, in: location)
        let resourcePath = resource.standardizedFileURL.fileSystemPath
        try perform(.materialize, location, path) {
            let relative = try RelativePath(path)
            try AtomicWrite.retryingVanishedFolders {
                guard let folder = try openParent(of: relative, in: location, create: true,
                                                  protection: options.protection, operation: .materialize) else {
                    throw StowageError(.notFound, operation: .materialize, location: location, path: path)
                }
                if try folder.statusIfPresent(of: relative.name) != nil { return }
                let parentPath = resource.standardizedFileURL.deletingLastPathComponent().fileSystemPath
                let resourceName = resource.standardizedFileURL.lastPathComponent
                guard try Self.itemExists(atPath: resourcePath) else {
                    throw StowageError(.notFound, operation: .materialize, path: resourcePath,
                                       errno: .noSuchEntry, systemCall: "stat",
                                       reason: "the resource to copy does not exist")
                }
                let source = try OpenFile.openFolder(atPath: parentPath, followingLinks: true)
                let temporary = TemporaryItem.makeName()
                let durable = options.isDurable(in: location)
                do {
                    try TreeOperations.copy(RawPath(resourceName), in: source, to: folder, as: RawPath(temporary), durable: durable,
                                            protection: options.protection, followingLink: true)
                    try folder.renameWithoutReplacing(temporary, to: folder, as: relative.name)
                } catch Errno.fileExists, Errno.notEmpty {
                    try Removal.removeItem(temporary, in: folder)  // another process materialised it first
                    return
                } catch {
                    try? Removal.removeItem(temporary, in: folder)  // best effort: the copy is incomplete anyway
                    throw error
                }
                if durable { try folder.syncFolder() }
            }
        }
        return destination
    }

    /// Whether anything is at the absolute `path`, following links.
    private static func itemExists(atPath path: String) throws -> Bool {
        do {
            _ = try Sys.stat(path)
            return true
        } catch Errno.noSuchEntry {
            return false
        }
    }
}
