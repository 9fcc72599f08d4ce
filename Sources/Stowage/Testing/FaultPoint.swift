/// A named place in Stowage's code where a test can act in the middle of an operation: change
/// the files an operation is about to touch, or stop it there as a crash would.
///
/// Every seam of the library is one of these, reached through ``reach()``, and acted on only
/// through a ``TestProbe`` (debug builds): in release builds ``reach()`` is empty and inlined
/// away. A test installs a probe for its own task, or a child process gets one from the
/// `STOWAGE_TEST_FAULTS` environment variable (see ``TestProbe``).
struct FaultPoint: Hashable, Sendable, CustomStringConvertible {
    /// The point's name, as `STOWAGE_TEST_FAULTS` spells it.
    let name: String

    private init(_ name: String) { self.name = name }

    /// The removal walk chose its victims and removes nothing yet (every operation that goes
    /// through the removal walk with a selection: sweeps, clear, relief, `DiskCache` evictions and `removeAll`).
    static let sweepChosen = FaultPoint("sweep.chosen")
    /// A walk of the removal walk's selection by size, count or pressure ended: it chose its files
    /// and has read none of their pins yet (reached after every such walk).
    static let sweepWalked = FaultPoint("sweep.walked")
    /// An append to a JSON array wrote its journal and not yet its bytes.
    static let appendJournalWritten = FaultPoint("append.journal-written")
    /// An append to a JSON array wrote (and, when durable, synced) its bytes, and has not yet
    /// removed its journal.
    static let appendBytesWritten = FaultPoint("append.bytes-written")
    /// An atomic write wrote and closed its temporary file, and has not yet renamed it.
    static let atomicWriteBeforeRename = FaultPoint("atomic-write.before-rename")
    /// An atomic write renamed its temporary file into place, and has not yet synced the folder.
    static let atomicWriteRenamed = FaultPoint("atomic-write.renamed")
    /// A fill wrote or allocated one more step and measures the volume again next.
    static let fillStepWritten = FaultPoint("fill.step-written")
    /// A fill's release chose the files it gives back and removes nothing yet.
    static let fillReleaseChosen = FaultPoint("fill-release.chosen")

    /// A ``DiskCache`` set wrote its entry's bytes to a staged temporary file, and has not yet
    /// begun the change that puts it in place.
    static let cacheStaged = FaultPoint("cache.staged")
    /// A ``DiskCache`` change (a write, a removal, an eviction) marked the shared index as
    /// changing, and has changed nothing yet.
    static let cacheChanging = FaultPoint("cache.changing")
    /// A ``DiskCache`` write put its entry in place, and has not yet counted it or evicted.
    static let cacheWritten = FaultPoint("cache.written")
    /// A ``DiskCache`` eviction removed its entries, and the index does not count that yet.
    static let cacheEvicted = FaultPoint("cache.evicted")

    /// A `StorageOverview` measured its locations and has not yet measured the volume.
    static let overviewMeasured = FaultPoint("overview.measured")

    /// ``VolumeCapacity/mountedVolumes()`` read the mount table and has measured nothing yet.
    static let mountsRead = FaultPoint("mounts.read")
    /// Every point, for names given in the environment.
    static let all: [FaultPoint] = [.sweepChosen, .sweepWalked, .appendJournalWritten, .appendBytesWritten, .atomicWriteBeforeRename,
                                    .atomicWriteRenamed, .fillStepWritten, .fillReleaseChosen, .overviewMeasured,
                                    .cacheStaged, .cacheChanging, .cacheWritten, .cacheEvicted, .mountsRead]

    /// The point named `name`, or `nil`.
    init?(named name: String) {
        guard let point = Self.all.first(where: { $0.name == name }) else { return nil }
        self = point
    }

    var description: String { name }

    /// Runs what the probe in force has for this point, if anything (debug builds only); an
    /// error it throws ends the operation there, as a crash would: no clean-up of that step runs.
    @inline(__always)
    func reach() throws {
        #if DEBUG
        try TestProbe.current?.reach(self)
        #endif
    }
}
