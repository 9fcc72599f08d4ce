import Foundation

/// The available bytes of a volume, and whether they are simulated: the one figure that
/// pressure checks and relief need, measured without the tree scan behind
/// ``VolumeCapacity/reclaimableBytes``.
///
/// ```swift
/// let space = try container.availableSpace(of: .caches)   // one statvfs, safe on the main actor
/// if space.availableBytes < 200_000_000 { showLowStorageBanner() }
/// ```
public struct AvailableSpace: Sendable, Hashable {
    /// What an ordinary writer can use now: ``VolumeCapacity/availableBytes``.
    public var availableBytes: Int64
    /// Whether ``availableBytes`` is simulated (see ``SimulatedCapacity``).
    public var isSimulated: Bool
}

extension Container {
    /// The available bytes of the volume holding `location`, as ``capacity(of:)-8qkvy`` reports them
    /// (simulated figures when ``SimulatedCapacity`` is on, clamped to the simulated total), at
    /// the cost of one `statvfs` of the nearest existing folder: no scan of tmp or Caches, no
    /// read of the mount table, no copy of the environment. What ``PressureWatcher`` measures
    /// on every check.
    ///
    /// The cheap figure beside ``capacity(of:)-8qkvy``, which walks tmp and Caches and reads
    /// every file's marker in the user's locations to count what relief could free.
    ///
    /// - Throws: as ``capacity(of:)-8qkvy``.
    public func availableSpace(of location: Location = .documents) throws -> AvailableSpace {
        let path = try existingAncestor(of: url(for: location))
        let figures: Sys.SpaceFigures
        do {
            figures = try Sys.spaceFigures(atPath: path)
        } catch let error as SystemCallError {
            throw StowageError(error, operation: .measureCapacity, location: location, path: path)
        }
        guard let simulated = try SimulatedCapacity.currentInProcess() else {
            return AvailableSpace(availableBytes: figures.available, isSimulated: false)
        }
        // As VolumeCapacity(statistics:...) does: never more than the (simulated or real) total.
        return AvailableSpace(availableBytes: min(simulated.availableBytes, simulated.totalBytes ?? figures.total), isSimulated: true)
    }
}
