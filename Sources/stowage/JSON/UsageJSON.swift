import Stowage

/// `stowage usage --json` (`usage.json`): the totals of all roots at the top level, each root's
/// totals, the breakdown as trees, the largest files and the problems met.
struct UsageJSON: Encodable {
    var allocatedBytes: Int64
    var logicalBytes: Int64
    var fileCount: Int
    var folderCount: Int
    var symbolicLinkCount: Int
    var otherCount: Int
    var skippedHardLinkCount: Int
    var roots: [UsageTotals]
    /// The items below the roots as trees: each with the items inside it in `children`.
    var breakdown: [UsageNode]
    var largestFiles: [UsageItem]
    var issues: [UsageIssue]

    init(_ report: UsageReport, breakdown: [UsageNode]) {
        allocatedBytes = report.totals.allocatedBytes
        logicalBytes = report.totals.logicalBytes
        fileCount = report.totals.fileCount
        folderCount = report.totals.folderCount
        symbolicLinkCount = report.totals.symbolicLinkCount
        otherCount = report.totals.otherCount
        skippedHardLinkCount = report.skippedHardLinkCount
        roots = report.roots
        self.breakdown = breakdown
        largestFiles = report.largestFiles
        issues = report.issues
    }
}

extension UsageJSON {
    /// The document as ``JSONOutput/encode(_:)`` writes it, byte for byte, written by a
    /// ``JSONWriter`` instead of `JSONEncoder`, which took half of a `usage --json` listing every
    /// item of a large tree. The keys are those of this type and of the library's
    /// `UsageTotals`, `UsageItem` (`UsageNode`: the item's and `children`), `UsageHardLink` and
    /// `UsageIssue`, in sorted order; `UsageJSONTests` checks the bytes against
    /// `JSONOutput.encode`, so a key added to those types fails there.
    func text() -> String {
        var writer = JSONWriter(capacity: 1 << 20)
        writer.beginObject()
        writer.key("allocatedBytes")
        writer.integer(allocatedBytes)
        writer.key("breakdown")
        writer.array(breakdown, Self.write)
        writer.key("fileCount")
        writer.integer(fileCount)
        writer.key("folderCount")
        writer.integer(folderCount)
        writer.key("issues")
        writer.array(issues) { writer, issue in
            writer.beginObject()
            writer.key("errno")
            if let errno = issue.errno { writer.integer(errno.rawValue) } else { writer.null() }
            writer.key("message")
            writer.string(issue.message)
            writer.path(issue.path, bytes: issue.pathBytes)
            writer.endObject()
        }
        writer.key("largestFiles")
        writer.array(largestFiles) { writer, item in Self.write(item, children: nil, into: &writer) }
        writer.key("logicalBytes")
        writer.integer(logicalBytes)
        writer.key("otherCount")
        writer.integer(otherCount)
        writer.key("roots")
        writer.array(roots, Self.write)
        writer.key("skippedHardLinkCount")
        writer.integer(skippedHardLinkCount)
        writer.key("symbolicLinkCount")
        writer.integer(symbolicLinkCount)
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// A node: its item's keys and `children`.
    private static func write(_ writer: inout JSONWriter, _ node: UsageNode) {
        write(node.item, children: node.children, into: &writer)
    }

    /// `item`'s keys, with `children` when given (a node), in sorted order; `hardLink` and
    /// `modificationDate` only when set, as synthesized `Encodable` leaves out a `nil`.
    private static func write(_ item: UsageItem, children: [UsageNode]?, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("allocatedBytes")
        writer.integer(item.allocatedBytes)
        if let children {
            writer.key("children")
            writer.array(children, write)
        }
        writer.key("depth")
        writer.integer(item.depth)
        writer.key("fileCount")
        writer.integer(item.fileCount)
        if let link = item.hardLink {
            writer.key("hardLink")
            writer.beginObject()
            writer.key("device")
            writer.integer(link.device)
            writer.key("inode")
            writer.integer(link.inode)
            if let count = link.linkCount {
                writer.key("linkCount")
                writer.integer(count)
            }
            writer.endObject()
        }
        writer.key("isFolder")
        writer.bool(item.isFolder)
        writer.key("logicalBytes")
        writer.integer(item.logicalBytes)
        if let date = item.modificationDate {
            writer.key("modificationDate")
            writer.date(date)
        }
        writer.path(item.path, bytes: item.pathBytes)
        writer.endObject()
    }

    /// A root's totals; `path` and `alreadyCountedIn` `null` when absent (`NullWhenAbsent`).
    private static func write(_ writer: inout JSONWriter, _ totals: UsageTotals) {
        writer.beginObject()
        writer.key("allocatedBytes")
        writer.integer(totals.allocatedBytes)
        writer.key("alreadyCountedIn")
        if let earlier = totals.alreadyCountedIn { writer.string(earlier) } else { writer.null() }
        writer.key("fileCount")
        writer.integer(totals.fileCount)
        writer.key("folderCount")
        writer.integer(totals.folderCount)
        writer.key("logicalBytes")
        writer.integer(totals.logicalBytes)
        writer.key("otherCount")
        writer.integer(totals.otherCount)
        writer.key("path")
        if let path = totals.path { writer.string(path) } else { writer.null() }
        writer.key("symbolicLinkCount")
        writer.integer(totals.symbolicLinkCount)
        writer.endObject()
    }
}
