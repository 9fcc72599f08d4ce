import Foundation

// Durability: data and folder entries on stable storage.
extension Sys {
    /// Makes the file's data durable: `fdatasync(2)` on Linux, `F_FULLFSYNC` on Darwin
    /// (plain `fsync` there only reaches the drive's cache).
    package static func syncData(_ fd: Int32) throws {
        #if DEBUG
        DurabilityObserver.record(.syncData, descriptor: fd)
        #endif
        try platformSyncData(fd)
    }

    /// Makes a folder's entries durable: `fsync(2)` on the folder on Linux, `F_FULLFSYNC` on
    /// Darwin (as for a file's data: a plain `fsync` leaves the entries in the drive's cache).
    package static func syncFolder(_ fd: Int32) throws {
        #if DEBUG
        DurabilityObserver.record(.syncFolder, descriptor: fd)
        #endif
        try platformSyncFolder(fd)
    }
}

#if DEBUG
/// Debug builds only: where the durability calls are reported to the library's test probe (the
/// platform names nothing of the library, so the probe installs itself here once it exists).
package enum DurabilityObserver {
    /// A durability call.
    package enum Call: Sendable {
        /// `Sys.syncData`: a file's data made durable (`fdatasync`, `F_FULLFSYNC`).
        case syncData
        /// `Sys.syncFolder`: a folder's entries made durable (`fsync` of the folder).
        case syncFolder
        /// `Sys.syncVolume`: a whole volume written back (`syncfs`).
        case syncVolume
    }

    /// `@unchecked Sendable`: `observer` is read and written only while `lock` is held.
    private final class Slot: @unchecked Sendable {
        let lock = NSLock()
        var observer: (@Sendable (Call, Int32) -> Void)?
    }

    private static let slot = Slot()

    /// Sends every later durability call to `observer` (with the descriptor it synced); the
    /// latest call wins.
    package static func install(_ observer: @escaping @Sendable (Call, Int32) -> Void) {
        slot.lock.withLock { slot.observer = observer }
    }

    static func record(_ call: Call, descriptor: Int32) {
        slot.lock.withLock { slot.observer }?(call, descriptor)
    }
}
#endif
