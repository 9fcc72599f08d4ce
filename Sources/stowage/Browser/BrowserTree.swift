import Foundation
import Stowage

/// What the browser shows: the files and folders of a scan, compact, with their figures.
///
/// Made from the tree of names a scan builds as it walks (``init(scanned:topName:notes:)``: its
/// nodes and names are taken over as they are, nothing copied or looked up by path); from a
/// ``UsageReport`` read from a file, through its index tree (``init(report:topName:notes:)``);
/// or, in the "changed since" mode, from a ``UsageDifference`` (``init(changes:)``). Names are
/// bytes, as the file system holds them, all in one array (a node keeps where its name is, not a
/// copy); a folder's children are contiguous nodes; figures are the scan's (hard links count
/// once, under the first name the scan met). A removal or a rescan changes the figures of every
/// folder above, so the screen never needs a new scan to be right.
struct BrowserTree {
    /// One file or folder, as the screen reads it.
    struct Node {
        /// The folder holding it; `nil` for the top.
        var parent: Int?
        var logicalBytes: Int64
        var allocatedBytes: Int64
        var fileCount: Int
        /// Seconds since 1970 (`st_mtime` of the item itself), or `nil` when the scan does not say.
        var modificationTime: Double?
        var isFolder: Bool
        /// Whether it is a root of the scan (its name is its whole path).
        var isRoot: Bool
    }

    /// How an item changed since an older scan (the "changed since" mode): the change in its
    /// figures, after less before, and its kind.
    struct Change {
        var logicalBytes: Int64
        var allocatedBytes: Int64
        var fileCount: Int
        var kind: UsageChange.Kind
    }

    /// Every node: 64 bytes each (the scan's own, ``UsageNameTree/Node``), a folder's children
    /// contiguous (a rescan appends the new ones and leaves the old); in the scan's chunks.
    private var nodes = ChunkedStore<UsageNameTree.Node>(chunkShift: UsageNameTree.nodeChunkShift)
    /// Every node's name, one after the other (a rescan adds the new names and leaves the old).
    private var names: [UInt8] = []
    /// The roots of the scan (each named by its whole path).
    private var roots: [Int] = []
    /// Nodes taken out of their folder (deleted): still in ``nodes``, no longer among its children.
    private var removed = Set<Int>()
    /// What a root's row says after its name (an app's location: its purge policy).
    private var notes: [Int: String] = [:]
    /// The node the browser starts in: the only root, or a node holding several roots (an app's
    /// locations), named `topName`.
    private(set) var top = 0
    /// Per node, how it changed: empty unless the tree is of a ``UsageDifference``
    /// (``init(changes:)``).
    private(set) var changes: [Change] = []
    /// Whether the tree is of what changed (``init(changes:)``): its nodes' figures are those of
    /// the newer scan (zero for what was removed since), and ``change(of:)`` says how they changed.
    private(set) var isComparison = false

    /// The tree of names a scan built (``UsageScanner/scanNameTree(_:)``), taken over whole.
    /// With one root and no `topName` the root is the top; otherwise a node named `topName`
    /// ("N paths" when `nil`) holds the roots, each root's row saying `notes[index]`.
    init(scanned tree: UsageNameTree, topName: String? = nil, notes: [String?] = []) {
        nodes = tree.nodes
        names = tree.names
        adoptRoots(tree.rootCount, topName: topName, notes: notes)
    }

    /// The tree of `report` (every item of its breakdown: a saved scan), through its index tree;
    /// roots, top and notes as ``init(scanned:topName:notes:)``. `nil` makes a tree of no root.
    init(report: UsageReport?, topName: String? = nil, notes: [String?] = []) {
        guard let report else {
            adoptRoots(0, topName: topName, notes: [])
            return
        }
        let tree = report.breakdownIndexTree(sortingChildren: false)  // the browser orders each folder as it shows it
        for root in tree.roots { _ = append(root, name: root.pathBytes[...], parent: -1) }
        // Each folder's children appended together (contiguous), iteratively: a tree can be
        // deeper than the stack allows.
        var pending: [(children: [Int], node: Int)] = tree.rootChildren.enumerated().map { ($1, $0) }
        while let (list, at) = pending.popLast() {
            setChildren(of: at, first: nodes.count, count: list.count)
            for item in list {
                let child = append(report.breakdown[item], name: Self.lastName(report.breakdown[item].pathBytes), parent: at)
                if !tree.children[item].isEmpty { pending.append((tree.children[item], child)) }
            }
        }
        adoptRoots(tree.roots.count, topName: topName, notes: notes)
    }

    /// Makes the first `count` nodes the roots: the top when there is one and no `topName`,
    /// otherwise held by a node named `topName` ("N paths" when `nil`), which sums their figures
    /// (and their changes, in a tree of changes); each root's row says `notes[index]`.
    private mutating func adoptRoots(_ count: Int, topName: String?, notes: [String?]) {
        roots = Array(0..<count)
        for (index, note) in notes.prefix(count).enumerated() { if let note { self.notes[index] = note } }
        if count == 1 && topName == nil {
            top = 0
            return
        }
        top = append(name: Array((topName ?? "\(count) paths").utf8)[...], parent: -1, isFolder: true, logical: 0, allocated: 0, files: 0,
                     seconds: .min)
        setChildren(of: top, first: 0, count: count)
        var change = Change(logicalBytes: 0, allocatedBytes: 0, fileCount: 0, kind: .unchanged)
        for root in roots {
            nodes[root].parentIndex = Int32(top)
            nodes[top].logicalBytes += nodes[root].logicalBytes
            nodes[top].allocatedBytes += nodes[root].allocatedBytes
            nodes[top].fileCount += nodes[root].fileCount
            if isComparison {
                change.logicalBytes += changes[root].logicalBytes
                change.allocatedBytes += changes[root].allocatedBytes
                change.fileCount += changes[root].fileCount
                if changes[root].kind != .unchanged { change.kind = .rearranged }
            }
        }
        if isComparison { changes.append(change) }
    }

    private mutating func setChildren(of index: Int, first: Int, count: Int) {
        nodes[index].firstChild = Int32(first)
        nodes[index].childCount = Int32(count)
    }

    private mutating func append(_ item: UsageItem, name: ArraySlice<UInt8>, parent: Int) -> Int {
        append(name: name, parent: parent, isFolder: item.isFolder, logical: item.logicalBytes, allocated: item.allocatedBytes,
               files: item.fileCount, seconds: item.modificationDate.flatMap { Int64(exactly: $0.timeIntervalSince1970.rounded(.down)) } ?? .min)
    }

    private mutating func append(name: ArraySlice<UInt8>, parent: Int, isFolder: Bool, logical: Int64, allocated: Int64, files: Int,
                                 seconds: Int64) -> Int {
        let start = names.count
        names.append(contentsOf: name)
        nodes.append(UsageNameTree.Node(nameStart: start, nameCount: Int32(name.count), parentIndex: Int32(parent),
                                        logicalBytes: logical, allocatedBytes: allocated, fileCount: files, seconds: seconds,
                                        isFolder: isFolder))
        return nodes.count - 1
    }

    /// The tree of what changed since an older scan, one root per tree of `roots`
    /// (``UsageDifference/roots``): every item listed there, with its figures now (zero when it
    /// was removed since) and its ``Change``. With several roots a node named "N paths" holds them.
    init(changes roots: [UsageChange]) {
        isComparison = true
        func append(_ change: UsageChange, name: ArraySlice<UInt8>, parent: Int) -> Int {
            let now = change.after ?? UsageFigures()
            changes.append(Change(logicalBytes: change.changeInLogicalBytes, allocatedBytes: change.changeInAllocatedBytes,
                                  fileCount: change.changeInFileCount, kind: change.kind))
            return self.append(name: name, parent: parent, isFolder: change.isFolder, logical: now.logicalBytes,
                               allocated: now.allocatedBytes, files: now.fileCount, seconds: .min)
        }
        for root in roots { _ = append(root, name: root.pathBytes[...], parent: -1) }
        // Each change's children appended together (contiguous), iteratively: a tree can be
        // deeper than the stack allows.
        var pending: [(UsageChange, Int)] = roots.enumerated().map { ($1, $0) }
        while let (change, at) = pending.popLast() {
            setChildren(of: at, first: nodes.count, count: change.children.count)
            for child in change.children {
                let index = append(child, name: Self.lastName(child.pathBytes), parent: at)
                if !child.children.isEmpty { pending.append((child, index)) }
            }
        }
        adoptRoots(roots.count, topName: nil, notes: [])
    }

    /// How `index` changed, in a tree of changes (``isComparison``); `nil` otherwise.
    func change(of index: Int) -> Change? { isComparison ? changes[index] : nil }

    /// The node at the absolute path `path` (bytes), when the tree holds it.
    func node(atPath path: [UInt8]) -> Int? {
        for root in roots {
            let rootPath = Array(name(of: root))
            if path == rootPath { return root }
            let prefix = rootPath.last == UInt8(ascii: "/") ? rootPath : rootPath + [UInt8(ascii: "/")]
            guard path.starts(with: prefix) else { continue }
            return node(below: root, at: path[prefix.count...])
        }
        return nil
    }

    /// The node at `relative` (names separated by `/`) below `base`; `base` itself for no name.
    func node(below base: Int, at relative: ArraySlice<UInt8>) -> Int? {
        var current = base
        for name in relative.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            guard let next = child(named: name, of: current) else { return nil }
            current = next
        }
        return current
    }

    /// The last name of `path` (bytes after the last slash).
    static func lastName(_ path: [UInt8]) -> ArraySlice<UInt8> {
        guard let slash = path.lastIndex(of: UInt8(ascii: "/")), slash < path.count - 1 else { return path[...] }
        return path[(slash + 1)...]
    }

    subscript(index: Int) -> Node {
        let node = nodes[index]
        return Node(parent: node.parent, logicalBytes: node.logicalBytes, allocatedBytes: node.allocatedBytes, fileCount: node.fileCount,
                    modificationTime: node.seconds == .min ? nil : Double(node.seconds), isFolder: node.isFolder,
                    isRoot: roots.contains(index))
    }

    /// The files and folders directly inside `index` (those deleted since left out).
    func children(of index: Int) -> [Int] {
        let node = nodes[index]
        guard node.childCount > 0 else { return [] }
        let range = Int(node.firstChild)..<(Int(node.firstChild) + Int(node.childCount))
        return removed.isEmpty ? Array(range) : range.filter { !removed.contains($0) }
    }

    /// The name of `index` (the last name of its path; a root's whole path), as bytes.
    func name(of index: Int) -> ArraySlice<UInt8> {
        names[nodes[index].nameStart..<(nodes[index].nameStart + Int(nodes[index].nameCount))]
    }

    /// What the row of `index` says after the name (an app's location: its purge policy), if anything.
    func note(of index: Int) -> String? { notes[index] }

    /// Whether `index` is a file or folder on disk (not the node made to hold several roots).
    func isOnDisk(_ index: Int) -> Bool { roots.contains(index) || nodes[index].parent != nil }

    /// The absolute path of `index`, as bytes; empty for the node holding several roots.
    func path(of index: Int) -> [UInt8] {
        var names: [ArraySlice<UInt8>] = []
        var current: Int? = index
        while let node = current {
            if roots.contains(node) {
                names.append(name(of: node))
                break
            }
            if nodes[node].parent == nil { return [] }
            names.append(name(of: node))
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
    func child(named name: ArraySlice<UInt8>, of folder: Int) -> Int? {
        children(of: folder).first { self.name(of: $0) == name }
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
        removed.insert(index)
    }

    /// Applies what a removal in the folder `base` did (a ``SweepReport``, whose paths are
    /// relative to that folder: `Sweeper.removeItem(atPath:)` of an item in it, or `clear` of a
    /// location, `base` being its folder): each removed file and folder leaves the tree, and what
    /// it freed leaves the figures of every folder above (a hard link whose data another name
    /// keeps freed nothing, and the folders keep its bytes). Returns the nodes that left.
    mutating func apply(_ report: SweepReport, below base: Int) -> Set<Int> {
        func nodeBelowBase(at relative: [UInt8]) -> Int? {
            let found = node(below: base, at: relative[...])
            return found == base ? nil : found
        }
        var gone = Set<Int>()
        for file in report.removed {
            guard let removed = nodeBelowBase(at: file.pathBytes), let holder = nodes[removed].parent else { continue }
            subtract(logical: file.logicalBytes, allocated: file.allocatedBytes, files: nodes[removed].fileCount, from: holder)
            self.removed.insert(removed)
            gone.insert(removed)
        }
        // Folders are named as text (U+FFFD for bytes that are not UTF-8): compared as such.
        let removedFolders = Set(report.removedFolders)
        guard !removedFolders.isEmpty else { return gone }
        var pending: [(Int, [UInt8])] = children(of: base).filter { nodes[$0].isFolder }.map { ($0, Array(name(of: $0))) }
        var emptied: [Int] = []
        while let (folder, relative) = pending.popLast() {
            if removedFolders.contains(String(decoding: relative, as: UTF8.self)) { emptied.append(folder) }
            for child in children(of: folder) where nodes[child].isFolder {
                pending.append((child, relative + [UInt8(ascii: "/")] + name(of: child)))
            }
        }
        // Found from the top down: detached from the deepest up.
        for folder in emptied.reversed() {
            detach(folder)
            gone.insert(folder)
        }
        return gone
    }

    /// Puts `scanned` (a new scan of the folder `index`, its one root) in place of what the tree
    /// held for it: its nodes appended (renumbered, their names after the tree's), the old ones
    /// left unreachable.
    mutating func replace(_ index: Int, with scanned: UsageNameTree) {
        guard scanned.rootCount == 1 else { return }
        let root = scanned.nodes[0], old = nodes[index]
        if let parent = old.parent {
            subtract(logical: old.logicalBytes - root.logicalBytes, allocated: old.allocatedBytes - root.allocatedBytes,
                     files: old.fileCount - root.fileCount, from: parent)
        }
        nodes[index].logicalBytes = root.logicalBytes
        nodes[index].allocatedBytes = root.allocatedBytes
        nodes[index].fileCount = root.fileCount
        // The scan's node j (past its root) becomes node `shift + j`; its root is `index`.
        let shift = Int32(nodes.count - 1), nameShift = names.count
        for var node in scanned.nodes.dropFirst() {
            node.nameStart += nameShift
            node.parentIndex = node.parentIndex == 0 ? Int32(index) : node.parentIndex + shift
            node.firstChild += shift
            nodes.append(node)
        }
        names.append(contentsOf: scanned.names)
        setChildren(of: index, first: Int(root.firstChild + shift), count: Int(root.childCount))
    }
}
