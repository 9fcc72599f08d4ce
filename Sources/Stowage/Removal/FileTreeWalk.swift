/// A serial walk of a tree through file descriptors: never follows a link, never enters
/// another mount (a bind mount included: see ``MountIdentity``), and names entries by their
/// path below the root, as bytes (``RawPath``), so that every name can be acted on.
///
/// Used by the removal walk (``SweepEngine``), audits and ``DiskCache``'s index, which must act
/// on exactly the files they saw.
struct FileTreeWalk {
    /// One entry met by the walk.
    struct Entry {
        /// The folder holding it, relative to the root (``RawPath/root`` for the root itself).
        var folder: RawPath
        var name: RawPath
        var status: FileStatus
        /// The folder's descriptor, valid only while the entry is visited.
        let parentDescriptor: Int32
        /// The root's absolute path, when the walk was given it.
        let rootPath: RawPath?
        /// The entry's path relative to the root.
        var path: RawPath { folder.appending(name) }

        /// Whether the entry carries `marker` (read without opening it).
        ///
        /// Read by the absolute path when the walk knows its root's (an `lgetxattr` of a path
        /// costs about 2 µs less than one through `/proc/self/fd`, which a sweep of 100,000 files
        /// notices); by the folder's descriptor otherwise, and whenever the path does not lead to
        /// the entry any more. Only a read: removals never go by path.
        func carries(_ marker: Marker) throws -> Bool {
            if let rootPath, let answer = FileTreeWalk.carries(marker, at: path, below: rootPath) { return answer }
            return try ExtendedAttributes.has(marker.attribute, value: Marker.setValue, entry: name, inFolder: parentDescriptor)
        }

        /// Whether the entry is excluded from backup, read through its folder's descriptor and
        /// its name's bytes (never a path rebuilt from text, which a name that is not UTF-8
        /// would not survive).
        func isExcludedFromBackup() throws -> Bool {
            try BackupMarker.isExcluded(entry: name, inFolder: parentDescriptor)
        }
    }

    /// Whether the item at `path` below the root, whose absolute path is `rootPath`, carries
    /// `marker`, read by its absolute path; `nil` when that read fails (the path is too long, or
    /// does not lead to an item any more), and the caller reads it through the item's folder.
    static func carries(_ marker: Marker, at path: RawPath, below rootPath: RawPath) -> Bool? {
        let absolute = rootPath.appending(path)
        guard absolute.bytes.count < 4000 else { return nil }
        return try? absolute.withCString { try ExtendedAttributes.has(marker.attribute, value: Marker.setValue, atCPath: $0) }
    }

    /// Why a folder's contents were not walked.
    enum Problem {
        /// It could not be opened or read.
        case unreadable(SystemCallError)
        /// It is a mount point (of another file system, or a bind mount): left alone.
        case mountPoint
        /// It was replaced between being listed and being opened: left alone.
        case changed
    }

    let root: OpenFile
    let rootMount: MountIdentity
    let rootPath: RawPath?

    /// A walk of the open folder `root`; `rootPath`, its absolute path, speeds up marker reads.
    init(root: OpenFile, rootPath: String? = nil) throws {
        self.root = root
        rootMount = try root.mountIdentity()
        self.rootPath = rootPath.flatMap { $0.hasBytePrefix("/") ? RawPath($0) : nil }
    }

    /// Calls `visit` for every entry below the root (files, links, folders, before their
    /// contents). A folder is entered when `visit` returns `true` for it and it is on the root's
    /// mount. `folderDone` is called with each folder's path and its number of entries once it
    /// has been read. Folders not entered for a reason of the walk's own (unreadable, a mount
    /// point, replaced meanwhile) go to `problem`. An error `visit` throws ends the walk: visitors
    /// handle the errors of single entries themselves.
    func run(_ visit: (Entry) throws -> Bool, folderDone: (RawPath, Int) -> Void = { _, _ in },
             problem: (RawPath, Problem) -> Void) throws {
        #if DEBUG
        TestProbe.record(.fileTreeWalk)
        #endif
        // A new open description of the root (not a dup, which would share the read offset).
        try visitFolder(Sys.openat(root.descriptor, ".", Sys.folderReadOnly), folder: .root, visit, folderDone, problem)
    }

    private func visitFolder(_ descriptor: Int32, folder: RawPath, _ visit: (Entry) throws -> Bool,
                             _ folderDone: (RawPath, Int) -> Void, _ problem: (RawPath, Problem) -> Void) throws {
        let stream: DirectoryStream
        do {
            stream = try DirectoryStream(adopting: descriptor)
        } catch let error as SystemCallError {
            problem(folder, .unreadable(error))  // the stream closed the descriptor (it owns it, also when it throws)
            return
        }
        var entries = 0
        // The sub-folders to enter, by name and inode: each is opened only when its turn comes,
        // so the walk holds two descriptors per level, however wide a folder is.
        var subfolders: [(name: RawPath, inode: UInt64)] = []
        do {
            try stream.forEachEntry { listed in
                guard let status = try stream.status(of: listed.name, followingLinks: false) else { return true }
                entries += 1
                let entry = Entry(folder: folder, name: RawPath(listed), status: status,
                                  parentDescriptor: stream.descriptor, rootPath: rootPath)
                if try visit(entry), status.kind == .folder {
                    if status.device == rootMount.device {
                        subfolders.append((entry.name, status.inode))
                    } else {
                        problem(entry.path, .mountPoint)
                    }
                }
                return true
            }
        } catch let error as SystemCallError where error.call == DirectoryStream.readCall || error.call == "fstatat" {
            problem(folder, .unreadable(error))
            return
        }
        folderDone(folder, entries)
        for (name, inode) in subfolders {
            let path = folder.appending(name)
            let fd: Int32
            do {
                fd = try Sys.openat(stream.descriptor, name, Sys.folderReadOnly | Sys.noFollow)
            } catch let error as SystemCallError {
                if error.errno != .noSuchEntry { problem(path, .unreadable(error)) }  // gone: nothing to walk
                continue
            }
            // Checked on the folder opened, so a swap after the status (for a link, another
            // folder, or a mount) cannot lead the walk anywhere else.
            guard let opened = try? Sys.identity(fd), opened.inode == inode else {
                DirectoryStream.discard(fd)
                problem(path, .changed)
                continue
            }
            guard MountIdentity(device: opened.device, mountID: opened.mountID).isSameMount(as: rootMount) else {
                DirectoryStream.discard(fd)
                problem(path, .mountPoint)
                continue
            }
            try visitFolder(fd, folder: path, visit, folderDone, problem)
        }
    }
}

extension UsageIssue {
    /// The issue of a folder the walk did not enter, named by its absolute path.
    init(path: String, problem: FileTreeWalk.Problem) {
        self.init(pathBytes: Array(path.utf8), problem: problem)
    }

    /// The issue of a folder the walk did not enter, named by the bytes of its absolute path.
    init(pathBytes: [UInt8], problem: FileTreeWalk.Problem) {
        switch problem {
        case .unreadable(let error):
            self.init(pathBytes: pathBytes, errno: error.errno, message: error.errno.description + "; its contents were skipped")
        case .mountPoint:
            self.init(pathBytes: pathBytes, errno: nil, message: "a mount point (another file system or a bind mount); left alone")
        case .changed:
            self.init(pathBytes: pathBytes, errno: nil, message: "replaced while it was walked; left alone")
        }
    }
}
