import Foundation

/// Writes files atomically: into a temporary file beside the target, synced when durable,
/// then renamed over the target, then the folder synced when durable.
enum AtomicWrite {
    /// Writes the file `name` in `folder` with the content `write` produces.
    ///
    /// On failure the temporary file is removed and the target is untouched.
    ///
    /// A replaced file's markers (pinned, purgeable, excluded from backup: see `KeptMarkers`)
    /// are set on the new file before it is renamed into place, so saving again keeps them; a new
    /// file gets none. This costs one `llistxattr` of the old file on Linux.
    ///
    /// - Parameters:
    ///   - protection: New files get owner-only permissions for protected levels; with `nil`,
    ///     a replaced file keeps its permissions and a new one gets the platform default.
    ///   - replacing: When `false`, fails with `EEXIST` if `name` exists (no-replace rename).
    ///   - keepingMarkers: Pass the replaced file's markers on (for the files of users; Stowage's
    ///     own records, which carry none, skip the look).
    static func write(
        into folder: OpenFile, name: String, durable: Bool, protection: FileProtection?,
        replacing: Bool = true, keepingMarkers: Bool = true,
        _ write: (OpenFile) throws -> Void
    ) throws {
        let kept = replacing && keepingMarkers ? try KeptMarkers.of(entry: name, in: folder) : KeptMarkers()
        let temporary = TemporaryItem.makeName()
        let mode = protection.fileMode
        let file = try folder.open(temporary, flags: Sys.writeCreateExclusive, mode: mode)
        do {
            // Before the permissions: a file kept read-only would refuse attributes afterwards.
            if !kept.isEmpty { try kept.apply(to: file) }
            if protection == nil, replacing, let existing = try folder.statusIfPresent(of: name), existing.isFile {
                try file.setPermissions(FilePermissions(rawValue: existing.permissions))
            }
            if let protection { try Self.applyProtection(protection, to: file) }
            try write(file)
            if durable { try file.syncData() }
            try file.close()
            try FaultPoint.atomicWriteBeforeRename.reach()
            if replacing {
                try folder.rename(temporary, to: folder, as: name)
            } else {
                try folder.renameWithoutReplacing(temporary, to: folder, as: name)
            }
        } catch {
            try? folder.removeEntry(temporary, folder: false)  // best effort: the original error is what matters
            throw error
        }
        try FaultPoint.atomicWriteRenamed.reach()
        if durable { try folder.syncFolder() }
    }

    /// Writes `data` as the file `name` in `folder`.
    static func write(_ data: Data, into folder: OpenFile, name: String, durable: Bool,
                      protection: FileProtection?, replacing: Bool = true, keepingMarkers: Bool = true) throws {
        try write(into: folder, name: name, durable: durable, protection: protection, replacing: replacing,
                  keepingMarkers: keepingMarkers) { file in
            try file.writeAll(data)
        }
    }

    static func applyProtection(_ protection: FileProtection, to file: OpenFile) throws {
        try Sys.applyProtection(level: protection.level, ownerOnly: protection.isOwnerOnly, to: file.descriptor)
    }
}


extension AtomicWrite {
    /// Runs `body`, and runs it again (eight times in all at most) while it fails with ENOENT.
    ///
    /// Sweeps remove the folders they empty. A write can find or make its folder just before a
    /// sweep removes it, and then fail to create its file there with ENOENT; running the write
    /// again makes the folder again. `body` must open its folders itself, and change nothing
    /// that a second run would repeat before the step that can fail so (a sweep removes only
    /// empty folders, so a folder that gets a file stays).
    static func retryingVanishedFolders<Result>(_ body: () throws -> Result) throws -> Result {
        var attempt = 1
        while true {
            do {
                return try body()
            } catch Errno.noSuchEntry where attempt < 8 {
                attempt += 1
            }
        }
    }
}
