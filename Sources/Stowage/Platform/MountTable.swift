/// The system's table of mounted file systems, as the Platform layer reads it: on Linux
/// `/proc/self/mountinfo` (this process's mount namespace), on Apple platforms `getmntinfo(3)`.
enum MountTable {
    /// One mounted file system.
    struct Entry: Sendable, Hashable {
        /// The device its files report (`st_dev`): bind mounts of one file system share it.
        var device: UInt64
        /// The folder of the file system mounted here (`/` unless only part of it is, as in a
        /// bind mount of a sub-folder); `/` where the system does not tell.
        var root: String
        /// Where it is mounted.
        var mountPoint: String
        /// The file system type (`ext4`, `tmpfs`, `apfs`, ...).
        var type: String
        /// What is mounted: a device (`/dev/sda1`), a server's export, or a name (`tmpfs`).
        var source: String
    }

    /// The mount of `device` whose mount point is the longest prefix of `path` (itself resolved
    /// with `realpath`); failing that, the mount covering `path`. Best effort: `nil` when the
    /// table cannot be read (mount point and type are informative extras).
    static func mount(containing path: String, device: UInt64) -> Entry? {
        guard let entries = try? entries() else { return nil }
        let path = Sys.canonicalPath(path)
        var onDevice: Entry?
        var covering: Entry?
        for entry in entries {
            let point = entry.mountPoint
            guard path == point || point == "/" || path.hasBytePrefix(point + "/") else { continue }
            if entry.device == device, point.utf8.count >= (onDevice?.mountPoint.utf8.count ?? 0) { onDevice = entry }
            if point.utf8.count >= (covering?.mountPoint.utf8.count ?? 0) { covering = entry }
        }
        return onDevice ?? covering
    }
}
