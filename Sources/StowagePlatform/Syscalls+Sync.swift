// Durability: data and folder entries on stable storage.
extension Sys {
    /// Makes the file's data durable: `fdatasync(2)` on Linux, `F_FULLFSYNC` on Darwin
    /// (plain `fsync` there only reaches the drive's cache).
    static func syncData(_ fd: Int32) throws {
        #if DEBUG
        TestProbe.recordSync(.syncData, descriptor: fd)
        #endif
        try platformSyncData(fd)
    }

    /// Makes a folder's entries durable: `fsync(2)` on the folder on Linux, `F_FULLFSYNC` on
    /// Darwin (as for a file's data: a plain `fsync` leaves the entries in the drive's cache).
    static func syncFolder(_ fd: Int32) throws {
        #if DEBUG
        TestProbe.recordSync(.syncFolder, descriptor: fd)
        #endif
        try platformSyncFolder(fd)
    }
}
