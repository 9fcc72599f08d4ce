extension MountTable {
    /// The mount points strictly below `folder` (an absolute path without links) among
    /// `entries`, parents before children: the mounts a room over `folder` covers with overlays
    /// of their own.
    package static func mountPoints(below folder: String, in entries: [Entry]) -> [String] {
        let prefix = folder == "/" ? "/" : folder + "/"
        return Set(entries.map(\.mountPoint).filter { $0.hasBytePrefix(prefix) && $0.utf8.count > prefix.utf8.count })
            .sortedParentsFirst()
    }
}

extension Sequence<String> {
    /// Absolute paths with fewer components first, then by name: a folder before what is in it.
    package func sortedParentsFirst() -> [String] {
        sorted { ($0.split(separator: "/").count, $0) < ($1.split(separator: "/").count, $1) }
    }
}
