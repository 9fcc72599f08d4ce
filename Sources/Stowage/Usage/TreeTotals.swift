/// Sizes and counts of a tree, from `lstat`: logical bytes (`st_size`) and allocated bytes
/// (`st_blocks * 512`), hard links counted once, links never followed.
struct TreeTotals: Sendable, Equatable {
    var logicalBytes: Int64 = 0
    var allocatedBytes: Int64 = 0
    var files = 0
    var folders = 0
    var symbolicLinks = 0
    var others = 0

    /// The totals of everything inside `folder` (not the folder itself), on any device.
    ///
    /// Entries that vanish during the walk are skipped; folders that cannot be opened are
    /// skipped and counted in `unreadable`.
    static func of(_ folder: OpenFile, unreadable: inout Int) throws -> TreeTotals {
        var totals = TreeTotals()
        var seen = Set<FileIdentity>()
        try totals.add(contentsOf: folder, seen: &seen, unreadable: &unreadable)
        return totals
    }

    private mutating func add(contentsOf folder: OpenFile, seen: inout Set<FileIdentity>, unreadable: inout Int) throws {
        for name in try folder.entryNames() {
            guard let status = try folder.statusIfPresent(of: name) else { continue }
            if status.linkCount > 1 && status.kind != .folder {
                guard seen.insert(FileIdentity(device: status.device, inode: status.inode)).inserted else { continue }
            }
            logicalBytes += status.size
            allocatedBytes += status.allocatedSize
            switch status.kind {
            case .file: files += 1
            case .symbolicLink: symbolicLinks += 1
            case .other: others += 1
            case .folder:
                folders += 1
                let child: OpenFile
                do {
                    child = try folder.openFolder(name)
                } catch let error as SystemCallError where error.errno != Sys.noSuchEntry {
                    unreadable += 1
                    continue
                } catch {
                    continue
                }
                try add(contentsOf: child, seen: &seen, unreadable: &unreadable)
            }
        }
    }
}

/// A file's identity on its device, to count hard links once.
struct FileIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
}
