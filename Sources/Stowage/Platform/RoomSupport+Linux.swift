#if canImport(Glibc) || canImport(Musl)
extension Sys {
    /// Why a room cannot be made on this platform, or `nil` (Linux: the kernel decides, and the
    /// child reports what it refused).
    static let roomUnsupportedReason: String? = nil
}
#endif
