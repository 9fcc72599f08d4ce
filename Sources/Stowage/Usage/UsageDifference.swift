/// What changed between two usage reports of the same tree: per folder and file, the bytes and
/// files added, removed, grown and shrunk (``UsageReport/difference(from:rankedByLogicalSize:)``).
///
/// ```swift
/// let lastWeek = try UsageReport(ncduExport: Data(contentsOf: snapshotURL), options: everything)
/// let now = UsageScanner(options: everything).scan([containerURL])
/// for change in now.difference(from: lastWeek).roots[0].children.prefix(5) {
///     print(change.kind, change.path, ByteCount(change.changeInAllocatedBytes).formatted())
/// }
/// ```
public struct UsageDifference: Sendable, Hashable, Codable {
    /// One tree per root (the roots paired in order): the root, with the changes inside it as
    /// its children.
    public var roots: [UsageChange]

    /// The changes given.
    public init(roots: [UsageChange]) { self.roots = roots }
}

/// A file or folder that changed, with the changes inside it.
///
/// Figures are the item's totals (of everything inside, for a folder) before and after; an
/// item is listed when its figures changed or something inside it did. A rename is the old
/// name removed and the new one added; an item whose kind changed (a file that became a folder)
/// is the old removed and the new added. In JSON, `path` is text with `pathBase64` beside it
/// when it is not UTF-8, as in ``UsageItem``.
public struct UsageChange: Sendable, Hashable, Codable {
    /// How an item changed.
    public struct Kind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The name, as JSON writes it.
        public let rawValue: String
        /// A kind named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// It was not there before.
        public static let added = Kind(rawValue: "added")
        /// It is not there any more.
        public static let removed = Kind(rawValue: "removed")
        /// It takes more: more allocated bytes (or as many and more logical bytes, or as many of
        /// both and more files).
        public static let grown = Kind(rawValue: "grown")
        /// It takes less, by the same order of figures as ``grown``.
        public static let shrunk = Kind(rawValue: "shrunk")
        /// Its figures are the same but what is inside it changed (a rename, say).
        public static let rearranged = Kind(rawValue: "rearranged")
        /// Nothing changed: only a root without changes is listed so.
        public static let unchanged = Kind(rawValue: "unchanged")
        /// The ``rawValue``.
        public var description: String { rawValue }
    }

    /// The path, as text: the newer report's (the older one's for a removed item).
    public var path: String
    /// The path, byte for byte (`pathBase64` in JSON, only when it is not UTF-8).
    @Base64WhenNotUTF8 public var pathBytes: [UInt8]
    /// Levels below its root (0 for the root).
    public var depth: Int
    /// Whether it is a folder (the newer report's kind, the older one's for a removed item).
    public var isFolder: Bool
    /// How it changed.
    public var kind: Kind
    /// Its figures before; `nil` (`null` in JSON) when it was added.
    @NullWhenAbsent public var before: UsageFigures?
    /// Its figures after; `nil` (`null` in JSON) when it was removed.
    @NullWhenAbsent public var after: UsageFigures?
    /// Allocated bytes after less before (negative when it shrank).
    public var changeInAllocatedBytes: Int64
    /// Logical bytes after less before.
    public var changeInLogicalBytes: Int64
    /// Files after less before.
    public var changeInFileCount: Int
    /// The changed items directly inside it, the largest change first.
    public var children: [UsageChange]

    /// Every change of the tree, this one first, each followed by its children (depth first).
    public var allChanges: [UsageChange] { [self] + children.flatMap(\.allChanges) }

    /// The JSON names: the properties' own, ``pathBytes`` written as `pathBase64` (see ``ReportedPath``).
    private enum CodingKeys: String, CodingKey {
        case path, pathBytes = "pathBase64", depth, isFolder, kind, before, after, changeInAllocatedBytes, changeInLogicalBytes,
             changeInFileCount, children
    }

    /// The change from `before` to `after` at the item `item` (whichever is there), with `children`.
    init(item: UsageItem, before: UsageFigures?, after: UsageFigures?, children: [UsageChange]) {
        path = item.path
        pathBytes = item.pathBytes
        depth = item.depth
        isFolder = item.isFolder
        self.before = before
        self.after = after
        let old = before ?? UsageFigures(), new = after ?? UsageFigures()
        changeInAllocatedBytes = new.allocatedBytes - old.allocatedBytes
        changeInLogicalBytes = new.logicalBytes - old.logicalBytes
        changeInFileCount = new.fileCount - old.fileCount
        self.children = children
        let growth = [changeInAllocatedBytes, changeInLogicalBytes, Int64(changeInFileCount)].first { $0 != 0 }
        kind = before == nil ? .added : after == nil ? .removed
            : growth.map { $0 > 0 ? .grown : .shrunk } ?? (children.isEmpty ? .unchanged : .rearranged)
    }
}

/// An item's figures at one time.
public struct UsageFigures: Sendable, Hashable, Codable {
    /// Logical bytes (of everything inside, for a folder).
    public var logicalBytes: Int64 = 0
    /// Allocated bytes (of everything inside, for a folder).
    public var allocatedBytes: Int64 = 0
    /// Files (inside, for a folder; 1 for a file).
    public var fileCount = 0

    /// Zero figures.
    public init() {}

    /// The figures of `item`.
    public init(_ item: UsageItem) {
        logicalBytes = item.logicalBytes
        allocatedBytes = item.allocatedBytes
        fileCount = item.fileCount
    }
}

/// An item's name in its folder, as bytes, hashed at once (not byte by byte).
private struct Name: Hashable {
    var bytes: ArraySlice<UInt8>

    init(_ path: [UInt8]) { bytes = NcduExportWriter.lastName(of: path) }

    func hash(into hasher: inout Hasher) { bytes.withUnsafeBytes { hasher.combine(bytes: $0) } }
}

/// One report of a comparison, as its index tree: a node is an index into the report's
/// ``UsageReport/breakdown`` or, from its count on, a root. A class: the comparison's recursion
/// passes it along without copying (retaining) its arrays at each step.
private final class ComparedReport {
    let items: [UsageItem]
    let roots: [UsageItem]
    let rootChildren: [[Int]]
    let children: [[Int]]

    init(_ report: UsageReport) {
        let tree = report.breakdownIndexTree(sortingChildren: false)  // the changes are sorted, whatever the order met
        items = report.breakdown
        roots = tree.roots
        rootChildren = tree.rootChildren
        children = tree.children
    }

    /// The node of the root `index`.
    func root(_ index: Int) -> Int? { index < roots.count ? items.count + index : nil }

    func item(_ node: Int) -> UsageItem { node < items.count ? items[node] : roots[node - items.count] }

    func children(of node: Int) -> [Int] { node < items.count ? children[node] : rootChildren[node - items.count] }
}

extension UsageReport {
    /// What changed since `earlier`, a report of the same tree (a saved scan of it, say): per
    /// folder and file listed in either, what was added, removed, grew or shrank, as a tree per
    /// root (roots paired in order), each folder's changes the largest first (by allocated
    /// bytes, or logical bytes when `rankedByLogicalSize`; then by files; then by path).
    ///
    /// Items are matched by their names below the root, as bytes, so the two reports may be of
    /// the tree at different places (a copy, a restored backup). Compare reports listed to the
    /// same depth (``UsageOptions/breakdownDepth`` `.max` for every item): an item one report
    /// does not list would count as added or removed.
    ///
    /// ```swift
    /// let grew = now.difference(from: lastWeek).roots[0].children.filter { $0.kind == .grown }
    /// ```
    public func difference(from earlier: UsageReport, rankedByLogicalSize: Bool = false) -> UsageDifference {
        let before = ComparedReport(earlier), after = ComparedReport(self)
        var roots: [UsageChange] = []
        for index in 0..<max(before.roots.count, after.roots.count) {
            roots.append(Self.change(from: before.root(index), to: after.root(index), before: before, after: after,
                                     rankedByLogicalSize: rankedByLogicalSize, always: true)!)
        }
        return UsageDifference(roots: roots)
    }

    /// The change from the node `old` of `before` to the node `new` of `after` (at least one
    /// given), or `nil` when nothing changed and the change is not to be listed `always`.
    private static func change(from old: Int?, to new: Int?, before: ComparedReport, after: ComparedReport, rankedByLogicalSize: Bool,
                               always: Bool = false) -> UsageChange? {
        func change(_ old: Int?, _ new: Int?) -> UsageChange? {
            Self.change(from: old, to: new, before: before, after: after, rankedByLogicalSize: rankedByLogicalSize)
        }
        let oldItem = old.map(before.item), newItem = new.map(after.item)
        let oldChildren = old.map(before.children(of:)) ?? [], newChildren = new.map(after.children(of:)) ?? []
        var children: [UsageChange] = []
        var earlier: [Name: Int] = [:]
        earlier.reserveCapacity(oldChildren.count)
        for child in oldChildren { earlier[Name(before.items[child].pathBytes)] = child }
        for child in newChildren {
            var match = earlier.removeValue(forKey: Name(after.items[child].pathBytes))
            if let previous = match, before.items[previous].isFolder != after.items[child].isFolder {
                children.append(change(previous, nil)!)
                match = nil
            }
            if let change = change(match, child) { children.append(change) }
        }
        // What only `before` had, in its own order.
        if !earlier.isEmpty {
            for child in oldChildren where earlier[Name(before.items[child].pathBytes)] != nil { children.append(change(child, nil)!) }
        }
        let beforeFigures = oldItem.map { UsageFigures($0) }, afterFigures = newItem.map { UsageFigures($0) }
        guard always || beforeFigures != afterFigures || !children.isEmpty else { return nil }
        func size(_ change: UsageChange) -> Int64 {
            abs(rankedByLogicalSize ? change.changeInLogicalBytes : change.changeInAllocatedBytes)
        }
        children.sort {
            if size($0) != size($1) { return size($0) > size($1) }
            if abs($0.changeInFileCount) != abs($1.changeInFileCount) { return abs($0.changeInFileCount) > abs($1.changeInFileCount) }
            return RawPath(bytes: $0.pathBytes) < RawPath(bytes: $1.pathBytes)
        }
        return UsageChange(item: (newItem ?? oldItem)!, before: beforeFigures, after: afterFigures, children: children)
    }
}
