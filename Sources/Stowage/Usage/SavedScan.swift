import Foundation

/// Saved scans: a ``UsageReport`` written and read in ncdu's JSON export format (version 1.2),
/// the format `ncdu -o` writes and `ncdu -f` and `gdu -f` read.
///
/// A file holds one root: a folder as an array whose first element describes the folder and
/// whose other elements are its items (an object for a file, an array for a folder), each with
/// its name, `asize` (logical bytes, `st_size`) and `dsize` (allocated bytes, `st_blocks * 512`)
/// for itself alone. Names are the bytes on disk: like ncdu, Stowage writes a name that is not
/// UTF-8 byte for byte inside the JSON string (escaping only `"`, `\` and control characters),
/// and reads it back exactly. A file with several hard links carries `dev`, `ino`, `nlink` and
/// `hlnkc`, and a reader counts it once: Stowage counts it under the first name in the file,
/// as its scan counts it under the first name met, and adds the others to
/// ``UsageReport/skippedHardLinkCount``. A folder that could not be read carries `read_error`.
///
/// ```swift
/// var options = UsageOptions()
/// options.breakdownDepth = .max   // every folder and file, so the file holds them all
/// let report = UsageScanner(options: options).scan([containerURL])
/// try report.ncduExport().write(to: snapshotURL)
/// // a week later
/// let then = try UsageReport(ncduExport: Data(contentsOf: snapshotURL), options: options)
/// ```
extension UsageReport {
    /// The report as an ncdu JSON export (version 1.2): every item of the breakdown, each
    /// folder with the bytes of its own entry (its totals less those of the items listed in
    /// it), so that a reader's totals are the report's.
    ///
    /// Save a report scanned with ``UsageOptions/breakdownDepth`` `.max` to keep every folder
    /// and file; with a smaller depth the folders at the last level keep the bytes of what is
    /// inside them as their own: the bytes are still exact, the counts are of what is listed.
    ///
    /// - Parameter timestamp: The time the file says it was made (ncdu shows it).
    /// - Returns: The file's bytes (not all UTF-8 when a name is not).
    /// - Throws: ``StowageError/invalidArgument`` when the report has no root or several (the
    ///   format holds one), or when an item holds more than its folder (a report not made by a
    ///   scan or an import).
    public func ncduExport(timestamp: Date = Date()) throws -> Data {
        var writer = NcduExportWriter(issuePaths: Set(issues.map(\.pathBytes)))
        guard roots.count == 1, let root = breakdownTree().first else {
            throw StowageError(.invalidArgument, operation: .saveScan,
                               reason: "ncdu's format holds one root, and the report has \(roots.count)")
        }
        writer.header(timestamp: timestamp)
        try writer.write(root, isRoot: true)
        writer.footer()
        return Data(writer.bytes)
    }

    /// The report a saved scan holds: one written by ``ncduExport(timestamp:)``, by `ncdu -o`
    /// or by `gdu -o`, with the items down to `options`' ``UsageOptions/breakdownDepth`` and its
    /// ``UsageOptions/largestFileCount`` largest files (by ``UsageOptions/ranksByLogicalSize``);
    /// the other options are what the scan that made the file chose.
    ///
    /// A file or folder the file marks `excluded` is left out (as a scan leaves out what it
    /// excludes), and one marked `notreg` counts as a symbolic link when it has bytes (a link's
    /// size is its target's length) and as another kind (device, socket, pipe) otherwise.
    /// gdu writes no bytes for folders themselves and marks only the second and later names of
    /// a hard-linked file, so its files import with what gdu wrote.
    ///
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - path: Where they came from, for errors (`nil`: standard input, say).
    ///   - options: How much of it the report lists.
    /// - Throws: ``StowageError/decodingFailed`` naming `path`, the byte offset and what was
    ///   wrong: not JSON, not format version 1, a name that is empty, `.`, `..` or holds `/` or
    ///   NUL, a size that is negative or not an integer, nothing or something after the root.
    public init(ncduExport data: Data, path: String? = nil, options: UsageOptions = UsageOptions()) throws {
        self = try Self.savedScan(ncduExport: data, path: path, options: options).report
    }

    /// The report a saved scan holds, as ``init(ncduExport:path:options:)`` reads it, and when
    /// the file says it was made (its metadata's `timestamp`; `nil` when it carries none).
    package static func savedScan(ncduExport data: Data, path: String? = nil,
                                  options: UsageOptions = UsageOptions()) throws -> (report: UsageReport, timestamp: Date?) {
        try data.withUnsafeBytes { raw in
            var reader = NcduExportReader(bytes: raw.bindMemory(to: UInt8.self), source: path, options: options)
            let report = try reader.read()
            return (report, reader.timestamp.map { Date(timeIntervalSince1970: Double($0)) })
        }
    }
}

extension StowageError.Operation {
    /// Writing a usage report as a saved scan (``UsageReport/ncduExport(timestamp:)``).
    public static let saveScan = StowageError.Operation("save scan")
    /// Reading a saved scan (``UsageReport/init(ncduExport:path:options:)``).
    public static let loadScan = StowageError.Operation("load scan")
}

/// Writes the ncdu JSON export of a report's tree, in ncdu's own layout (one item a line).
struct NcduExportWriter {
    private var json = JSONWriter()
    /// The folders that could not be read (their paths), marked `read_error`.
    let issuePaths: Set<[UInt8]>

    init(issuePaths: Set<[UInt8]>) {
        self.issuePaths = issuePaths
    }

    /// What has been written.
    var bytes: [UInt8] { json.bytes }

    mutating func header(timestamp: Date) {
        json.raw("[1,2,{\"progname\":\"stowage\",\"progver\":\"0.1\",\"timestamp\":")
        json.integer(Int64(timestamp.timeIntervalSince1970.rounded(.down)))
        json.raw("},\n")
    }

    mutating func footer() { json.raw("]\n") }

    /// Writes `node` (and, for a folder, everything listed in it) without recursion, so that
    /// a tree of any depth is written with a bounded stack.
    mutating func write(_ root: UsageNode, isRoot: Bool) throws {
        // Each entry: the node, and whether its folder's array is to be closed (after its items).
        var stack: [(node: UsageNode, closes: Bool)] = [(root, false)]
        var first = true
        while let (node, closes) = stack.popLast() {
            if closes {
                json.raw("]")
                continue
            }
            if !first { json.raw(",\n") }
            let item = node.item
            let name = first && isRoot ? item.pathBytes[...] : Self.lastName(of: item.pathBytes)
            first = false
            if item.isFolder {
                var logical = item.logicalBytes, allocated = item.allocatedBytes
                for child in node.children {
                    logical -= child.item.logicalBytes
                    allocated -= child.item.allocatedBytes
                }
                guard logical >= 0, allocated >= 0 else {
                    throw StowageError(.invalidArgument, operation: .saveScan, path: item.path, reason: "its items hold more than it does",
                                       pathBytes: item.pathBytes)
                }
                json.raw("[")
                entry(name: name, logical: logical, allocated: allocated, item: item)
                stack.append((node, true))
                stack.append(contentsOf: node.children.reversed().map { ($0, false) })
            } else {
                entry(name: name, logical: item.logicalBytes, allocated: item.allocatedBytes, item: item)
            }
        }
    }

    private mutating func entry(name: ArraySlice<UInt8>, logical: Int64, allocated: Int64, item: UsageItem) {
        json.raw("{\"name\":")
        json.name(name)
        if logical != 0 { number("asize", logical) }
        if allocated != 0 { number("dsize", allocated) }
        if let link = item.hardLink {
            number("dev", link.device)
            number("ino", link.inode)
            json.raw(",\"hlnkc\":true")
            if let count = link.linkCount { number("nlink", count) }
        }
        // ncdu's extended information (`ncdu -e`): the modification time, whole seconds since 1970.
        if let date = item.modificationDate, date.timeIntervalSince1970 >= 0 {
            number("mtime", UInt64(date.timeIntervalSince1970.rounded(.down)))
        }
        if !item.isFolder && item.fileCount == 0 { json.raw(",\"notreg\":true") }
        if item.isFolder && issuePaths.contains(item.pathBytes) { json.raw(",\"read_error\":true") }
        json.raw("}")
    }

    /// Writes `,"key":value`.
    private mutating func number(_ key: StaticString, _ value: some BinaryInteger) {
        json.raw(",\"")
        json.raw(key)
        json.raw("\":")
        json.integer(value)
    }

    /// The name after the last `/` of `path`.
    static func lastName(of path: [UInt8]) -> ArraySlice<UInt8> {
        guard let slash = path.lastIndex(of: UInt8(ascii: "/")) else { return path[...] }
        return path[(slash + 1)...]
    }
}
