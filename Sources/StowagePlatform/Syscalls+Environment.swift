#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Stowage's Platform layer supports Darwin, Glibc and Musl systems")
#endif
import Foundation

// The process's user and environment.
extension Sys {
    /// The effective user id.
    package static var effectiveUserID: uid_t { geteuid() }

    /// `getenv(3)`: one variable of the process's environment, without copying the whole
    /// environment into a dictionary as `ProcessInfo.environment` does on every read.
    /// Bytes that are not UTF-8 become U+FFFD: for values read as text (sizes, fault lists); a
    /// value that names a folder is read with ``environmentBytes(_:)``.
    package static func environmentVariable(_ name: String) -> String? {
        environmentBytes(name).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `getenv(3)`: one variable's value as bytes, exactly.
    package static func environmentBytes(_ name: String) -> [UInt8]? {
        guard let value = getenv(name) else { return nil }
        return RawPath(cString: value).bytes
    }

    /// The current user's home folder as the system has it, as bytes, exactly: the password
    /// database's (`getpwuid_r(3)`) on Linux, `NSHomeDirectory()` on Apple platforms. `nil` when
    /// there is none or it is not an absolute path.
    package static func homeFolderOfUser() -> RawPath? {
        #if canImport(Darwin)
        let home = RawPath(NSHomeDirectory())
        #else
        var record = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        let status = getpwuid_r(geteuid(), &record, &buffer, buffer.count, &result)
        guard status == 0, result != nil, let directory = record.pw_dir else { return nil }
        let home = RawPath(cString: directory)
        #endif
        return home.hasPrefix("/") ? home : nil
    }
}
