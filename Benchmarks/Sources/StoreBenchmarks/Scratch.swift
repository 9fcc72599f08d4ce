#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The run's working folder: fresh, made by this run, and removed by it at the end.
struct Scratch {
    /// The folder; everything the benchmarks write is inside it.
    let url: URL
    /// How the folder was chosen, for the report.
    let origin: String

    var path: String { withoutTrailingSlash(url.path(percentEncoded: false)) }

    /// The Benchmarks package folder, known from this file's path at build time.
    static var packageFolder: URL {
        URL(filePath: #filePath)
            .deletingLastPathComponent()  // StoreBenchmarks
            .deletingLastPathComponent()  // Sources
            .deletingLastPathComponent()  // Benchmarks
    }

    static func randomSuffix() -> String {
        String(UInt64.random(in: .min ... .max), radix: 16)
    }

    /// Makes the working folder the options ask for.
    static func make(_ options: Options) throws -> Scratch {
        if let directory = options.directory {
            let parent = URL(filePath: directory, directoryHint: .isDirectory).standardizedFileURL.absoluteURL
            return Scratch(url: try makeFresh(in: parent, prefix: "stowage-bench-"), origin: "--directory")
        }
        if options.useTemporaryDirectory {
            return Scratch(url: try makeFresh(in: FileManager.default.temporaryDirectory, prefix: "stowage-bench-"),
                           origin: "--temporary (FileManager.default.temporaryDirectory)")
        }
        do {
            return Scratch(url: try makeFresh(in: packageFolder, prefix: ".scratch-"),
                           origin: "default (Benchmarks/.scratch-*)")
        } catch {
            // The binary may run where its sources are not: fall back to the temporary directory.
            let url = try makeFresh(in: FileManager.default.temporaryDirectory, prefix: "stowage-bench-")
            return Scratch(url: url, origin: "temporary directory (the Benchmarks folder was not usable: \(error))")
        }
    }

    /// Creates `<parent>/<prefix><random>`, which must not exist yet.
    private static func makeFresh(in parent: URL, prefix: String) throws -> URL {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: parent.path(percentEncoded: false), isDirectory: &isFolder),
              isFolder.boolValue else {
            throw Options.UsageError(description: "'\(withoutTrailingSlash(parent.path(percentEncoded: false)))' is not an existing folder")
        }
        let url = parent.appending(path: prefix + randomSuffix(), directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        return url
    }

    /// Removes the folder and everything in it.
    func remove() {
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            FileHandle.standardError.write(Data("warning: could not remove \(path): \(error)\n".utf8))
        }
    }
}

/// Where a path lives: its mount point, file system type and device.
struct FileSystemInfo: Codable {
    var path: String
    var mountPoint: String?
    var type: String?
    var source: String?
    var device: UInt64?

    init(path: String) {
        self.path = withoutTrailingSlash(path)
        device = Self.device(of: path)
        #if os(Linux)
        // The longest mount point containing the path (the last one listed wins on ties:
        // later mounts hide earlier ones).
        let real = URL(filePath: path).resolvingSymlinksInPath().path(percentEncoded: false)
        if let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) {
            var best: (point: String, type: String, source: String)?
            for line in mounts.split(separator: "\n") {
                let fields = line.split(separator: " ").map { Self.unescape(String($0)) }
                guard fields.count >= 3 else { continue }
                let point = fields[1]
                let contains = point == "/" || real == point || real.hasPrefix(point + "/")
                if contains, point.count >= (best?.point.count ?? 0) {
                    best = (point, fields[2], fields[0])
                }
            }
            mountPoint = best?.point
            type = best?.type
            source = best?.source
        }
        #endif
    }

    /// `/proc/self/mounts` writes space, tab, newline and backslash as octal escapes.
    private static func unescape(_ field: String) -> String {
        field.replacingOccurrences(of: "\\040", with: " ")
            .replacingOccurrences(of: "\\011", with: "\t")
            .replacingOccurrences(of: "\\012", with: "\n")
            .replacingOccurrences(of: "\\134", with: "\\")
    }

    static func device(of path: String) -> UInt64? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return UInt64(status.st_dev)
    }

    /// glibc's encoding of `dev_t` (`gnu_dev_major` / `gnu_dev_minor`).
    static func major(_ device: UInt64) -> UInt64 { ((device >> 8) & 0xfff) | ((device >> 32) & ~UInt64(0xfff)) }
    static func minor(_ device: UInt64) -> UInt64 { (device & 0xff) | ((device >> 12) & ~UInt64(0xff)) }

    var summary: String {
        var parts: [String] = []
        if let type { parts.append(type) }
        if let mountPoint { parts.append("mounted at \(mountPoint)") }
        if let source { parts.append("from \(source)") }
        if let device { parts.append("device \(Self.major(device)):\(Self.minor(device))") }
        return parts.isEmpty ? "unknown file system" : parts.joined(separator: ", ")
    }
}

/// `/a/b/` as `/a/b` (but `/` stays `/`).
func withoutTrailingSlash(_ path: String) -> String {
    path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
}

/// The peak resident set size of this process so far, in MB (`getrusage` `ru_maxrss`).
func peakResidentMegabytes() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
    let who = __rusage_who_t(RUSAGE_SELF.rawValue)  // glibc declares it as an enum
    #else
    let who = RUSAGE_SELF
    #endif
    guard getrusage(who, &usage) == 0 else { return .nan }
    #if canImport(Darwin)
    return Double(usage.ru_maxrss) / 1_048_576  // bytes on Apple platforms
    #else
    return Double(usage.ru_maxrss) / 1024  // kilobytes on Linux
    #endif
}
