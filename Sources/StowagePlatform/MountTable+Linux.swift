#if canImport(Glibc) || canImport(Musl)
#if canImport(Glibc)
import Glibc
#else
import Musl
#endif
import Foundation

extension MountTable {
    /// The table of this process's mount namespace, read from `/proc/self/mountinfo`, in the
    /// order the kernel lists it (a mount made on top of another comes after it).
    ///
    /// - Throws: a `SystemCallError` when the file cannot be read (no `/proc`).
    package static func entries() throws -> [Entry] {
        let table = try OpenFile(adopting: Sys.open(description, O_RDONLY)).readAll()
        return String(decoding: table, as: UTF8.self).split(separator: "\n").compactMap { parse(String($0)) }
    }

    /// Where Linux tells this process its mounts (the path errors name).
    package static let description = "/proc/self/mountinfo"

    /// One line of mountinfo (proc(5)):
    /// `id parent major:minor root mount-point options [optional fields...] - type source super-options`;
    /// `nil` for a line that does not have that shape.
    package static func parse(_ line: String) -> Entry? {
        let fields = line.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count >= 7, let separator = fields[6...].firstIndex(of: "-"), separator + 2 < fields.count else {
            return nil
        }
        let numbers = fields[2].split(separator: ":")
        guard numbers.count == 2, let major = UInt64(numbers[0]), let minor = UInt64(numbers[1]) else { return nil }
        return Entry(device: device(major: major, minor: minor), root: unescape(fields[3]), mountPoint: unescape(fields[4]),
                     type: unescape(fields[separator + 1]), source: unescape(fields[separator + 2]), mountID: UInt64(fields[0]))
    }

    /// The device number glibc's `makedev` makes of `major` and `minor` (what `st_dev` holds).
    package static func device(major: UInt64, minor: UInt64) -> UInt64 {
        ((major & 0xffff_f000) << 32) | ((major & 0xfff) << 8) | ((minor & 0xffff_ff00) << 12) | (minor & 0xff)
    }

    /// mountinfo escapes space, tab, newline and backslash as three octal digits (`\040`).
    package static func unescape(_ field: Substring) -> String {
        var bytes: [UInt8] = []
        var rest = Array(field.utf8)[...]
        while let byte = rest.popFirst() {
            if byte == UInt8(ascii: "\\"), rest.count >= 3,
               let value = UInt8(String(decoding: rest.prefix(3), as: UTF8.self), radix: 8) {
                bytes.append(value)
                rest = rest.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
#endif
