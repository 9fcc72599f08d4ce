/// An item of a usage report with the items directly inside it: the breakdown as a tree, as
/// `ncdu` and `dust` show it.
///
/// ``UsageReport/breakdownTree(rankedByLogicalSize:)`` builds it. In JSON a node is its item's
/// fields with `children`, an array of nodes.
public struct UsageNode: Sendable, Hashable, Codable {
    /// The file or folder, with the totals of everything inside it.
    public var item: UsageItem
    /// The items directly inside it that the breakdown lists (down to
    /// ``UsageOptions/breakdownDepth``), largest first; empty for a file.
    public var children: [UsageNode]

    /// A node of `item` with `children`.
    public init(item: UsageItem, children: [UsageNode] = []) {
        self.item = item
        self.children = children
    }

    private enum CodingKeys: String, CodingKey {
        case children
    }

    /// Decodes what ``encode(to:)`` wrote.
    public init(from decoder: any Decoder) throws {
        item = try UsageItem(from: decoder)
        children = try decoder.container(keyedBy: CodingKeys.self).decode([UsageNode].self, forKey: .children)
    }

    /// Encodes the item's fields and `children`, in one object.
    public func encode(to encoder: any Encoder) throws {
        try item.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(children, forKey: .children)
    }

    /// Every node of the tree, this one first, each followed by its children (depth first).
    public var allNodes: [UsageNode] {
        [self] + children.flatMap(\.allNodes)
    }
}

extension UsageReport {
    /// The breakdown as trees: one node per root (depth 0, with the root's totals), its
    /// children the breakdown's items directly inside it, theirs the items inside them, and so
    /// on; children largest first (by allocated bytes, or by logical bytes when
    /// `rankedByLogicalSize`), equal sizes by path.
    ///
    /// An item belongs under the item one level above it whose path is its path without the
    /// last name.
    ///
    /// ```swift
    /// let report = UsageScanner(options: options).scan([downloadsURL])
    /// for child in report.breakdownTree()[0].children {
    ///     print(child.item.path, ByteCount(child.item.allocatedBytes).formatted())
    /// }
    /// ```
    public func breakdownTree(rankedByLogicalSize: Bool = false) -> [UsageNode] {
        struct Key: Hashable {
            var path: String
            var depth: Int
        }
        func parentPath(of path: String) -> String {
            guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
            return slash == path.utf8.startIndex ? "/" : String(path[..<slash])
        }
        func trimmed(_ path: String) -> String {
            path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        }
        var childrenOf: [Key: [UsageItem]] = [:]
        for item in breakdown {
            childrenOf[Key(path: trimmed(parentPath(of: item.path)), depth: item.depth - 1), default: []].append(item)
        }
        func size(_ item: UsageItem) -> Int64 { rankedByLogicalSize ? item.logicalBytes : item.allocatedBytes }
        func node(_ item: UsageItem) -> UsageNode {
            // Taken once: a path met twice (the same root given twice) gets its children once.
            let children = childrenOf.removeValue(forKey: Key(path: trimmed(item.path), depth: item.depth)) ?? []
            let sorted = children.sorted { (size($0), $1.path) > (size($1), $0.path) }
            return UsageNode(item: item, children: sorted.map(node))
        }
        return roots.map { root in
            node(UsageItem(path: root.path ?? "", depth: 0, isFolder: root.folders > 0, logicalBytes: root.logicalBytes,
                           allocatedBytes: root.allocatedBytes, files: root.files))
        }
    }
}
