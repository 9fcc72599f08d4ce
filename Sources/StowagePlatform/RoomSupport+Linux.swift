#if canImport(Glibc) || canImport(Musl)
#if canImport(Glibc)
import Glibc
#else
import Musl
#endif

extension Sys {
    /// Why a room cannot be made on this platform, or `nil` (Linux: the kernel decides, and the
    /// child reports what it refused).
    package static let roomUnsupportedReason: String? = nil

    /// This process's environment as `NAME=value` entries, byte for byte (`environ`), for a
    /// room's command: `ProcessInfo.environment` would turn a value that is not UTF-8 into
    /// another value.
    package static func inheritedEnvironment() throws -> [[UInt8]] {
        var entries: [[UInt8]] = []
        guard var entry = Optional(environ) else { return entries }
        while let text = entry.pointee {
            entries.append(RawPath(cString: text).bytes)
            entry += 1
        }
        return entries
    }
}
#endif
