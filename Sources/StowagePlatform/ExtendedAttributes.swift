#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Stowage's Platform layer supports Darwin, Glibc and Musl systems")
#endif
import CStowageShims

/// Extended attributes of an open file, in the `user.` namespace on Linux.
///
/// A file system without extended attributes makes these throw `ENOTSUP`/`EOPNOTSUPP`;
/// callers turn that into ``StowageError/Code/unsupported``, never a silent no-op.
package enum ExtendedAttributes {
    /// The attribute's value, or `nil` when the file does not have it.
    package static func value(_ name: String, of fd: Int32) throws -> [UInt8]? {
        try platformValue(name, of: fd)
    }

    /// Sets the attribute.
    package static func set(_ name: String, to value: [UInt8], on fd: Int32) throws {
        try platformSet(name, to: value, on: fd)
    }

    /// Whether the item at `path` (not following a final link) has the attribute with `value`.
    /// A file system without attributes has none: `false`, not an error, since this only reads.
    package static func has(_ name: String, value: [UInt8], atPath path: String) throws -> Bool {
        try path.withCString { try platformHas(name, value: value, atPath: $0) }
    }

    /// ``has(_:value:atPath:)`` of a path given as a C string (bytes, which need not be UTF-8).
    package static func has(_ name: String, value: [UInt8], atCPath path: UnsafePointer<CChar>) throws -> Bool {
        try platformHas(name, value: value, atPath: path)
    }

    /// Whether the entry `name` in the folder `directory` (not following a final link) has the
    /// attribute with `value`, without opening it (see `cstowage_getxattr_at`). An entry that
    /// vanished, or a file system without attributes, has none: `false`, not an error.
    package static func has(_ attribute: String, value: [UInt8], entry name: RawPath, inFolder directory: Int32) throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        do {
            let count = try Sys.retrying("getxattr") {
                buffer.withUnsafeMutableBytes { raw in
                    name.withCString { n in attribute.withCString { cstowage_getxattr_at(directory, n, $0, raw.baseAddress, raw.count) } }
                }
            }
            return Array(buffer.prefix(count)) == value
        } catch Errno.noSuchEntry, Errno.outOfRange, Errno.attributesUnsupported, Errno.noAttribute {
            return false  // gone, longer than any value we write, unsupported, or absent
        }
    }

    /// The value of the attribute of the entry `name` in the folder `directory` (not following a
    /// final link), without opening it; `nil` when the entry or the attribute is absent, or the
    /// file system keeps none.
    package static func value(_ attribute: String, entry name: String, inFolder directory: Int32) throws -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            do {
                let count = try Sys.retrying("getxattr") {
                    buffer.withUnsafeMutableBytes { raw in
                        name.withCString { n in attribute.withCString { cstowage_getxattr_at(directory, n, $0, raw.baseAddress, raw.count) } }
                    }
                }
                return Array(buffer.prefix(count))
            } catch Errno.outOfRange where buffer.count < 65_536 {
                buffer = [UInt8](repeating: 0, count: buffer.count * 16)
            } catch Errno.noSuchEntry, Errno.attributesUnsupported, Errno.noAttribute {
                return nil
            }
        }
    }

    /// The names of the attributes of the entry `name` in the folder `directory` (not following a
    /// final link), without opening it: one `llistxattr(2)`. Empty when the entry is absent or
    /// the file system keeps no attributes.
    package static func names(entry name: String, inFolder directory: Int32) throws -> [String] {
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            do {
                let count = try Sys.retrying("listxattr") {
                    buffer.withUnsafeMutableBytes { raw in
                        name.withCString { cstowage_listxattr_at(directory, $0, raw.baseAddress, raw.count) }
                    }
                }
                return buffer.prefix(count).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            } catch Errno.outOfRange where buffer.count < 65_536 {
                buffer = [UInt8](repeating: 0, count: 65_536)
            } catch Errno.noSuchEntry, Errno.attributesUnsupported {
                return []
            }
        }
    }

    /// Removes the attribute; removing one that is absent is not an error.
    package static func remove(_ name: String, from fd: Int32) throws {
        try platformRemove(name, from: fd)
    }
}
