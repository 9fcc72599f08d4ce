import Foundation

extension Sweeper {
    /// Removes one file or folder a person named (the usage browser's delete), through the
    /// removal walk and under the rules of `clear`: a folder goes with everything in it, but
    /// pinned files and folders (and everything under a pinned folder, also above `path`), writes
    /// in progress and Stowage's own records stay, no other mount is entered, nothing is reached
    /// through a link, and each file is checked again just before it goes.
    ///
    /// `path` is absolute and given as bytes (a name in a scanned tree need not be UTF-8, see
    /// ``UsageItem/pathBytes``). The folders above it may be links; the item itself is never
    /// followed (a link is removed as a link).
    ///
    /// ```swift
    /// let report = try Sweeper.removeItem(atPath: Array("/tmp/build/old-cache".utf8))
    /// print("freed", ByteCount(report.freedAllocatedBytes).formatted(), "kept", report.pinnedItemCount, "pinned")
    /// ```
    ///
    /// - Parameters:
    ///   - path: The file or folder to remove, as an absolute path.
    ///   - dryRun: Report what would be removed, and remove nothing.
    /// - Returns: What was removed: the files in ``SweepReport/removed``, the folders emptied and
    ///   removed in ``SweepReport/removedFolders`` (relative to the folder holding the item, the
    ///   item itself included when it went whole), the pinned items kept and the files that could
    ///   not be removed (``SweepReport/issues``: another user's files in a sticky folder, say).
    /// - Throws: ``StowageError/Code/invalidPath`` for a path that is not absolute or names no
    ///   item (`/`, `.`, `..`); ``StowageError/Code/refused`` for `/`, the home folder or a
    ///   folder holding it, as ``sweep(_:dryRun:now:allowingSystemFolders:)`` refuses them, and
    ///   for a mount point; ``StowageError/Code/notFound`` when nothing is there. Pins are not
    ///   errors: what they protect is kept and counted.
    /// - Important: What is removed is gone; nothing is moved to a trash.
    public static func removeItem(atPath path: [UInt8], dryRun: Bool = false) throws -> SweepReport {
        let raw = RawPath(bytes: path)
        let text = raw.description
        let (parentPath, name) = raw.parentAndName
        guard path.first == UInt8(ascii: "/"), !name.isEmpty, !name.equals("."), !name.equals("..") else {
            throw StowageError(.invalidPath, operation: .remove, path: text,
                               reason: "name one file or folder by its absolute path")
        }
        let parentText = parentPath.isEmpty ? "/" : parentPath.description
        do {
            let parent = try OpenFile.openFolder(atPath: parentPath.isEmpty ? RawPath("/") : parentPath, followingLinks: true)
            let status = try Sys.fstatat(parent.descriptor, name)
            if status.isFolder {
                let folder = try parent.openFolder(name)
                if let reason = try ProtectedFolders.protection(of: folder) {
                    throw StowageError(.refused, operation: .remove, path: text, reason: reason)
                }
                guard try folder.mountIdentity().isSameMount(as: parent.mountIdentity()) else {
                    throw StowageError(.refused, operation: .remove, path: text,
                                       reason: "it is a mount point; Stowage never removes across a mount")
                }
            }
            return try Removal.run(root: parent, path: parentText, .entry(name), dryRun: dryRun, operation: .remove)
        } catch let error as SystemCallError {
            throw StowageError(error, operation: .remove, path: text)
        }
    }
}
