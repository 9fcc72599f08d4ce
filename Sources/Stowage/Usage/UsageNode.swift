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
    /// `rankedByLogicalSize`), equal sizes by path (byte order).
    ///
    /// An item belongs under the item one level above it whose path is its path without the
    /// last name, compared as bytes (``UsageItem/pathBytes``).
    ///
    /// ```swift
    /// let report = UsageScanner(options: options).scan([downloadsURL])
    /// for child in report.breakdownTree()[0].children {
    ///     print(child.item.path, ByteCount(child.item.allocatedBytes).formatted())
    /// }
    /// ```
    public func breakdownTree(rankedByLogicalSize: Bool = false) -> [UsageNode] {
        let tree = breakdownIndexTree(rankedByLogicalSize: rankedByLogicalSize)
        // Built from the leaves up (children after their folder in `order`), so no recursion.
        var built = [UsageNode?](repeating: nil, count: breakdown.count)
        func take(_ index: Int) -> UsageNode {
            defer { built[index] = nil }
            return built[index]!
        }
        for index in tree.order.reversed() {
            let node = UsageNode(item: breakdown[index], children: tree.children[index].map(take))
            built[index] = node
        }
        return tree.roots.indices.map { root in UsageNode(item: tree.roots[root], children: tree.rootChildren[root].map(take)) }
    }

    /// The breakdown's tree as indices into ``breakdown``, without copying an item: each root's
    /// item (as ``breakdownTree(rankedByLogicalSize:)`` makes it) and the items directly inside
    /// it, each item's items directly inside it (empty for a file), each list ordered as
    /// ``breakdownTree(rankedByLogicalSize:)`` orders children, and every item reached, each
    /// folder before what it holds (items under no root are left out, as there). Without
    /// `sortingChildren` the lists are in no particular order, for a caller that orders them
    /// itself (the browser, a comparison) and need not pay for it.
    package func breakdownIndexTree(rankedByLogicalSize: Bool = false, sortingChildren: Bool = true)
        -> (roots: [UsageItem], rootChildren: [[Int]], children: [[Int]], order: [Int]) {
        // By bytes: two names that are not UTF-8 may read the same as text.
        struct Key: Hashable {
            var path: ArraySlice<UInt8>
            var depth: Int

            /// The path's bytes hashed at once (byte by byte, hashing was most of a large tree's time).
            func hash(into hasher: inout Hasher) {
                path.withUnsafeBytes { hasher.combine(bytes: $0) }
                hasher.combine(depth)
            }
        }
        let slash = UInt8(ascii: "/")
        func parentPath(of path: [UInt8]) -> ArraySlice<UInt8> {
            guard let index = path.lastIndex(of: slash) else { return [] }
            return index == 0 ? [slash] : path[..<index]
        }
        func trimmed(_ path: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
            path.count > 1 && path.last == slash ? path.dropLast() : path
        }
        // A local copy of the array (not of the report): the closures below capture it alone.
        let items = breakdown
        var childrenOf: [Key: [Int]] = [:]
        for (index, item) in items.enumerated() {
            childrenOf[Key(path: trimmed(parentPath(of: item.pathBytes)), depth: item.depth - 1), default: []].append(index)
        }
        let sizes = sortingChildren ? items.map { rankedByLogicalSize ? $0.logicalBytes : $0.allocatedBytes } : []
        func size(_ index: Int) -> Int64 { sizes[index] }
        // Taken once: a path met twice (the same root given twice) gets its children once, the
        // first time it is met in the tree's order.
        func sortedChildren(of path: [UInt8], depth: Int) -> [Int] {
            let children = childrenOf.removeValue(forKey: Key(path: trimmed(path[...]), depth: depth)) ?? []
            guard sortingChildren else { return children }
            return children.sorted {
                size($0) != size($1) ? size($0) > size($1) : RawPath(bytes: items[$0].pathBytes) < RawPath(bytes: items[$1].pathBytes)
            }
        }
        var children = [[Int]](repeating: [], count: items.count)
        var order: [Int] = []
        order.reserveCapacity(items.count)
        let rootItems = roots.map { root in
            UsageItem(path: root.path ?? "", depth: 0, isFolder: root.folderCount > 0, logicalBytes: root.logicalBytes,
                      allocatedBytes: root.allocatedBytes, fileCount: root.fileCount)
        }
        var rootChildren: [[Int]] = []
        for root in rootItems {
            rootChildren.append(sortedChildren(of: root.pathBytes, depth: 0))
            // Depth first, each folder's children taken before the folders below it (the order
            // in which a recursive walk meets them).
            var pending = Array(rootChildren[rootChildren.count - 1].reversed())
            while let index = pending.popLast() {
                order.append(index)
                children[index] = sortedChildren(of: items[index].pathBytes, depth: items[index].depth)
                pending.append(contentsOf: children[index].reversed())
            }
        }
        return (rootItems, rootChildren, children, order)
    }
}
