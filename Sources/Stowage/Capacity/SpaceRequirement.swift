/// Which capacity figure a write must fit in, checked before anything is written.
///
/// The needed bytes are the new content rounded up to whole blocks of the volume: an atomic
/// write holds the new copy beside the old one until the rename, so the old file's space does
/// not count. When the check fails the write throws ``StowageError/Code/noSpace`` with
/// ``StowageError/neededBytes`` and ``StowageError/availableBytes``, and nothing is written.
public struct SpaceRequirement: Hashable, Sendable, CustomStringConvertible {
    private let name: String
    private init(_ name: String) { self.name = name }

    /// Data the user asked for or cannot do without: must fit in the space available for
    /// important usage. (On Linux that is what is available now; Stowage does not purge
    /// anything on its own before a write.)
    public static let important = SpaceRequirement("important")
    /// Optional data (prefetching, thumbnails): must fit in the space available for
    /// opportunistic usage, which keeps a headroom free.
    public static let opportunistic = SpaceRequirement("opportunistic")

    /// `important` or `opportunistic`.
    public var description: String { name }
}
