#if canImport(Darwin)
import Darwin

extension ExtendedAttributes {
    /// `fgetxattr(2)` twice: once for the size, once for the value (asked again if the value
    /// grew in between).
    package static func platformValue(_ name: String, of fd: Int32) throws -> [UInt8]? {
        do {
            while true {
                let size = try Sys.retrying("fgetxattr") { name.withCString { fgetxattr(fd, $0, nil, 0, 0, 0) } }
                var buffer = [UInt8](repeating: 0, count: size)
                do {
                    let count = try Sys.retrying("fgetxattr") {
                        buffer.withUnsafeMutableBytes { raw in name.withCString { fgetxattr(fd, $0, raw.baseAddress, raw.count, 0, 0) } }
                    }
                    return Array(buffer.prefix(count))
                } catch Errno.outOfRange {
                    continue  // the value grew since its size was asked
                }
            }
        } catch Errno.noAttribute {
            return nil
        }
    }

    /// Stowage's own attributes, in reverse-DNS style as Darwin attributes are named.
    package static let stowagePrefix = "org.stowage."

    package static func platformHas(_ name: String, value: [UInt8], atPath path: UnsafePointer<CChar>) throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        do {
            let count = try Sys.retrying("getxattr") {
                buffer.withUnsafeMutableBytes { raw in
                    name.withCString { getxattr(path, $0, raw.baseAddress, raw.count, 0, XATTR_NOFOLLOW) }
                }
            }
            return Array(buffer.prefix(count)) == value
        } catch Errno.noAttribute, Errno.attributesUnsupported, Errno.outOfRange {
            return false  // absent, unsupported, or longer than any value we write
        }
    }

    package static func platformSet(_ name: String, to value: [UInt8], on fd: Int32) throws {
        _ = try Sys.retrying("fsetxattr") {
            value.withUnsafeBytes { raw in name.withCString { fsetxattr(fd, $0, raw.baseAddress, raw.count, 0, 0) } }
        }
    }

    package static func platformRemove(_ name: String, from fd: Int32) throws {
        do {
            _ = try Sys.retrying("fremovexattr") { name.withCString { fremovexattr(fd, $0, 0) } }
        } catch Errno.noAttribute {
            return
        }
    }
}
#endif
