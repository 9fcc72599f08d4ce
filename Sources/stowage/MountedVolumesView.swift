import Foundation
import Stowage

/// `info --all` for people: a table per kind of volume (local, network, memory), as `duf`
/// shows them, fitted to the terminal's width.
struct MountedVolumesView {
    var volumes: [MountedVolume]
    var style: ByteCountStyle
    /// The columns to fit, or `nil` to cut nothing (standard output is not a terminal).
    var width: Int?

    /// The widest the use bar is drawn.
    static let barWidth = 10

    func render() -> String {
        guard !volumes.isEmpty else { return "No mounted volumes.\n" }
        let groups = Dictionary(grouping: volumes, by: \.kind).sorted { $0.key < $1.key }
        return groups.map { kind, volumes in
            let heading = kind == .memory ? "\(Noun("volume").counted(volumes.count)) in memory"
                : Noun("\(kind.name) volume").counted(volumes.count)
            return heading + "\n" + table(volumes)
        }.joined(separator: "\n")
    }

    /// One kind's table: mount point, size, used, available, use (as df), inodes used, type,
    /// and what is mounted; the bar shrinks, then names are shortened in the middle, to fit.
    func table(_ volumes: [MountedVolume]) -> String {
        func size(_ bytes: Int64) -> String { ByteCount(bytes).formatted(style) }
        let header = ["MOUNTED ON", "SIZE", "USED", "AVAIL", "USE%", "INODES", "TYPE", "FILESYSTEM"]
        var rows = volumes.map { volume -> [String] in
            let capacity = volume.capacity
            let percent = CapacityView.usedShare(of: capacity).percent
            // Inodes in use, as `df -i` shows IUse%: rounded up; `-` where the file system does not count them.
            var inodes = "-"
            if let total = capacity.totalInodeCount, let available = capacity.availableInodeCount, total > 0 {
                inodes = "\(CapacityView.percentRoundedUp(min(total, max(0, total - available)), of: total))%"
            }
            return [DisplayPath.escaped(bytes: volume.mountPointBytes), size(capacity.totalBytes), size(capacity.usedBytes), size(capacity.availableBytes),
                    "\(percent)%", inodes, DisplayPath.escaped(volume.fileSystemType), DisplayPath.escaped(volume.source)]
        }
        var bar = Self.barWidth
        var widths = header.indices.map { column in ([header] + rows).map { TerminalText.width(of: $0[column]) }.max() ?? 0 }
        if let width {
            let bars = { bar > 0 ? bar + 3 : 0 }  // "[" bar "] " before the percentage
            func total() -> Int { widths.reduce(0, +) + 2 * (widths.count - 1) + bars() }
            // The widest of `columns` loses a column at a time, none below `least`.
            func shorten(_ columns: [Int], downTo least: Int) {
                while total() > width, let column = columns.filter({ widths[$0] > least }).max(by: { widths[$0] < widths[$1] }) {
                    widths[column] -= 1
                }
            }
            // What is mounted first (down to 10 columns), then the bar, then both names (to 8):
            // where a volume is mounted is what people look for.
            shorten([7], downTo: 10)
            bar = max(0, min(bar, bar - (total() - width)))
            if bar < 4 { bar = 0 }
            shorten([0, 7], downTo: 8)
            rows = rows.map { row in
                var row = row
                for column in [7, 0] { row[column] = TerminalText.middleTruncated(row[column], toWidth: widths[column]) }
                return row
            }
        }
        for (index, volume) in volumes.enumerated() where bar > 0 {
            let fraction = CapacityView.usedShare(of: volume.capacity).fraction
            rows[index][4] = Bar.render(fraction: fraction, width: bar) + " " + String(("   " + rows[index][4]).suffix(4))
        }
        var table = TextTable(header: header)
        table.rows = rows
        return table.render()
    }
}
