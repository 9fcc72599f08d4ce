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
        // As bytes: a mount point that is not UTF-8 keeps its bytes (read as text, it became
        // another path, which `statvfs` did not find, and `info --all` left the volume out).
        return table.split(separator: UInt8(ascii: "\n")).compactMap { parse(bytes: $0) }
    }

    /// Where Linux tells this process its mounts (the path errors name).
    package static let description = "/proc/self/mountinfo"

    /// One line of mountinfo (proc(5)):
    /// `id parent major:minor root mount-point options [optional fields...] - type source super-options`;
    /// `nil` for a line that does not have that shape.
    package static func parse(_ line: String) -> Entry? {
        parse(bytes: Array(line.utf8)[...])
    }

    /// One line of mountinfo as the kernel wrote it: bytes, which need not be UTF-8 (see
    /// ``parse(_:)``).
    package static func parse(bytes line: some Collection<UInt8>) -> Entry? {
        let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard fields.count >= 7, let separator = fields[6...].firstIndex(where: { $0.elementsEqual([UInt8(ascii: "-")]) }),
              separator + 2 < fields.count else {
            return nil
        }
        func text(_ field: some Collection<UInt8>) -> String { String(decoding: field, as: UTF8.self) }
        let numbers = fields[2].split(separator: UInt8(ascii: ":"))
        guard numbers.count == 2, let major = UInt64(text(numbers[0])), let minor = UInt64(text(numbers[1])) else { return nil }
        let mountPoint = unescapedBytes(fields[4])
        return Entry(device: device(major: major, minor: minor), root: text(unescapedBytes(fields[3])), mountPoint: text(mountPoint),
                     mountPointPath: RawPath(bytes: mountPoint), type: text(unescapedBytes(fields[separator + 1])),
                     source: text(unescapedBytes(fields[separator + 2])), mountID: UInt64(text(fields[0])))
    }

    /// The device number glibc's `makedev` makes of `major` and `minor` (what `st_dev` holds).
    package static func device(major: UInt64, minor: UInt64) -> UInt64 {
        ((major & 0xffff_f000) << 32) | ((major & 0xfff) << 8) | ((minor & 0xffff_ff00) << 12) | (minor & 0xff)
    }

    /// The bytes of a mountinfo field, its escapes decoded: mountinfo writes space, tab, newline
    /// and backslash as three octal digits (`\040`).
    package static func unescapedBytes(_ field: some Collection<UInt8>) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = Array(field)[...]
        while let byte = rest.popFirst() {
            if byte == UInt8(ascii: "\\"), rest.count >= 3,
               let value = UInt8(String(decoding: rest.prefix(3), as: UTF8.self), radix: 8) {
                bytes.append(value)
                rest = rest.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return bytes
    }
}
#endif
