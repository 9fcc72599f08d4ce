import Foundation

extension Container {
    /// Opens the folder of `location`, creating it (and the folders above it) when `create`
    /// is set. Created folders are owner-only (0700).
    ///
    /// For locations in a folder other users can write to (the default container's `tmp`), the
    /// folder must be a real folder, not a link, owned by the current user; otherwise the call
    /// fails with ``StowageError/Code/permissionDenied`` rather than write into (or clear)
    /// someone else's files.
    ///
    /// - Returns: `nil` when the folder does not exist and `create` is not set.
    func openFolder(of location: Location, create: Bool, operation: StowageError.Operation) throws -> OpenFile? {
        let path = try url(for: location).fileSystemPath
        do {
            // One lstat on the common path (the folder is there), not a mkdir per component.
            if create, try Self.statusIfPresent(atPath: path) == nil { try Self.createFolders(atPath: path) }
            if ownershipCheckedLocations.contains(location) {
                guard let status = try Self.statusIfPresent(atPath: path) else { return nil }
                guard status.kind == .folder, status.userID == Sys.effectiveUserID else {
                    throw StowageError(.permissionDenied, operation: operation, location: location, path: "",
                                       reason: "\(path) is not a folder owned by the current user")
                }
                let folder = try OpenFile.openFolder(atPath: path, followingLinks: false)
                let opened = try folder.status()
                guard opened.inode == status.inode, opened.device == status.device else {
                    throw StowageError(.permissionDenied, operation: operation, location: location, path: "",
                                       reason: "\(path) changed while it was opened")
                }
                return folder
            }
            let folder = try OpenFile.openFolder(atPath: path, followingLinks: true)
            if create && location == .caches { try CacheDirectoryTag.ensure(in: folder) }
            return folder
        } catch let error as SystemCallError where error.errno == Sys.noSuchEntry && !create {
            return nil
        } catch let error as SystemCallError {
            throw StowageError(error, operation: operation, location: location, path: "")
        }
    }

    /// `mkdir -p` with owner-only permissions for what it creates.
    static func createFolders(atPath path: String) throws {
        var prefix = ""
        for name in RelativePath.names(in: path) {
            prefix += "/" + name
            do {
                try Sys.mkdir(prefix, mode: Sys.ownerOnlyFolder)
            } catch let error as SystemCallError where error.errno == Sys.exists {
                continue
            }
        }
    }

    static func statusIfPresent(atPath path: String) throws -> FileStatus? {
        do {
            return try Sys.lstat(path)
        } catch let error as SystemCallError where error.errno == Sys.noSuchEntry {
            return nil
        }
    }
}

extension Container {
    /// Whether the folder of `location` exists now (it is created on first write).
    ///
    /// - Throws: as ``url(for:)``; a folder that cannot be examined (no permission) counts as
    ///   existing, since something is there.
    public func folderExists(for location: Location) throws -> Bool {
        let path = try url(for: location).fileSystemPath
        do {
            return try Self.statusIfPresent(atPath: path) != nil
        } catch let error as SystemCallError {
            throw StowageError(error, operation: .locate, location: location, path: "")
        }
    }
}

extension URL {
    /// The path for system calls: not percent-encoded, and without a trailing slash, because
    /// `lstat("link/")` follows the link where `lstat("link")` does not.
    var fileSystemPath: String {
        var path = self.path(percentEncoded: false)
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
