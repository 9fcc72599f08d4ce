#if canImport(Darwin)
import Darwin

extension MountTable {
    /// The mounted file systems `getmntinfo_r_np(3)` lists (the thread-safe `getmntinfo`;
    /// `MNT_NOWAIT`: what the kernel has, without asking each file system, so a dead network
    /// mount cannot hang the call).
    ///
    /// Nothing else touches the mounts: the device of each is `f_fsid.val[0]`, which is what
    /// `stat` reports as `st_dev` for the files on it (xnu's `vnode_getattr` fills `va_fsid`, the
    /// source of `st_dev`, from the mount's `f_fsid.val[0]`; its bind and null mounts report their
    /// own mount's). A `stat` of each mount point, as this did before, waits on a dead NFS or SMB
    /// server and triggers autofs mounts.
    ///
    /// - Throws: a `SystemCallError` when the call fails (it returns 0 and sets `errno`).
    package static func entries() throws -> [Entry] {
        var table: UnsafeMutablePointer<statfs>?
        let count = getmntinfo_r_np(&table, MNT_NOWAIT)
        defer { free(table) }  // the caller owns the buffer of the `_r_np` variant
        guard count > 0, let table else { throw SystemCallError(errno: .current, call: "getmntinfo_r_np") }
        return (0..<Int(count)).map { index in
            var figures = table[index]
            let device = UInt64(UInt32(bitPattern: figures.f_fsid.val.0))  // as FileStatus reads `st_dev`
            return Entry(device: device, root: "/", mountPoint: name(of: &figures.f_mntonname),
                         type: name(of: &figures.f_fstypename), source: name(of: &figures.f_mntfromname))
        }
    }

    /// What errors name when the table cannot be read.
    package static let description = "the mount table (getmntinfo)"

    /// A NUL-terminated name in a fixed-size field of `statfs`.
    private static func name<Field>(of field: inout Field) -> String {
        withUnsafeBytes(of: &field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
#endif
