#if canImport(Darwin)
import Darwin

extension ExtendedAttributes {
    static func platformValue(_ name: String, of fd: Int32) throws -> [UInt8]? {
        let size = name.withCString { fgetxattr(fd, $0, nil, 0, 0, 0) }
        if size < 0 {
            let code = Sys.currentErrno
            if code == ENOATTR { return nil }
            throw SystemCallError(errno: code, call: "fgetxattr")
        }
        var buffer = [UInt8](repeating: 0, count: size)
        let count = buffer.withUnsafeMutableBytes { raw in
            name.withCString { fgetxattr(fd, $0, raw.baseAddress, raw.count, 0, 0) }
        }
        if count < 0 {
            let code = Sys.currentErrno
            if code == ENOATTR { return nil }
            throw SystemCallError(errno: code, call: "fgetxattr")
        }
        return Array(buffer.prefix(count))
    }

    /// Stowage's own attributes, in reverse-DNS style as Darwin attributes are named.
    static let stowagePrefix = "org.stowage."

    static func platformHas(_ name: String, value: [UInt8], atPath path: UnsafePointer<CChar>) throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = buffer.withUnsafeMutableBytes { raw in
            name.withCString { getxattr(path, $0, raw.baseAddress, raw.count, 0, XATTR_NOFOLLOW) }
        }
        if count >= 0 { return Array(buffer.prefix(count)) == value }
        let code = Sys.currentErrno
        if code == ENOATTR || code == ENOTSUP || code == ERANGE { return false }
        throw SystemCallError(errno: code, call: "getxattr")
    }

    static func platformSet(_ name: String, to value: [UInt8], on fd: Int32) throws {
        _ = try Sys.retrying("fsetxattr") {
            value.withUnsafeBytes { raw in name.withCString { fsetxattr(fd, $0, raw.baseAddress, raw.count, 0, 0) } }
        }
    }

    static func platformRemove(_ name: String, from fd: Int32) throws {
        do {
            _ = try Sys.retrying("fremovexattr") { name.withCString { fremovexattr(fd, $0, 0) } }
        } catch let error as SystemCallError where error.errno == ENOATTR {
            return
        }
    }
}
#endif
