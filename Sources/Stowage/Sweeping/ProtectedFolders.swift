import Foundation

/// The refusals every deleting operation makes before it walks a folder named by a path:
/// an empty path (which the system would read as the current folder), a folder that is itself a
/// symbolic link, and, unless asked for, `/`, the home folder and every folder above it.
///
/// Folders are compared by device and inode on the opened folder, so no spelling (`/home/..`,
/// `//`, a link to `/`) gets past the check.
enum ProtectedFolders {
    /// Opens the folder at `path` for a deleting operation, never through a final link.
    static func openNamedFolder(_ path: String, operation: StowageError.Operation,
                                allowingSystemFolders: Bool) throws -> OpenFile {
        guard !path.isEmpty else {
            throw StowageError(.invalidPath, operation: operation, path: path,
                               reason: "the path is empty (it would mean the current folder); name the folder")
        }
        let folder: OpenFile
        do {
            folder = try OpenFile.openFolder(atPath: path, followingLinks: false)
        } catch let error as SystemCallError {
            if [.tooManySymbolicLinkLevels, .notFolder].contains(error.errno),
               let status = try? Sys.lstat(path), status.kind == .symbolicLink {
                throw StowageError(.invalidPath, operation: operation, path: path,
                                   reason: "it is a symbolic link; name the folder it leads to, never the link")
            }
            throw StowageError(error, operation: operation, path: path)
        }
        if !allowingSystemFolders, let reason = try protection(of: folder) {
            throw StowageError(.refused, operation: operation, path: path,
                               reason: "\(reason); pass --force (allowingSystemFolders) if you really mean it")
        }
        return folder
    }

    /// Why `folder` must not be walked by a deleting operation, or `nil`.
    static func protection(of folder: OpenFile) throws -> String? {
        let status = try folder.status()
        func same(_ path: String) -> Bool {
            guard let other = try? Sys.stat(path) else { return false }
            return other.device == status.device && other.inode == status.inode
        }
        if same("/") { return "it is the root folder" }
        for home in homeFolders() {
            if same(home) { return "it is the home folder" }
            var ancestor = URL(filePath: home, directoryHint: .isDirectory)
            while ancestor.fileSystemPath != "/" {
                ancestor = ancestor.deletingLastPathComponent()
                if same(ancestor.fileSystemPath) { return "it holds the home folder (\(home))" }
            }
        }
        return nil
    }

    /// The home folder as `HOME` gives it and as the password database does (they can differ),
    /// each also with its links resolved, so the folders holding it are known however reached.
    private static func homeFolders() -> [String] {
        var homes: [String] = []
        let named = [ProcessInfo.processInfo.environment["HOME"], Container.homeFromPasswordDatabase()]
        for case let home? in named where home.hasBytePrefix("/") {
            for spelling in [home, URL(filePath: home).resolvingSymlinksInPath().fileSystemPath] where !homes.contains(spelling) {
                homes.append(spelling)
            }
        }
        return homes
    }
}
