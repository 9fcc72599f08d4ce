#if canImport(Darwin)
extension Sys {
    /// Why a room cannot be made on this platform.
    static let roomUnsupportedReason: String? =
        "a room needs Linux mount namespaces and overlayfs, which Apple platforms do not have; "
        + "test low storage there with simulated capacity (SimulatedCapacity, or STOWAGE_SIMULATED_AVAILABLE)"
}
#endif
