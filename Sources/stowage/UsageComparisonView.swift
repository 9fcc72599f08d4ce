import Foundation
import Stowage

/// `usage --compare` for people: each root's change, then the changed items as a tree, each
/// folder's largest change first, cut to the `rows` largest changes (with the folders holding them).
struct UsageComparisonView {
    var difference: UsageDifference
    var style: ByteCountStyle
    var apparent: Bool
    /// The most item rows shown, or `nil` for all.
    var rows: Int?

    func change(_ change: UsageChange) -> Int64 { apparent ? change.changeInLogicalBytes : change.changeInAllocatedBytes }

    func signed(_ bytes: Int64) -> String { Self.signed(bytes, style: style) }

    /// A change in bytes with its sign: `+300 MB`, `-12 kB`, `0 B` (the browser's "changed since" rows too).
    static func signed(_ bytes: Int64, style: ByteCountStyle) -> String {
        bytes == 0 ? "0 B" : (bytes > 0 ? "+" : "-") + ByteCount(bytes.magnitude > UInt64(Int64.max) ? Int64.max : abs(bytes)).formatted(style)
    }

    /// A change in files with its sign: `+3 files`, `-1 file`, `+0 files`.
    static func signedFiles(_ files: Int) -> String { "\(files >= 0 ? "+" : "")\(Noun.file.counted(files))" }

    func size(_ figures: UsageFigures?) -> String {
        figures.map { ByteCount(apparent ? $0.logicalBytes : $0.allocatedBytes).formatted(style) } ?? "-"
    }

    func render() -> String {
        var lines: [String] = []
        let below = difference.roots.flatMap { $0.children.flatMap(\.allChanges) }
        var ranked = below
        ranked.sort {
            abs(change($0)) != abs(change($1)) ? abs(change($0)) > abs(change($1))
                : $0.depth != $1.depth ? $0.depth < $1.depth : $0.pathBytes.lexicographicallyPrecedes($1.pathBytes)
        }
        if let rows { ranked = Array(ranked.prefix(rows)) }
        struct Key: Hashable {
            var path: [UInt8]
            var depth: Int
        }
        let kept = Set(ranked.map { Key(path: $0.pathBytes, depth: $0.depth) })
        var table = TextTable(header: ["CHANGE", "FILES", "BEFORE", "AFTER", "", "PATH"])
        var shown = 0
        // The rows of `node` and what is inside it, in tree order: none when no change kept is
        // in it or is it.
        func tableRows(of node: UsageChange, lead: String) -> [[String]] {
            let below = node.children.flatMap { tableRows(of: $0, lead: lead + "  ") }
            guard !below.isEmpty || kept.contains(Key(path: node.pathBytes, depth: node.depth)) else { return [] }
            shown += 1
            let name = node.pathBytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).last.map(Array.init) ?? node.pathBytes
            let files = node.changeInFileCount == 0 ? "" : (node.changeInFileCount > 0 ? "+" : "") + "\(node.changeInFileCount)"
            return [[signed(change(node)), files, size(node.before), size(node.after), node.kind.rawValue,
                     lead + DisplayPath.escaped(bytes: name) + (node.isFolder ? "/" : "")]] + below
        }
        for root in difference.roots {
            let files = root.changeInFileCount
            lines.append("\(DisplayPath.escaped(bytes: root.pathBytes)): \(signed(change(root))) \(apparent ? "logical" : "allocated") "
                         + "(\(size(root.before)) to \(size(root.after))), \(Self.signedFiles(files))")
            table.rows += root.children.flatMap { tableRows(of: $0, lead: "") }
        }
        if !table.rows.isEmpty {
            lines.append("")
            lines.append(table.render().trimmingNewlines())
        } else {
            lines.append("No changes.")
        }
        if shown < below.count { lines.append("(\(below.count - shown) smaller changes not shown; --limit all shows every one)") }
        return lines.joined(separator: "\n") + "\n"
    }
}
