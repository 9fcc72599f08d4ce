#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Stowage's Platform layer supports Darwin, Glibc and Musl systems")
#endif

// The process's user and environment.
extension Sys {
    /// The effective user id.
    static var effectiveUserID: uid_t { geteuid() }

    /// `getenv(3)`: one variable of the process's environment, without copying the whole
    /// environment into a dictionary as `ProcessInfo.environment` does on every read.
    /// Bytes that are not UTF-8 become U+FFFD: for values read as text (sizes, fault lists); a
    /// value that names a folder is read with ``environmentBytes(_:)``.
    static func environmentVariable(_ name: String) -> String? {
        environmentBytes(name).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `getenv(3)`: one variable's value as bytes, exactly.
    static func environmentBytes(_ name: String) -> [UInt8]? {
        guard let value = getenv(name) else { return nil }
        return RawPath(cString: value).bytes
    }
}
