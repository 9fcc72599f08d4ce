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

    /// Why `folder` must not be walked by a deleting operation, or `nil`. A home folder (or a
    /// folder above it) that cannot be examined is a reason too: `folder` might be it.
    static func protection(of folder: OpenFile) throws -> String? {
        let status = try folder.status()
        var unknown: String?
        func same(_ path: RawPath) -> Bool {
            switch examine(path) {
            case .present(let other): return other.device == status.device && other.inode == status.inode
            case .absent: return false
            case .unknown(let why):
                unknown = unknown ?? why
                return false
            }
        }
        if same(RawPath("/")) { return "it is the root folder" }
        for home in homeFolders() {
            if same(home) { return "it is the home folder" }
            var ancestor = home
            while !ancestor.equals("/") && !ancestor.isEmpty {
                let parent = ancestor.parentAndName.parent
                ancestor = parent.isEmpty ? RawPath("/") : parent
                if same(ancestor) { return "it holds the home folder (\(home))" }
            }
        }
        return unknown.map { "could not tell whether it is or holds the home folder (\($0))" }
    }

    /// What `stat(2)` (following links) says of `/`, a home folder or a folder above it.
    enum Examined {
        case present(FileStatus)
        /// Nothing is there: a home folder that does not exist holds nothing.
        case absent
        /// It could not be examined, for the reason given (`stat '/x' failed: ...`).
        case unknown(String)
    }

    /// Examines `/`, a home folder or a folder above it (its path as bytes), to compare it with
    /// what an operation is about to act on.
    static func examine(_ path: RawPath) -> Examined {
        do {
            return .present(try Sys.stat(path))
        } catch Errno.noSuchEntry {
            return .absent
        } catch let error as SystemCallError {
            return .unknown("stat '\(path)' failed: \(error.errno)")
        } catch {
            return .unknown("stat '\(path)' failed: \(error)")
        }
    }

    /// The home folder as `HOME` gives it and as the system does (the password database on
    /// Linux, `NSHomeDirectory()` on Apple platforms; they can differ), each also with its links
    /// resolved, so the folders holding it are known however reached. Bytes, exactly: a home
    /// whose path is not UTF-8 is protected like any other (a UTF-8 path through a link can
    /// reach it).
    static func homeFolders() -> [RawPath] {
        var homes: [RawPath] = []
        let named = [Sys.environmentBytes("HOME").map { RawPath(bytes: $0) }, Sys.homeFolderOfUser()]
        for case let home? in named where home.hasPrefix("/") {
            for spelling in [home, Sys.resolvedBytes(home)] where !homes.contains(spelling) {
                homes.append(spelling)
            }
        }
        return homes
    }
}
