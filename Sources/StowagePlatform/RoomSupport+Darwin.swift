#if canImport(Darwin)
extension Sys {
    /// Why a room cannot be made on this platform.
    package static let roomUnsupportedReason: String? =
        "a room needs Linux mount namespaces and overlayfs, which Apple platforms do not have; "
        + "test low storage there with simulated capacity (SimulatedCapacity, or STOWAGE_SIMULATED_AVAILABLE)"

    /// A room's inherited environment: never read on Apple platforms, where no room is made
    /// (``roomUnsupportedReason``).
    ///
    /// - Throws: `ENOTSUP` (``SystemCallError`` naming `environ`), always.
    package static func inheritedEnvironment() throws -> [[UInt8]] {
        throw SystemCallError(errno: .notSupported, call: "environ")
    }
}
#endif
