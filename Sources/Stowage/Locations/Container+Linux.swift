#if canImport(Glibc) || canImport(Musl)
#if canImport(Glibc)
import Glibc
#else
import Musl
#endif
import Foundation

extension Container {
    static func platformDefault(appIdentifier: String, environment: [String: String]) throws -> Container {
        try xdg(appIdentifier: appIdentifier, environment: environment)
    }

    static func platformSharedContainer(group: String) throws -> URL {
        // Linux containers always have a shared-containers folder; this is never reached.
        throw StowageError(.unsupported, operation: .locate, location: .sharedContainer(group))
    }

    /// The current user's home folder from the password database (`getpwuid_r`).
    /// The user's home folder in the password database, as text; `nil` when there is none, or
    /// when its path is not UTF-8 (as text it would name another folder).
    static func homeFromPasswordDatabase() -> String? {
        guard let bytes = homeBytesFromPasswordDatabase(), RawPath.isUTF8(bytes.bytes) else { return nil }
        return bytes.description
    }

    /// The user's home folder in the password database, as bytes, exactly.
    static func homeBytesFromPasswordDatabase() -> RawPath? {
        var record = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        let status = getpwuid_r(geteuid(), &record, &buffer, buffer.count, &result)
        guard status == 0, result != nil, let directory = record.pw_dir else { return nil }
        let home = RawPath(cString: directory)
        return home.hasPrefix("/") ? home : nil
    }
}
#endif
