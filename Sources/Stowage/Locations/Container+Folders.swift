import Foundation

extension Container {
    /// Opens the folder of `location`, creating it (and the folders above it) when `create`
    /// is set. Created folders are owner-only (0700).
    ///
    /// The folders that belong to the container (``ownedNames(of:)``: `Library` and `Caches`
    /// of a rooted container, `<app>` in `$XDG_CACHE_HOME`, ...) are opened one by one without
    /// following a link: a location whose folder is a link fails with
    /// ``StowageError/Code/invalidPath`` naming it, so nothing (a write, a `clear`, relief) can
    /// be redirected into the link's target. The folders above them (the root, the XDG base
    /// folders, the home folder) are where the user or the system put them, links included.
    ///
    /// For locations in a folder other users can write to (the default container's `tmp`), the
    /// folder must also be owned by the current user; otherwise the call fails with
    /// ``StowageError/Code/permissionDenied`` rather than write into (or clear) someone else's
    /// files.
    ///
    /// - Returns: `nil` when the folder does not exist and `create` is not set.
    func openFolder(of location: Location, create: Bool, operation: StowageError.Operation) throws -> OpenFile? {
        let path = try url(for: location).fileSystemPath
        let names = RelativePath.names(in: path)
        let owned = names.suffix(ownedNames(of: location))
        var walked = "/" + names.dropLast(owned.count).joined(separator: "/")
        do {
            // One lstat on the common path (the folder is there), not a mkdir per component.
            if create, try Self.statusIfPresent(atPath: walked) == nil { try Self.createFolders(atPath: walked) }
            var folder = try OpenFile.openFolder(atPath: walked, followingLinks: true)
            for name in owned {
                walked += (walked == "/" ? "" : "/") + name
                folder = try Self.openOwnedFolder(name, in: folder, create: create, path: walked,
                                                  location: location, operation: operation)
            }
            let status = try folder.status()
            if ownershipCheckedLocations.contains(location), status.userID != Sys.effectiveUserID {
                throw StowageError(.permissionDenied, operation: operation, location: location, path: "",
                                   reason: "\(path) is not a folder owned by the current user")
            }
            if status.permissions & Sys.sharedFolderBits == Sys.sharedFolderBits {
                throw StowageError(.permissionDenied, operation: operation, location: location, path: "",
                                   reason: "\(path) is a folder every user writes to (sticky and world-writable, as /tmp); "
                                       + "a location's folder must be the app's own")
            }
            return folder
        } catch Errno.noSuchEntry where !create {
            return nil
        } catch let error as SystemCallError {
            throw StowageError(error, operation: operation, location: location, path: "")
        }
    }

    /// Refuses a deleting operation on a rooted container whose root is `/`, the home folder or
    /// a folder above it: its locations would be the system's or the user's own folders
    /// (`/tmp`, `~/Documents`, `~/Library/Caches` of every app).
    func refuseSystemRoot(for operation: StowageError.Operation) throws {
        guard kind == .rooted, let root else { return }
        let path = root.fileSystemPath
        let folder: OpenFile
        do {
            folder = try OpenFile.openFolder(atPath: path, followingLinks: true)
        } catch Errno.noSuchEntry {
            return  // no root yet: nothing there to delete
        } catch let error as SystemCallError {
            throw StowageError(error, operation: operation, path: path)  // cannot tell what it is: do not go on
        }
        if let reason = try ProtectedFolders.protection(of: folder) {
            throw StowageError(.refused, operation: operation, path: path,
                               reason: "the container's root: \(reason); its locations would be the system's or your own folders")
        }
    }

    /// Opens (and when `create` is set, makes) the folder `name` of a location's own path,
    /// never through a link.
    private static func openOwnedFolder(_ name: String, in parent: OpenFile, create: Bool, path: String,
                                        location: Location, operation: StowageError.Operation) throws -> OpenFile {
        if create {
            do {
                try parent.createFolder(name, mode: .ownerOnlyFolder)
            } catch Errno.fileExists {
                // there already (or a link, refused below)
            }
        }
        do {
            return try parent.openFolder(name)
        } catch let error as SystemCallError {
            guard [.tooManySymbolicLinkLevels, .notFolder].contains(error.errno),
                  try parent.statusIfPresent(of: name)?.kind == .symbolicLink else { throw error }
            throw StowageError(.invalidPath, operation: operation, location: location, path: "",
                               reason: "\(path) is a symbolic link; Stowage never reaches a location's folder through a link")
        }
    }

    /// How many names at the end of `location`'s folder path belong to the container (and so
    /// must be real folders, never links): those below the rooted container's root, the app's
    /// folder and what is below it in the XDG base folders, the app's folder in the sandbox.
    func ownedNames(of location: Location) -> Int {
        switch kind {
        case .rooted:
            switch location {
            case .documents, .temporary: return 1
            case .applicationSupport, .caches, .preferences: return 2
            case .sharedContainer: return 3
            }
        case .xdg:
            switch location {
            case .documents, .applicationSupport, .sharedContainer: return 2
            case .caches, .preferences, .temporary: return 1
            }
        default:
            if case .sharedContainer = location { return 0 }  // the system's own folder for the group
            return 1
        }
    }

    /// `mkdir -p` with owner-only permissions for what it creates.
    static func createFolders(atPath path: String) throws {
        var prefix = ""
        for name in RelativePath.names(in: path) {
            prefix += "/" + name
            do {
                try Sys.mkdir(prefix, mode: .ownerOnlyFolder)
            } catch Errno.fileExists {
                continue
            }
        }
    }

    static func statusIfPresent(atPath path: String) throws -> FileStatus? {
        do {
            return try Sys.lstat(path)
        } catch Errno.noSuchEntry {
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
