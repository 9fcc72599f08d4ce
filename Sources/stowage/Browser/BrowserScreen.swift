import Foundation
import Stowage

/// What the browser draws: the screen as lines of text, each at most the terminal's width, with
/// the escape codes of its styles. A value computed from the browser's state and nothing else,
/// so what a test reads from the terminal is what these lines say.
struct BrowserScreen {
    /// The terminal's size.
    var columns: Int
    var rows: Int
    /// Whether colours may be used (see ``BrowserStyle``); reverse video marks the selected row
    /// and the title and status bars either way.
    var style: BrowserStyle
    var units: ByteCountStyle

    /// Rows the list of a folder gets: the screen less the title and status bars.
    var listRows: Int { max(1, rows - 2) }

    /// The folder `folder` of `tree`, its children in `order` (`rows`), the one at `selected`
    /// highlighted, the list scrolled to `offset`; the status bar says `status`, or the totals.
    func folder(_ tree: BrowserTree, _ folder: Int, rows children: [Int], selected: Int, offset: Int,
                order: BrowserOrder, status: String?, title: String) -> [String] {
        // The end of a long path says more than its start: cut on the left.
        let path = display(tree, folder)
        let room = max(1, columns - title.unicodeScalars.count - 3)
        let shown = path.unicodeScalars.count > room ? "~" + String(String.UnicodeScalarView(path.unicodeScalars.suffix(room - 1))) : path
        var lines = [style.bar(fit(" \(title)  \(shown)", columns))]
        let total = order.size(tree[folder])
        let nameWidth = max(8, columns - 40 - (order.key == .modificationTime ? 17 : 0))
        for position in offset..<min(children.count, offset + listRows) {
            let node = tree[children[position]]
            if let change = tree.change(of: children[position]) {
                lines.append(changeRow(node, name: tree.name(of: children[position]), change, order: order, selected: position == selected))
                continue
            }
            let size = order.size(node)
            let share = total > 0 ? Double(size) / Double(total) : 0
            let filled = Int((share * 10).rounded())
            var name = DisplayPath.escaped(bytes: Array(tree.name(of: children[position]))) + (node.isFolder ? "/" : "")
            if let note = tree.note(of: children[position]) { name = note + "  " + name }  // an app's location: what it is, then where
            let time = order.key == .modificationTime ? " " + Self.time(node.modificationTime) : ""
            let plain = pad(ByteCount(size).formatted(units), 10, right: true) + " "
                + pad(String(format: "%5.1f%%", share * 100), 6, right: true) + " "
            let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: 10 - filled)
            let files = pad(node.isFolder ? Self.count(node.fileCount) : "", 7, right: true)
            let rest = " " + files + time + "  " + fit(name, nameWidth)
            if position == selected {
                lines.append(style.selected(fit(plain + "[" + bar + "]" + rest, columns, padded: true)))
            } else {
                lines.append(fit(plain, columns) + style.bar(filled: bar, fitting: columns - plain.count)
                             + fit(rest, max(0, columns - plain.count - 12)))
            }
        }
        if children.isEmpty { lines.append(fit("  (empty folder)", columns)) }
        while lines.count < rows - 1 { lines.append("") }
        let node = tree[folder]
        let sizes = order.showsLogicalSize ? "logical" : "allocated"
        var totals = "Total \(ByteCount(order.size(node)).formatted(units)) \(sizes), \(Noun.file.counted(node.fileCount))"
        if let change = tree.change(of: folder) {
            let before = ByteCount(order.size(node) - order.change(change)).formatted(units)
            totals = "Change \(UsageComparisonView.signed(order.change(change), style: units)) \(sizes) "
                + "(\(before) to \(ByteCount(order.size(node)).formatted(units))), \(UsageComparisonView.signedFiles(change.fileCount))"
        }
        totals += "  Sort: \(order.description)  ?: help  q: quit"
        lines.append(style.bar(fit(" " + (status ?? totals), columns, padded: true)))
        return Array(lines.prefix(rows))
    }

    /// A row of the "changed since" mode: the change in bytes and in files, how the item
    /// changed, its size now (`-` when it was removed), its name.
    private func changeRow(_ node: BrowserTree.Node, name: ArraySlice<UInt8>, _ change: BrowserTree.Change, order: BrowserOrder,
                           selected: Bool) -> String {
        let files = change.fileCount == 0 ? "" : change.fileCount > 0 ? "+" + Self.count(change.fileCount) : "-" + Self.count(-change.fileCount)
        let now = change.kind == .removed ? "-" : ByteCount(order.size(node)).formatted(units)
        let text = pad(UsageComparisonView.signed(order.change(change), style: units), 10, right: true) + " " + pad(files, 7, right: true)
            + "  " + pad(change.kind.rawValue, 10, right: false) + pad(now, 10, right: true) + "  "
            + DisplayPath.escaped(bytes: Array(name)) + (node.isFolder ? "/" : "")
        return selected ? style.selected(fit(text, columns, padded: true)) : fit(text, columns)
    }

    /// The screen while a scan runs: what is scanned and how far it got.
    func progress(scanning subject: String, entries: Int, bytes: Int64, title: String) -> [String] {
        var lines = [style.bar(fit(" \(title)", columns, padded: true)), ""]
        lines.append(fit("  Scanning \(subject)", columns))
        lines.append(fit("  \(Noun.entry.counted(entries)), \(ByteCount(bytes).formatted(units))", columns))
        lines.append("")
        lines.append(fit("  q: stop and quit", columns))
        while lines.count < rows { lines.append("") }
        return Array(lines.prefix(rows))
    }

    /// The keys of a browser of `content`, over the whole screen.
    func help(title: String, content: BrowserContent) -> [String] {
        var keys = [
            ("up, k / down, j", "move"),
            ("page up / page down", "move a screen"),
            ("home, g / end, G", "first / last"),
            ("right, l, enter", "open the folder"),
            ("left, h, backspace", "back to the folder above"),
        ]
        let delete = "delete (asks first; pins, mounts and system folders refused)"
        switch content {
        case .disk, .savedScan:
            keys += [("s", "sort by size (again: reversed)"), ("a", "allocated or logical sizes"), ("c", "sort by files inside"),
                     ("n", "sort by name"), ("m", "sort by modification time")]
        case .changes:
            keys += [("c", "sort by change, the largest first (again: reversed)"), ("s", "sort by size now"),
                     ("a", "allocated or logical sizes"), ("n", "sort by name")]
        }
        switch content {
        case .disk:
            keys += [("d", delete), ("r", "scan this folder again")]
        case .savedScan:
            keys += [("d, r", "not in a saved scan: it is not the disk (nothing is deleted or scanned)")]
        case .changes(_, _, let live):
            keys += live ? [("d", delete + "; then compares again"), ("r", "scan again and compare again")]
                : [("d, r", "not between two saved scans: neither is the disk")]
        }
        keys += [("?", "this help (any key closes it)"), ("q", "quit")]
        var lines = [style.bar(fit(" \(title): keys", columns, padded: true)), ""]
        for (key, what) in keys { lines.append(fit("  " + pad(key, 22, right: false) + what, columns)) }
        while lines.count < rows { lines.append("") }
        return Array(lines.prefix(rows))
    }

    /// The folder's path as the title shows it (escaped), or the name of the node that holds
    /// an app's locations.
    private func display(_ tree: BrowserTree, _ folder: Int) -> String {
        let path = tree.path(of: folder)
        return DisplayPath.escaped(bytes: path.isEmpty ? Array(tree.name(of: folder)) : path)
    }

    static func count(_ files: Int) -> String {
        files >= 1_000_000 ? "\(files / 1_000_000)M" : files >= 10_000 ? "\(files / 1000)k" : "\(files)"
    }

    /// `2026-11-28 16:03` in UTC (ISO 8601's date and minutes), or dashes when the time is not known.
    static func time(_ seconds: Double?) -> String {
        guard let seconds else { return "----------------" }
        return String(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: seconds)).prefix(16)).replacing("T", with: " ")
    }
}

/// `text` cut to `width` columns (one a scalar), ending in `~` when cut; with `padded`, filled
/// with spaces to `width`.
func fit(_ text: String, _ width: Int, padded: Bool = false) -> String {
    let scalars = text.unicodeScalars
    if scalars.count > width {
        guard width > 0 else { return "" }
        var cut = String.UnicodeScalarView(scalars.prefix(width - 1))
        cut.append("~")
        return String(cut)
    }
    return padded ? text + String(repeating: " ", count: width - scalars.count) : text
}

/// `text` filled with spaces to `width` columns, on the left with `right` (right-aligned).
private func pad(_ text: String, _ width: Int, right: Bool) -> String {
    let fill = String(repeating: " ", count: max(0, width - text.unicodeScalars.count))
    return right ? fill + text : text + fill
}

/// The escape codes of the browser's styles: colours only where the terminal has them and
/// `NO_COLOR` is not set (<https://no-color.org>); reverse video (not a colour) either way.
struct BrowserStyle {
    var usesColor: Bool

    /// Colours unless `NO_COLOR` is set (to anything but nothing), or `TERM` names a terminal
    /// without colours (unset, `dumb`, or one that is neither `*color*` nor a known colour
    /// terminal: xterm, screen, tmux, rxvt, linux, vt220 has none).
    init(environment: [String: String]) {
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
        let term = environment["TERM"] ?? ""
        let colorTerminal = term.contains("color") || ["xterm", "screen", "tmux", "rxvt", "linux", "alacritty", "kitty", "foot"]
            .contains { term == $0 || term.hasPrefix($0 + "-") }
        usesColor = !noColor && colorTerminal
    }

    init(usesColor: Bool) { self.usesColor = usesColor }

    static let reset = "\u{1B}[0m"

    /// The title and status bars: reverse video.
    func bar(_ text: String) -> String { "\u{1B}[7m" + text + Self.reset }

    /// The selected row: reverse video (bold too with colours).
    func selected(_ text: String) -> String { (usesColor ? "\u{1B}[1;7m" : "\u{1B}[7m") + text + Self.reset }

    /// A row's size bar, `[###   ]`, green with colours; `fitting` columns at most.
    func bar(filled bar: String, fitting width: Int) -> String {
        let text = fit("[" + bar + "]", max(0, width))
        guard usesColor, text.count > 2 else { return text }
        return "[\u{1B}[32m" + text.dropFirst().dropLast() + Self.reset + "]"
    }
}
