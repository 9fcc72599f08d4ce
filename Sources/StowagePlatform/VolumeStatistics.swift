/// What the system says about the volume holding a path: the raw figures behind
/// ``VolumeCapacity``.
struct VolumeStatistics: Sendable, Equatable {
    /// `f_frsize`: the unit of the block counts.
    var blockSize: Int64
    /// `f_blocks * f_frsize`.
    var total: Int64
    /// `f_bavail * f_frsize`: what an unprivileged writer can use.
    var available: Int64
    /// `f_bfree * f_frsize`: free blocks including those reserved for root.
    var free: Int64
    /// The device the path lives on (`st_dev`), to tell whether two paths share a volume.
    var device: UInt64
    /// Where the volume is mounted and its type, where the system tells.
    var mountPoint: String?
    var fileSystemType: String?
    /// Apple's own figures (`volumeAvailableCapacityForImportantUsage` and
    /// `...ForOpportunisticUsage`), where the platform has them.
    var systemImportant: Int64?
    var systemOpportunistic: Int64?
    /// `f_files` and `f_favail` (`f_ffree` on Darwin): file nodes in all and left for an
    /// ordinary writer; `nil` where the file system does not count them (it reports 0 in all).
    var totalInodes: Int64? = nil
    var availableInodes: Int64? = nil
}

extension VolumeStatistics {
    /// The statistics of a volume from its space figures (``Sys/SpaceFigures``, one conversion
    /// of `statvfs`/`statfs` per platform), and what the mount table or the system adds.
    init(_ figures: Sys.SpaceFigures, device: UInt64, mountPoint: String?, fileSystemType: String?,
         systemImportant: Int64?, systemOpportunistic: Int64?) {
        let countsInodes = figures.totalInodes > 0
        self.init(blockSize: figures.blockSize, total: figures.total, available: figures.available, free: figures.free,
                  device: device, mountPoint: mountPoint, fileSystemType: fileSystemType,
                  systemImportant: systemImportant, systemOpportunistic: systemOpportunistic,
                  totalInodes: countsInodes ? figures.totalInodes : nil,
                  availableInodes: countsInodes ? figures.availableInodes : nil)
    }
}
