/// The tree of names a scan builds as it walks (``UsageScanner/scanNameTree(_:)``): every entry
/// once, its name (not its path) in one byte array, its parent and children as indices, its
/// figures those of everything inside it, as a breakdown item of unlimited depth has them.
///
/// The walk reads a folder at a time, so it knows each entry's parent when it meets it: no
/// path is made, stored or hashed per entry, and the whole tree costs one ``Node`` (64 bytes)
/// and the name's bytes per entry. A folder's children are appended together, so they are the
/// contiguous range ``children(of:)``; a parent always comes before its children.
///
/// It holds exactly the tree ``UsageReport/breakdownIndexTree(rankedByLogicalSize:sortingChildren:)``
/// gives for a scan with ``UsageOptions/breakdownDepth`` `.max` of the same roots (the same
/// entries under the same folders, with the same figures; children in no particular order): hard
/// links counted once, names as bytes, mounts not crossed when asked, overlapping roots counted
/// once, unreadable folders reported in ``report``'s issues.
package struct UsageNameTree: Sendable {
    /// One file or folder of the tree.
    package struct Node: Sendable, Hashable, BitwiseCopyable {
        /// Where its name starts in ``UsageNameTree/names``.
        package var nameStart: Int
        /// Its name's length in bytes (a root's name is its whole path).
        package var nameCount: Int32
        /// The folder holding it, -1 for a root.
        package var parentIndex: Int32
        /// Its first child (children are contiguous); meaningless when ``childCount`` is 0.
        package var firstChild: Int32 = 0
        /// How many children it has.
        package var childCount: Int32 = 0
        /// Logical bytes (of everything inside, itself included, for a folder).
        package var logicalBytes: Int64
        /// Allocated bytes (of everything inside, itself included, for a folder).
        package var allocatedBytes: Int64
        /// Files (inside, for a folder; 1 for a file).
        package var fileCount: Int
        /// Its own modification time in whole seconds since 1970 (`st_mtime`), `Int64.min` when
        /// not known (a root's, as a root's breakdown item has none).
        package var seconds: Int64
        /// Whether it is a folder.
        package var isFolder: Bool

        /// The folder holding it; `nil` for a root.
        package var parent: Int? { parentIndex < 0 ? nil : Int(parentIndex) }

        /// A node named by `nameCount` bytes at `nameStart`, under `parentIndex` (-1 for none),
        /// with no child yet.
        package init(nameStart: Int, nameCount: Int32, parentIndex: Int32, logicalBytes: Int64, allocatedBytes: Int64, fileCount: Int,
                     seconds: Int64, isFolder: Bool) {
            self.nameStart = nameStart
            self.nameCount = nameCount
            self.parentIndex = parentIndex
            self.logicalBytes = logicalBytes
            self.allocatedBytes = allocatedBytes
            self.fileCount = fileCount
            self.seconds = seconds
            self.isFolder = isFolder
        }
    }

    /// The scan's report: roots, totals, issues, the largest files, whether it was cancelled;
    /// its breakdown is empty (the tree is the breakdown).
    package var report: UsageReport
    /// Every entry: the roots first (``rootCount`` of them, in the order given), each folder's
    /// children after it; in the chunks the walk gathered them in (``ChunkedStore``).
    package var nodes: ChunkedStore<Node>
    /// Every node's name, one after the other.
    package var names: [UInt8]
    /// How many roots lead ``nodes``.
    package var rootCount: Int

    /// How many nodes a chunk of ``nodes`` holds, as a power of two: 4,096 (256 KB).
    package static let nodeChunkShift = 12

    /// The name of `index`, as bytes (a root's is its whole path).
    package func name(of index: Int) -> ArraySlice<UInt8> {
        names[nodes[index].nameStart..<(nodes[index].nameStart + Int(nodes[index].nameCount))]
    }

    /// The children of `index`, as a range of node indices.
    package func children(of index: Int) -> Range<Int> {
        let node = nodes[index]
        return node.childCount == 0 ? 0..<0 : Int(node.firstChild)..<(Int(node.firstChild) + Int(node.childCount))
    }
}

extension UsageNameTree {
    /// The tree a walk gathered (`nodes` holding each entry's own figures, the roots first),
    /// finished: every folder's figures become those of everything inside it (one pass from the
    /// last node up, each after its descendants), each root's the report's root totals.
    init(walked nodes: consuming ChunkedStore<Node>, names: consuming [UInt8], report: UsageReport) {
        let rootCount = report.roots.count, last = nodes.count - 1
        // Taken from the walk, not shared: the pass below would copy every chunk first.
        assert(nodes.holdsChunksAlone(), "the walk's chunks of nodes are shared")
        nodes.withUnsafeMutableChunks { chunks, shift in
            let mask = (1 << shift) - 1
            for index in stride(from: last, through: rootCount, by: -1) {
                let node = chunks[index >> shift][index & mask], parentIndex = Int(node.parentIndex)
                let parent = chunks[parentIndex >> shift] + (parentIndex & mask)
                parent.pointee.logicalBytes += node.logicalBytes
                parent.pointee.allocatedBytes += node.allocatedBytes
                parent.pointee.fileCount += node.fileCount
            }
        }
        for (index, root) in report.roots.enumerated() {
            nodes[index].logicalBytes = root.logicalBytes
            nodes[index].allocatedBytes = root.allocatedBytes
            nodes[index].fileCount = root.fileCount
            nodes[index].isFolder = root.folderCount > 0
        }
        self.init(report: report, nodes: nodes, names: names, rootCount: rootCount)
    }
}
