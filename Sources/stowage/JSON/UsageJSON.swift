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
