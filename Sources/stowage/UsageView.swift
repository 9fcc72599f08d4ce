import ArgumentParser
import Foundation
import Stowage

/// `--limit`: a number of rows, or `all`.
struct RowLimit: ExpressibleByArgument, Sendable {
    /// The rows, or `nil` for all of them.
    var rows: Int?

    init?(argument: String) {
        if argument.lowercased() == "all" {
            rows = nil
        } else if let rows = Int(argument), rows > 0 {
            self.rows = rows
        } else {
            return nil
        }
    }

    static var allValueStrings: [String] { [] }  // a number or `all`: not a closed list for the help
    /// Completion offers `all` (a number is typed).
    static var defaultCompletionKind: CompletionKind { .list(["all"]) }
    var defaultValueDescription: String { rows.map(String.init) ?? "all" }
}

/// Which rows of a usage breakdown are shown: the largest, down to a size, as a tree or flat.
struct UsageSelection {
    /// The rows shown when standard output is not a terminal and `--limit` is not given.
    static let defaultRowsOffTerminal = 50
    /// The fewest rows the screen-fitting default shows, however small the terminal.
    static let fewestDefaultRows = 5

    var limit: Int?
    var minimumBytes: Int64?
    var apparent: Bool

    func size(_ item: UsageItem) -> Int64 { item.size(apparent: apparent) }

    /// The trees (one per root) cut to the rows kept: the `limit` largest items of at least
    /// `minimumBytes` below the roots (with the folders holding them, which are never smaller),
    /// and how many items were left out.
    func apply(to trees: [UsageNode]) -> (trees: [UsageNode], hidden: Int) {
        // By bytes: two names that are not UTF-8 may read the same as text.
        struct Key: Hashable {
            var path: [UInt8]
            var depth: Int
        }
        let below = trees.flatMap { $0.children.flatMap(\.allNodes) }.map(\.item)
        var ranked = below.filter { size($0) >= (minimumBytes ?? 0) }
        ranked.sort {
            (size($0), -$0.depth) != (size($1), -$1.depth) ? (size($0), -$0.depth) > (size($1), -$1.depth)
                : $0.pathBytes.lexicographicallyPrecedes($1.pathBytes)
        }
        if let limit { ranked = Array(ranked.prefix(limit)) }
        let kept = Set(ranked.map { Key(path: $0.pathBytes, depth: $0.depth) })
        var shown = 0
        func prune(_ node: UsageNode) -> UsageNode? {
            let children = node.children.compactMap(prune)
            guard node.item.depth == 0 || !children.isEmpty || kept.contains(Key(path: node.item.pathBytes, depth: node.item.depth)) else {
                return nil
            }
            if node.item.depth > 0 { shown += 1 }
            return UsageNode(item: node.item, children: children)
        }
        let pruned = trees.compactMap(prune)
        return (pruned, below.count - shown)
    }
}

/// The report for people.
struct UsageView {
    var report: UsageReport
    var style: ByteCountStyle
    var apparent: Bool
    var summarize: Bool
    var flat: Bool
    /// The trees to show (already cut by ``UsageSelection``) and the items left out.
    var trees: [UsageNode]
    var hidden: Int
    /// Whether `--min-size` left items out (the note on hidden rows says so).
    var hasMinimum: Bool
    /// The columns to fit, or `nil` to cut nothing (standard output is not a terminal).
    var width: Int?

    /// The widest a bar is drawn, and the narrowest it is squeezed to on a narrow terminal.
    static let barWidth = 20
    static let narrowestBar = 8

    func size(_ allocated: Int64, _ logical: Int64) -> String {
        ByteCount(apparent ? logical : allocated).formatted(style)
    }

    func size(_ item: UsageItem) -> Int64 { item.size(apparent: apparent) }

    /// `path` below `root` (`photos/2024`), or as it is when several roots were scanned; bytes.
    func relative(_ path: [UInt8], to root: [UInt8]) -> [UInt8] {
        guard report.roots.count == 1 else { return path }
        let prefix = root.last == UInt8(ascii: "/") ? root : root + [UInt8(ascii: "/")]
        return path.starts(with: prefix) ? Array(path.dropFirst(prefix.count)) : path
    }

    /// The lines above the breakdown: each root's totals (and all roots' when several). On a
    /// terminal of `width` columns a long path is shortened (to 12 columns at least), and the
    /// counts go to a line of their own when the line is still too wide. A root an earlier one
    /// counted already gets no figures, only a line saying so (`du` prints nothing for it).
    static func summaryLines(of report: UsageReport, style: ByteCountStyle, width: Int?) -> [String] {
        var lines: [String] = []
        for root in report.roots + (report.roots.count > 1 ? [report.totals] : []) {
            if let owner = root.alreadyCountedIn {
                let line = "\(DisplayPath.escaped(root.path ?? "")): counted in \(DisplayPath.escaped(owner))"
                lines.append(width.map { TerminalText.middleTruncated(line, toWidth: $0) } ?? line)
                continue
            }
            let sizes = ": \(ByteCount(root.allocatedBytes).formatted(style)) allocated, \(ByteCount(root.logicalBytes).formatted(style)) logical;"
            let counts = [Noun.file.counted(root.fileCount), Noun.folder.counted(root.folderCount), Noun.link.counted(root.symbolicLinkCount)]
                .joined(separator: ", ") + (root.otherCount > 0 ? ", " + Noun("other").counted(root.otherCount) : "")
            let path = root.path.map(DisplayPath.escaped) ?? "Total"
            guard let width else {
                lines.append(path + sizes + " " + counts)
                continue
            }
            let oneLine = TerminalText.width(of: sizes + " " + counts)
            if width - oneLine >= min(12, TerminalText.width(of: path)) {
                lines.append(TerminalText.middleTruncated(path, toWidth: width - oneLine) + sizes + " " + counts)
            } else {
                lines.append(TerminalText.middleTruncated(path, toWidth: max(12, width - TerminalText.width(of: sizes))) + sizes)
                lines.append("  " + counts)
            }
        }
        if report.skippedHardLinkCount > 0 {
            lines.append("(\(Noun("extra hard link").counted(report.skippedHardLinkCount)) counted once)")
        }
        return lines
    }

    /// The lines the output has besides the breakdown's rows, on a terminal of `width` columns:
    /// what the screen-fitting default leaves room for (one more for the shell's prompt).
    static func linesBesideRows(of report: UsageReport, style: ByteCountStyle, width: Int?) -> Int {
        let summary = summaryLines(of: report, style: style, width: width).count
        let breakdown = 3  // a blank line, the table's header, the line saying what was left out
        let largest = report.largestFiles.isEmpty ? 0 : 3 + report.largestFiles.count
        let issues = report.issues.isEmpty ? 0 : 2
        return summary + breakdown + largest + issues + 1
    }

    func render() -> String {
        if summarize {
            var table = TextTable(header: [apparent ? "LOGICAL" : "ALLOCATED", "PATH"])
            // As du -s: no line for a root an earlier one counted already.
            for root in report.roots where root.alreadyCountedIn == nil {
                table.rows.append([size(root.allocatedBytes, root.logicalBytes), DisplayPath.escaped(root.path ?? "")])
            }
            if report.roots.count > 1 { table.rows.append([size(report.allocatedBytes, report.logicalBytes), "total"]) }
            return table.render()
        }
        var lines = Self.summaryLines(of: report, style: style, width: width)
        let rows = flat ? flatRows() : treeRows()
        if !rows.isEmpty {
            lines.append("")
            lines.append(breakdownTable(rows))
            if hidden > 0 {
                lines.append(hasMinimum ? "(\(hidden) more not shown: smaller than --min-size, or past --limit)"
                                        : "(\(hidden) smaller not shown; --limit all shows every one)")
            }
        }
        if !report.largestFiles.isEmpty {
            lines.append("")
            lines.append("Largest files:")
            var table = TextTable(header: ["SIZE", "PATH"])
            let sizes = report.largestFiles.map { size($0.allocatedBytes, $0.logicalBytes) }
            let room = width.map { $0 - (sizes.map(\.count).max() ?? 0) - 2 }
            for (item, size) in zip(report.largestFiles, sizes) {
                table.rows.append([size, fitted(DisplayPath.escaped(bytes: item.pathBytes), room: room)])
            }
            lines.append(table.render().trimmingNewlines())
        }
        if !report.issues.isEmpty {
            lines.append("")
            lines.append("\(Noun("problem").counted(report.issues.count)) met; see standard error.")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A row of the breakdown: the item, the size of its root (for the share), and its name as
    /// shown: a tree's branches then the name (which may be shortened), or a path.
    struct Row {
        var item: UsageItem
        var rootSize: Int64
        var lead: String
        var name: String
    }

    /// The trees of the roots that were counted (not those an earlier root counted already).
    var countedTrees: [UsageNode] {
        zip(report.roots, trees).filter { $0.0.alreadyCountedIn == nil }.map(\.1)
    }

    /// Each root, then the items inside it under their folder, largest first in each folder.
    func treeRows() -> [Row] {
        var rows: [Row] = []
        for tree in countedTrees {
            let rootSize = size(tree.item)
            rows.append(Row(item: tree.item, rootSize: rootSize, lead: "", name: DisplayPath.escaped(tree.item.path)))
            func add(_ children: [UsageNode], lead: String) {
                for (index, child) in children.enumerated() {
                    let last = index == children.count - 1
                    let bytes = child.item.pathBytes
                    let name = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).last.map(Array.init) ?? bytes
                    rows.append(Row(item: child.item, rootSize: rootSize, lead: lead + (last ? "└─ " : "├─ "),
                                    name: DisplayPath.escaped(bytes: name) + (child.item.isFolder ? "/" : "")))
                    add(child.children, lead: lead + (last ? "   " : "│  "))
                }
            }
            add(tree.children, lead: "")
        }
        return rows
    }

    /// Every item shown, largest first, by its path below its root.
    func flatRows() -> [Row] {
        var rows: [Row] = []
        for tree in countedTrees {
            let rootSize = size(tree.item)
            for node in tree.children.flatMap(\.allNodes) {
                rows.append(Row(item: node.item, rootSize: rootSize, lead: "",
                                name: DisplayPath.escaped(bytes: relative(node.item.pathBytes, to: tree.item.pathBytes))
                                    + (node.item.isFolder ? "/" : "")))
            }
        }
        return rows.sorted {
            size($0.item) != size($1.item) ? size($0.item) > size($1.item) : $0.item.pathBytes.lexicographicallyPrecedes($1.item.pathBytes)
        }
    }

    /// The rows as a table of size, share bar, percentage and name, fitted to ``width``: the
    /// bar squeezed first, then names shortened in the middle.
    func breakdownTable(_ rows: [Row]) -> String {
        let sizes = rows.map { size($0.item.allocatedBytes, $0.item.logicalBytes) }
        let sizeWidth = max(4, sizes.map(\.count).max() ?? 0)
        let widestName = rows.map { TerminalText.width(of: $0.lead + $0.name) }.max() ?? 0
        var bar = Self.barWidth
        var room: Int?
        if let width {
            // size, two spaces, [bar], two spaces, "100%", two spaces, then the name
            let fixed = sizeWidth + 2 + 2 + 2 + 4 + 2
            bar = max(Self.narrowestBar, min(Self.barWidth, width - fixed - widestName))
            room = width - fixed - bar
        }
        var table = TextTable(header: ["SIZE", "SHARE", "", "PATH"])
        for (row, size) in zip(rows, sizes) {
            let share = row.rootSize > 0 ? Double(self.size(row.item)) / Double(row.rootSize) : 0
            let name = room.map { room in
                row.lead + TerminalText.middleTruncated(row.name, toWidth: max(1, room - TerminalText.width(of: row.lead)))
            } ?? row.lead + row.name
            table.rows.append([size, Bar.render(fraction: share, width: bar), percent(share), name])
        }
        return table.render().trimmingNewlines()
    }

    /// `share` (0 to 1) as a whole percentage right-aligned in three columns, as `%3.0f%%` prints it.
    func percent(_ share: Double) -> String {
        let number = FixedPointText.fixed(share * 100, decimals: 0)
        return String(repeating: " ", count: max(0, 3 - number.count)) + number + "%"
    }

    /// `text` shortened in its middle to `room` columns, when there is a room to fit.
    func fitted(_ text: String, room: Int?) -> String {
        guard let room else { return text }
        return TerminalText.middleTruncated(text, toWidth: max(1, room))
    }
}

extension UsageItem {
    /// Its size as `stowage usage` ranks and shows it: logical bytes with `--apparent-size`,
    /// else allocated bytes.
    func size(apparent: Bool) -> Int64 { apparent ? logicalBytes : allocatedBytes }
}
