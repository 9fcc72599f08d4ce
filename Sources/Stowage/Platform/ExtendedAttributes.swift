/// Extended attributes of an open file, in the `user.` namespace on Linux.
///
/// A file system without extended attributes makes these throw `ENOTSUP`/`EOPNOTSUPP`;
/// callers turn that into ``StowageError/Code/unsupported``, never a silent no-op.
enum ExtendedAttributes {
    /// The attribute's value, or `nil` when the file does not have it.
    static func value(_ name: String, of fd: Int32) throws -> [UInt8]? {
        try platformValue(name, of: fd)
    }

    /// Sets the attribute.
    static func set(_ name: String, to value: [UInt8], on fd: Int32) throws {
        try platformSet(name, to: value, on: fd)
    }

    /// Whether the item at `path` (not following a final link) has the attribute with `value`.
    /// A file system without attributes has none: `false`, not an error, since this only reads.
    static func has(_ name: String, value: [UInt8], atPath path: String) throws -> Bool {
        try platformHas(name, value: value, atPath: path)
    }

    /// Removes the attribute; removing one that is absent is not an error.
    static func remove(_ name: String, from fd: Int32) throws {
        try platformRemove(name, from: fd)
    }
}
