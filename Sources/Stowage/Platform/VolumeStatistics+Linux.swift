#if canImport(Glibc) || canImport(Musl)
#if canImport(Glibc)
import Glibc
#else
import Musl
#endif
import Foundation

extension VolumeStatistics {
    /// `statvfs(3)` of `path`, plus its mount point and type from `/proc/self/mountinfo`.
    static func of(path: String) throws -> VolumeStatistics {
        var figures = statvfs()
        _ = try Sys.retrying("statvfs") { path.withCString { statvfs($0, &figures) } }
        let status = try Sys.stat(path)
        let unit = Int64(figures.f_frsize)
        let mount = Self.mount(containing: path, device: status.device)
        return VolumeStatistics(
            blockSize: unit,
            total: Int64(figures.f_blocks) * unit,
            available: Int64(figures.f_bavail) * unit,
            free: Int64(figures.f_bfree) * unit,
            device: status.device,
            mountPoint: mount?.point, fileSystemType: mount?.type,
            systemImportant: nil, systemOpportunistic: nil,
            totalInodes: figures.f_files > 0 ? Int64(figures.f_files) : nil,
            availableInodes: figures.f_files > 0 ? Int64(figures.f_favail) : nil)
    }

    /// The mount of `device` whose mount point is the longest prefix of `path`.
    static func mount(containing path: String, device: UInt64) -> (point: String, type: String)? {
        guard let table = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else {
            return nil  // best effort: mount point and type are informative extras
        }
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~UInt64(0xfff))
        let minor = (device & 0xff) | ((device >> 12) & ~UInt64(0xff))
        let path = Self.canonical(path)
        var onDevice: (point: String, type: String)?
        var covering: (point: String, type: String)?
        for line in table.split(separator: "\n") {
            // id parent major:minor root mount-point options [optional...] - type source super
            let fields = line.split(separator: " ")
            guard fields.count >= 7, let separator = fields.firstIndex(of: "-"), separator + 1 < fields.count else { continue }
            let point = unescapeMountField(String(fields[4]))
            guard path == point || point == "/" || path.hasBytePrefix(point + "/") else { continue }
            let entry = (point: point, type: String(fields[separator + 1]))
            let numbers = fields[2].split(separator: ":")
            if numbers.count == 2, UInt64(numbers[0]) == major, UInt64(numbers[1]) == minor,
               point.count >= (onDevice?.point.count ?? 0) {
                onDevice = entry
            }
            if point.count >= (covering?.point.count ?? 0) { covering = entry }
        }
        return onDevice ?? covering
    }

    /// `realpath(3)`, or the path itself when it cannot be resolved.
    static func canonical(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { releaseCString(resolved) }
        return String(cString: resolved)
    }

    /// mountinfo escapes space, tab, newline and backslash as octal (`\040`).
    static func unescapeMountField(_ field: String) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(field.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "\\"), iterator.count >= 3,
               let value = UInt8(String(decoding: iterator.prefix(3), as: UTF8.self), radix: 8) {
                bytes.append(value)
                iterator = iterator.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
@inline(__always) private func releaseCString(_ pointer: UnsafeMutablePointer<CChar>) { free(pointer) }
#endif
