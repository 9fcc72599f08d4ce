/// What a usage scan counts and reports.
public struct UsageOptions: Sendable, Hashable {
    /// Follow symbolic links to files and folders (`du -L`); each folder is still read once, so
    /// link loops end. Off by default: links count as themselves.
    public var followsSymbolicLinks = false
    /// Do not descend into folders on another file system (`du -x`).
    public var staysOnOneFileSystem = false
    /// Count entries whose names start with a dot. On by default.
    public var includesHiddenEntries = true
    /// Shell patterns (`*.log`, `node_modules`) of entries to leave out, with everything inside
    /// them; matched against the name, and against the path below the root for patterns with `/`.
    public var excludedPatterns: [String] = []
    /// How many levels below the roots the breakdown lists (0 for none).
    public var breakdownDepth = 1
    /// How many of the largest files to keep (0 for none).
    public var largestFileCount = 10
    /// Rank the largest files by logical size instead of allocated size.
    public var ranksByLogicalSize = false
    /// Worker threads; `nil` uses one per core (at least two, since waiting on the disk
    /// overlaps with counting).
    public var threads: Int?

    /// The defaults described on each property.
    public init() {}

    /// Totals only: no breakdown, no largest files.
    public static var totalsOnly: UsageOptions {
        var options = UsageOptions()
        options.breakdownDepth = 0
        options.largestFileCount = 0
        return options
    }
}
