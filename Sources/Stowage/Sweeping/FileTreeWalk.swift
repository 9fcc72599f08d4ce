/// A serial walk of a tree through file descriptors: never follows a link, never enters a
/// folder on another file system, and names entries by their path below the root.
///
/// Used by sweeps and audits, which must act on exactly the files they saw.
struct FileTreeWalk {
    /// One entry met by the walk.
    struct Entry {
        /// The folder holding it, relative to the root ("" for the root itself).
        var folder: String
        var name: String
        var status: FileStatus
        /// The entry's path relative to the root.
        var path: String { folder.isEmpty ? name : folder + "/" + name }
    }

    let root: OpenFile
    let rootDevice: UInt64

    init(root: OpenFile) throws {
        self.root = root
        rootDevice = try root.status().device
    }

    /// Calls `visit` for every entry below the root (files, links, folders, before their
    /// contents). A folder is entered when `visit` returns `true` for it. `folderDone` is called
    /// with each folder's path and its number of entries once it has been read. Unreadable folders
    /// go to `problem` and are skipped.
    func run(_ visit: (Entry) throws -> Bool, folderDone: (String, Int) -> Void = { _, _ in },
             problem: (String, SystemCallError) -> Void) throws {
        // A new open description of the root (not a dup, which would share the read offset).
        try visitFolder(Sys.openat(root.descriptor, ".", Sys.folderReadOnly), folder: "", visit, folderDone, problem)
    }

    private func visitFolder(_ descriptor: Int32, folder: String, _ visit: (Entry) throws -> Bool,
                             _ folderDone: (String, Int) -> Void, _ problem: (String, SystemCallError) -> Void) throws {
        let stream: DirectoryStream
        do {
            stream = try DirectoryStream(adopting: descriptor)
        } catch let error as SystemCallError {
            try? Sys.close(descriptor)  // best effort: the stream could not take it over
            problem(folder, error)
            return
        }
        var entries = 0
        var subfolders: [(String, Int32)] = []
        do {
            try stream.forEach { cName, _ in
                guard let status = try stream.status(of: cName, followingLinks: false) else { return true }
                entries += 1
                let entry = Entry(folder: folder, name: String(cString: cName), status: status)
                let enter = try visit(entry)
                if enter, status.kind == .folder, status.device == rootDevice,
                   let fd = stream.openFolder(cName, followingLinks: false) {
                    subfolders.append((entry.name, fd))
                }
                return true
            }
        } catch let error as SystemCallError {
            for (_, fd) in subfolders { DirectoryStream.discard(fd) }
            problem(folder, error)
            return
        }
        folderDone(folder, entries)
        for (index, (name, fd)) in subfolders.enumerated() {
            do {
                try visitFolder(fd, folder: folder.isEmpty ? name : folder + "/" + name, visit, folderDone, problem)
            } catch {
                for (_, rest) in subfolders[(index + 1)...] { DirectoryStream.discard(rest) }
                throw error
            }
        }
    }
}
