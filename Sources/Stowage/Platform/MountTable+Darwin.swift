#if canImport(Darwin)
import Darwin

extension MountTable {
    /// The mounted file systems `getmntinfo_r_np(3)` lists (the thread-safe `getmntinfo`;
    /// `MNT_NOWAIT`: what the kernel has, without asking each file system, so a dead network
    /// mount cannot hang the call).
    ///
    /// - Throws: a `SystemCallError` when the call fails (it returns 0 and sets `errno`).
    static func entries() throws -> [Entry] {
        var table: UnsafeMutablePointer<statfs>?
        let count = getmntinfo_r_np(&table, MNT_NOWAIT)
        defer { free(table) }  // the caller owns the buffer of the `_r_np` variant
        guard count > 0, let table else { throw SystemCallError(errno: .current, call: "getmntinfo_r_np") }
        return (0..<Int(count)).map { index in
            var figures = table[index]
            let point = name(of: &figures.f_mntonname)
            // Apple platforms have no bind mounts: the device is the one the mount point reports.
            let device = (try? Sys.stat(point).device) ?? UInt64(UInt32(bitPattern: figures.f_fsid.val.0))
            return Entry(device: device, root: "/", mountPoint: point, type: name(of: &figures.f_fstypename),
                         source: name(of: &figures.f_mntfromname))
        }
    }

    /// What errors name when the table cannot be read.
    static let description = "the mount table (getmntinfo)"

    /// A NUL-terminated name in a fixed-size field of `statfs`.
    private static func name<Field>(of field: inout Field) -> String {
        withUnsafeBytes(of: &field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
#endif
