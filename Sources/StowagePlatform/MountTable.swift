/// The system's table of mounted file systems, as the Platform layer reads it: on Linux
/// `/proc/self/mountinfo` (this process's mount namespace), on Apple platforms `getmntinfo(3)`.
package enum MountTable {
    /// One mounted file system.
    package struct Entry: Sendable, Hashable {
        /// The device its files report (`st_dev`): bind mounts of one file system share it.
        package var device: UInt64
        /// The folder of the file system mounted here (`/` unless only part of it is, as in a
        /// bind mount of a sub-folder); `/` where the system does not tell.
        package var root: String
        /// Where it is mounted, as text (U+FFFD for bytes that are not UTF-8): for people.
        package var mountPoint: String
        /// Where it is mounted, exactly as the system has it: what is measured and compared.
        package var mountPointPath: RawPath
        /// The file system type (`ext4`, `tmpfs`, `apfs`, ...).
        package var type: String
        /// What is mounted: a device (`/dev/sda1`), a server's export, or a name (`tmpfs`).
        package var source: String
        /// The mount's identity (mountinfo's first field, `statx`'s `stx_mnt_id`); `nil` where
        /// the system does not tell.
        package var mountID: UInt64? = nil

        /// - Parameter mountPointPath: the mount point's bytes, when they need not be UTF-8
        ///   (`mountPoint`'s UTF-8 when `nil`).
        package init(device: UInt64, root: String, mountPoint: String, mountPointPath: RawPath? = nil, type: String, source: String,
                     mountID: UInt64? = nil) {
            self.device = device
            self.root = root
            self.mountPoint = mountPoint
            self.mountPointPath = mountPointPath ?? RawPath(mountPoint)
            self.type = type
            self.source = source
            self.mountID = mountID
        }
    }

    /// The mount of `device` whose mount point is the longest prefix of `path` (itself resolved
    /// with `realpath`); failing that, the mount covering `path`. Best effort: `nil` when the
    /// table cannot be read (mount point and type are informative extras).
    package static func mount(containing path: String, device: UInt64) -> Entry? {
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

    /// The paths through which the top folder of the mount `mountID` can be seen with more of its
    /// file system above it. When that mount is a bind mount of a sub-folder (its root is not
    /// `/`), the folders above its top are on no path through it; another mount of the same file
    /// system whose root holds that sub-folder shows them. The fullest view (the shortest root)
    /// comes first. Empty when the mount shows its file system from its root, no other mount
    /// shows it, or the table cannot be read (best effort). A path is built from the table's text:
    /// the caller opens it and checks that it is the same folder (device and inode) before use.
    package static func fullerViews(ofMount mountID: UInt64) -> [String] {
        guard let entries = try? entries(), let mine = entries.first(where: { $0.mountID == mountID }), mine.root != "/" else {
            return []
        }
        return entries.filter { entry in
            entry.device == mine.device && entry.mountID != mountID && entry.root.utf8.count < mine.root.utf8.count
                && (entry.root == "/" || mine.root.hasBytePrefix(entry.root + "/"))
        }
        .sorted { $0.root.utf8.count < $1.root.utf8.count }
        .map { entry in
            let inside = entry.root == "/" ? mine.root : String(decoding: mine.root.utf8.dropFirst(entry.root.utf8.count), as: UTF8.self)
            return entry.mountPoint == "/" ? inside : entry.mountPoint + inside
        }
    }
}
