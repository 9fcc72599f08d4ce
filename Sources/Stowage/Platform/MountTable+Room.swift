extension MountTable {
    /// The mount points strictly below `folder` (an absolute path without links), parents
    /// before children: the mounts a room over `folder` covers with overlays of their own.
    /// None when the table cannot be read (a room cannot be made then anyway: its overlays
    /// name their folders through `/proc/self/fd`).
    static func mountPoints(below folder: String) -> [String] {
        guard let entries = try? entries() else { return [] }
        let prefix = folder == "/" ? "/" : folder + "/"
        let points = Set(entries.map(\.mountPoint).filter { $0.hasBytePrefix(prefix) && $0.utf8.count > prefix.utf8.count })
        return points.sorted { ($0.split(separator: "/").count, $0) < ($1.split(separator: "/").count, $1) }
    }
}
