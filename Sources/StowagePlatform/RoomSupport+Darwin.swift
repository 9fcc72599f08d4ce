#if canImport(Darwin)
extension Sys {
    /// Why a room cannot be made on this platform.
    static let roomUnsupportedReason: String? =
        "a room needs Linux mount namespaces and overlayfs, which Apple platforms do not have; "
        + "test low storage there with simulated capacity (SimulatedCapacity, or STOWAGE_SIMULATED_AVAILABLE)"

    /// A room's inherited environment: never read on Apple platforms, where no room is made
    /// (``roomUnsupportedReason``).
    ///
    /// - Throws: ``StowageError/Code/unsupported``, always.
    static func inheritedEnvironment() throws -> [[UInt8]] {
        throw StowageError(.unsupported, operation: .run, reason: roomUnsupportedReason ?? "no rooms on this platform")
    }
}
#endif
