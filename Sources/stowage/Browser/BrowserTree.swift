import Foundation
import Stowage

/// What the browser shows: the files and folders of a scan, compact, with their figures.
///
/// Built in one place, ``init(trees:notes:)``, from the trees of a ``UsageReport``
/// (``UsageReport/breakdownTree(rankedByLogicalSize:)`` of a scan with an unlimited breakdown),
/// so that any report, scanned now or read from a file, can be browsed. Names are bytes, as the
/// file system holds them; figures are the report's (hard links count once, under the first name
/// the scan met). A removal or a rescan changes the figures of every folder above, so the screen
/// never needs a new scan to be right.
struct BrowserTree {
    /// One file or folder.
    struct Node {
        /// Its name (the last name of its path); a root's is its whole path.
        var name: [UInt8]
        var parent: Int?
        var children: [Int] = []
        var isFolder: Bool
        var logicalBytes: Int64
        var allocatedBytes: Int64
        var fileCount: Int
        /// Seconds since 1970 (`st_mtime` of the item itself), or `nil` when the report does not say.
        var modificationTime: Double?
        /// What the row says after the name (an app's location: its purge policy), if anything.
        var note: String?
        /// Whether it is a root of the scan (its name is its whole path).
        var isRoot = false
    }

    private(set) var nodes: [Node] = []
    /// The node the browser starts in: the only root, or a node holding several roots (an app's
    /// locations), named `topName`.
    private(set) var top = 0

    /// The tree of `trees` (one per root). With one tree and no `topName` the root is the top;
    /// otherwise a node named `topName` holds them, each root's row saying `notes[index]`.
    init(trees: [UsageNode], topName: String? = nil, notes: [String?] = []) {
        nodes.reserveCapacity(trees.reduce(0) { $0 + Self.count($1) } + 1)
        if trees.count == 1 && topName == nil {
            top = add(trees[0], name: trees[0].item.pathBytes, parent: nil, note: notes.first ?? nil)
        } else {
            top = 0
            nodes.append(Node(name: Array((topName ?? "\(trees.count) paths").utf8), parent: nil, isFolder: true, logicalBytes: 0, allocatedBytes: 0, fileCount: 0))
            for (index, tree) in trees.enumerated() {
                let root = add(tree, name: tree.item.pathBytes, parent: 0, note: index < notes.count ? notes[index] : nil)
                nodes[0].children.append(root)
                nodes[0].logicalBytes += nodes[root].logicalBytes
                nodes[0].allocatedBytes += nodes[root].allocatedBytes
                nodes[0].fileCount += nodes[root].fileCount
            }
        }
    }

    private static func count(_ tree: UsageNode) -> Int { 1 + tree.children.reduce(0) { $0 + count($1) } }

    /// Adds `tree` below `parent` (iteratively: a tree can be deeper than the stack allows).
    @discardableResult
    private mutating func add(_ tree: UsageNode, name: [UInt8], parent: Int?, note: String? = nil) -> Int {
        let first = append(tree.item, name: name, parent: parent, note: note)
        nodes[first].isRoot = true
        addChildren(of: tree, to: first)
        return first
    }

    /// Adds the items below `tree` under the node `index`.
    private mutating func addChildren(of tree: UsageNode, to index: Int) {
        var pending: [(UsageNode, Int)] = [(tree, index)]
        while let (node, at) = pending.popLast() {
            for child in node.children {
                let childIndex = append(child.item, name: Self.lastName(child.item.pathBytes), parent: at, note: nil)
                nodes[at].children.append(childIndex)
                if !child.children.isEmpty { pending.append((child, childIndex)) }
            }
        }
    }

    private mutating func append(_ item: UsageItem, name: [UInt8], parent: Int?, note: String?) -> Int {
        nodes.append(Node(name: name, parent: parent, isFolder: item.isFolder, logicalBytes: item.logicalBytes,
                          allocatedBytes: item.allocatedBytes, fileCount: item.fileCount,
                          modificationTime: item.modificationDate?.timeIntervalSince1970, note: note))
        return nodes.count - 1
    }

    /// The last name of `path` (bytes after the last slash).
    static func lastName(_ path: [UInt8]) -> [UInt8] {
        guard let slash = path.lastIndex(of: UInt8(ascii: "/")), slash < path.count - 1 else { return path }
        return Array(path[(slash + 1)...])
    }

    subscript(index: Int) -> Node { nodes[index] }

    /// Whether `index` is a file or folder on disk (not the node made to hold several roots).
    func isOnDisk(_ index: Int) -> Bool { nodes[index].isRoot || nodes[index].parent != nil }

    /// The absolute path of `index`, as bytes; empty for the node holding several roots.
    func path(of index: Int) -> [UInt8] {
        var names: [[UInt8]] = []
        var current: Int? = index
        while let node = current {
            if nodes[node].isRoot {
                names.append(nodes[node].name)
                break
            }
            if nodes[node].parent == nil { return [] }
            names.append(nodes[node].name)
            current = nodes[node].parent
        }
        var path: [UInt8] = []
        for name in names.reversed() {
            if !path.isEmpty && path.last != UInt8(ascii: "/") { path.append(UInt8(ascii: "/")) }
            path += name
        }
        return path
    }

    /// The folders from the top down to `index`, both included.
    func ancestry(of index: Int) -> [Int] {
        var chain: [Int] = []
        var current: Int? = index
        while let node = current {
            chain.append(node)
            current = nodes[node].parent
        }
        return chain.reversed()
    }

    /// The child of `folder` named `name`, if there is one.
    func child(named name: [UInt8], of folder: Int) -> Int? {
        nodes[folder].children.first { nodes[$0].name == name }
    }

    // MARK: Changes

    /// Subtracts these figures from `index` and every folder above it.
    private mutating func subtract(logical: Int64, allocated: Int64, files: Int, from index: Int) {
        var current: Int? = index
        while let node = current {
            nodes[node].logicalBytes = max(0, nodes[node].logicalBytes - logical)
            nodes[node].allocatedBytes = max(0, nodes[node].allocatedBytes - allocated)
            nodes[node].fileCount = max(0, nodes[node].fileCount - files)
            current = nodes[node].parent
        }
    }

    /// Takes `index` out of its folder (its figures out of every folder above).
    mutating func detach(_ index: Int) {
        let node = nodes[index]
        guard let parent = node.parent else { return }
        subtract(logical: node.logicalBytes, allocated: node.allocatedBytes, files: node.fileCount, from: parent)
        nodes[parent].children.removeAll { $0 == index }
    }

    /// Applies what a removal in the folder `base` did (a ``SweepReport``, whose paths are
    /// relative to that folder: `Sweeper.removeItem(atPath:)` of an item in it, or `clear` of a
    /// location, `base` being its folder): each removed file and folder leaves the tree, and what
    /// it freed leaves the figures of every folder above (a hard link whose data another name
    /// keeps freed nothing, and the folders keep its bytes). Returns the nodes that left.
    mutating func apply(_ report: SweepReport, below base: Int) -> Set<Int> {
        func node(at relative: [UInt8]) -> Int? {
            var current = base
            for name in relative.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
                guard let next = child(named: Array(name), of: current) else { return nil }
                current = next
            }
            return current == base ? nil : current
        }
        var gone = Set<Int>()
        for file in report.removed {
            guard let removed = node(at: file.pathBytes), let holder = nodes[removed].parent else { continue }
            subtract(logical: file.logicalBytes, allocated: file.allocatedBytes, files: nodes[removed].fileCount, from: holder)
            nodes[holder].children.removeAll { $0 == removed }
            gone.insert(removed)
        }
        // Folders are named as text (U+FFFD for bytes that are not UTF-8): compared as such.
        let removedFolders = Set(report.removedFolders)
        guard !removedFolders.isEmpty else { return gone }
        var pending: [(Int, [UInt8])] = nodes[base].children.filter { nodes[$0].isFolder }.map { ($0, nodes[$0].name) }
        var emptied: [Int] = []
        while let (folder, relative) = pending.popLast() {
            if removedFolders.contains(String(decoding: relative, as: UTF8.self)) { emptied.append(folder) }
            for child in nodes[folder].children where nodes[child].isFolder {
                pending.append((child, relative + [UInt8(ascii: "/")] + nodes[child].name))
            }
        }
        // Found from the top down: detached from the deepest up.
        for folder in emptied.reversed() {
            detach(folder)
            gone.insert(folder)
        }
        return gone
    }

    /// Puts `tree` (a new scan of the folder `index`) in place of what the tree held for it.
    mutating func replace(_ index: Int, with tree: UsageNode) {
        let old = nodes[index]
        if let parent = old.parent {
            subtract(logical: old.logicalBytes - tree.item.logicalBytes, allocated: old.allocatedBytes - tree.item.allocatedBytes,
                     files: old.fileCount - tree.item.fileCount, from: parent)
        }
        nodes[index].logicalBytes = tree.item.logicalBytes
        nodes[index].allocatedBytes = tree.item.allocatedBytes
        nodes[index].fileCount = tree.item.fileCount
        nodes[index].children = []
        addChildren(of: tree, to: index)
    }
}
