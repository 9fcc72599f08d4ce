#if canImport(Glibc) || canImport(Musl)
#if canImport(Glibc)
import Glibc
#else
import Musl
#endif
import CStowageShims

extension ExtendedAttributes {
    package static func platformValue(_ name: String, of fd: Int32) throws -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            do {
                let count = try Sys.retrying("fgetxattr") {
                    buffer.withUnsafeMutableBytes { raw in name.withCString { cstowage_fgetxattr(fd, $0, raw.baseAddress, raw.count) } }
                }
                return Array(buffer.prefix(count))
            } catch Errno.noAttribute {
                return nil
            } catch Errno.outOfRange {
                buffer = [UInt8](repeating: 0, count: buffer.count * 4)
            }
        }
    }

    /// Stowage's own attributes live in the `user.` namespace on Linux.
    package static let stowagePrefix = "user.stowage."

    package static func platformHas(_ name: String, value: [UInt8], atPath path: UnsafePointer<CChar>) throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        do {
            let count = try Sys.retrying("lgetxattr") {
                buffer.withUnsafeMutableBytes { raw in name.withCString { cstowage_lgetxattr(path, $0, raw.baseAddress, raw.count) } }
            }
            return Array(buffer.prefix(count)) == value
        } catch Errno.noAttribute, Errno.attributesUnsupported, Errno.outOfRange {
            return false  // absent, unsupported, or longer than any value we write
        }
    }

    package static func platformSet(_ name: String, to value: [UInt8], on fd: Int32) throws {
        _ = try Sys.retrying("fsetxattr") {
            value.withUnsafeBytes { raw in name.withCString { cstowage_fsetxattr(fd, $0, raw.baseAddress, raw.count, 0) } }
        }
    }

    package static func platformRemove(_ name: String, from fd: Int32) throws {
        do {
            _ = try Sys.retrying("fremovexattr") { name.withCString { cstowage_fremovexattr(fd, $0) } }
        } catch Errno.noAttribute {
            return
        }
    }
}
#endif
