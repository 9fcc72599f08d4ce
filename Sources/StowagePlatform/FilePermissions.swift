/// Permission bits for a new file or folder, or for `fchmod`: what `mode_t` holds (a 16-bit
/// type on Darwin, 32-bit on Linux), so that code outside the Platform layer never names it.
package struct FilePermissions: RawRepresentable, Hashable, Sendable {
    /// The bits, such as `0o600`.
    package var rawValue: UInt32

    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Read and write for the owner only: `0o600`.
    package static let ownerOnlyFile = FilePermissions(rawValue: 0o600)
    /// Read, write and search for the owner only: `0o700`.
    package static let ownerOnlyFolder = FilePermissions(rawValue: 0o700)
    /// `0o666`, narrowed by the process's umask.
    package static let defaultFile = FilePermissions(rawValue: 0o666)
    /// `0o777`, narrowed by the process's umask.
    package static let defaultFolder = FilePermissions(rawValue: 0o777)
}
