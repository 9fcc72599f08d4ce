/// What the system says about the volume holding a path: the raw figures behind
/// ``VolumeCapacity``.
package struct VolumeStatistics: Sendable, Equatable {
    /// `f_frsize`: the unit of the block counts.
    package var blockSize: Int64
    /// `f_blocks * f_frsize`.
    package var total: Int64
    /// `f_bavail * f_frsize`: what an unprivileged writer can use.
    package var available: Int64
    /// `f_bfree * f_frsize`: free blocks including those reserved for root.
    package var free: Int64
    /// The device the path lives on (`st_dev`), to tell whether two paths share a volume.
    package var device: UInt64
    /// Where the volume is mounted and its type, where the system tells.
    package var mountPoint: String?
    package var fileSystemType: String?
    /// Apple's own figures (`volumeAvailableCapacityForImportantUsage` and
    /// `...ForOpportunisticUsage`), where the platform has them.
    package var systemImportant: Int64?
    package var systemOpportunistic: Int64?
    /// `f_files` and `f_favail` (`f_ffree` on Darwin): file nodes in all and left for an
    /// ordinary writer; `nil` where the file system does not count them (it reports 0 in all).
    package var totalInodes: Int64? = nil
    package var availableInodes: Int64? = nil

    package init(blockSize: Int64, total: Int64, available: Int64, free: Int64, device: UInt64, mountPoint: String? = nil, fileSystemType: String? = nil, systemImportant: Int64? = nil, systemOpportunistic: Int64? = nil, totalInodes: Int64? = nil, availableInodes: Int64? = nil) {
        self.blockSize = blockSize
        self.total = total
        self.available = available
        self.free = free
        self.device = device
        self.mountPoint = mountPoint
        self.fileSystemType = fileSystemType
        self.systemImportant = systemImportant
        self.systemOpportunistic = systemOpportunistic
        self.totalInodes = totalInodes
        self.availableInodes = availableInodes
    }
}

extension VolumeStatistics {
    /// The statistics of a volume from its space figures (``Sys/SpaceFigures``, one conversion
    /// of `statvfs`/`statfs` per platform), and what the mount table or the system adds.
    package init(_ figures: Sys.SpaceFigures, device: UInt64, mountPoint: String?, fileSystemType: String?,
         systemImportant: Int64?, systemOpportunistic: Int64?) {
        let countsInodes = figures.totalInodes > 0
        self.init(blockSize: figures.blockSize, total: figures.total, available: figures.available, free: figures.free,
                  device: device, mountPoint: mountPoint, fileSystemType: fileSystemType,
                  systemImportant: systemImportant, systemOpportunistic: systemOpportunistic,
                  totalInodes: countsInodes ? figures.totalInodes : nil,
                  availableInodes: countsInodes ? figures.availableInodes : nil)
    }
}
