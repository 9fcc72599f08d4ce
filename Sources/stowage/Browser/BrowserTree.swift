import Foundation
import Stowage

/// What the browser shows: the files and folders of a scan, compact, with their figures.
///
/// Built in one place, ``init(report:topName:notes:)``, from a ``UsageReport`` (of a scan with
/// an unlimited breakdown, or read from a file) through its index tree, so that any report can be
/// browsed and no item is copied on the way; or, in the "changed since" mode, from a
/// ``UsageDifference`` (``init(changes:)``). Names are bytes, as the file system holds them, all
/// in one array (a node keeps where its name is, not a copy); figures are the report's (hard
/// links count once, under the first name the scan met). A removal or a rescan changes the
/// figures of every folder above, so the screen never needs a new scan to be right.
struct BrowserTree {
    /// One file or folder: 64 bytes (its stride), its name in the tree's ``names``.
    struct Node {
        fileprivate var nameStart: Int
        fileprivate var nameCount: Int32
        fileprivate var parentIndex: Int32
        var children: [Int] = []
        var logicalBytes: Int64
        var allocatedBytes: Int64
        var fileCount: Int
        /// Whole seconds since 1970, `Int64.min` when not known.
        fileprivate var seconds: Int64
        var isFolder: Bool
        /// Whether it is a root of the scan (its name is its whole path).
        var isRoot = false

        /// The folder holding it; `nil` for the top.
        var parent: Int? { parentIndex < 0 ? nil : Int(parentIndex) }
        /// Seconds since 1970 (`st_mtime` of the item itself), or `nil` when the report does not say.
        var modificationTime: Double? { seconds == .min ? nil : Double(seconds) }
    }

    /// How an item changed since an older scan (the "changed since" mode): the change in its
    /// figures, after less before, and its kind.
    struct Change {
        var logicalBytes: Int64
        var allocatedBytes: Int64
        var fileCount: Int
        var kind: UsageChange.Kind
    }

    private(set) var nodes: [Node] = []
    /// Every node's name, one after the other (a rescan adds the new names and leaves the old).
    private var names: [UInt8] = []
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

    /// The tree of `report` (every item of its breakdown). With one root and no `topName` the
    /// root is the top; otherwise a node named `topName` ("N paths" when `nil`) holds the roots,
    /// each root's row saying `notes[index]`. `nil` makes a tree of no root.
    init(report: UsageReport?, topName: String? = nil, notes: [String?] = []) {
        guard let report else {
            top = holder(named: topName ?? "0 paths")
            return
        }
        let tree = report.breakdownIndexTree(sortingChildren: false)  // the browser orders each folder as it shows it
        nodes.reserveCapacity(report.breakdown.count + tree.roots.count + 1)
        if tree.roots.count == 1 && topName == nil {
            top = add(tree.roots[0], parent: nil)
            addChildren(tree.rootChildren[0], of: report.breakdown, below: tree.children, to: top)
            if let note = notes.first ?? nil { self.notes[top] = note }
            return
        }
        top = holder(named: topName ?? "\(tree.roots.count) paths")
        for (index, root) in tree.roots.enumerated() {
            let node = add(root, parent: top)
            addChildren(tree.rootChildren[index], of: report.breakdown, below: tree.children, to: node)
            if index < notes.count, let note = notes[index] { self.notes[node] = note }
            nodes[top].children.append(node)
            nodes[top].logicalBytes += nodes[node].logicalBytes
            nodes[top].allocatedBytes += nodes[node].allocatedBytes
            nodes[top].fileCount += nodes[node].fileCount
        }
    }

    /// Adds the node that holds several roots, named `name`.
    private mutating func holder(named name: String) -> Int {
        append(name: Array(name.utf8)[...], parent: nil, isFolder: true, logical: 0, allocated: 0, files: 0, date: nil)
    }

    /// Adds the root `item` (its name its whole path) below `parent`.
    private mutating func add(_ item: UsageItem, parent: Int?) -> Int {
        let root = append(item, name: item.pathBytes[...], parent: parent)
        nodes[root].isRoot = true
        return root
    }

    /// Adds the items `children` (indices into `items`, as ``UsageReport/breakdownIndexTree(rankedByLogicalSize:sortingChildren:)``
    /// gives them) under the node `index`, and theirs below them (`below`), iteratively: a tree
    /// can be deeper than the stack allows.
    private mutating func addChildren(_ children: [Int], of items: [UsageItem], below: [[Int]], to index: Int) {
        var pending: [(children: [Int], node: Int)] = [(children, index)]
        while let (list, at) = pending.popLast() {
            nodes[at].children.reserveCapacity(list.count)
            for item in list {
                let child = append(items[item], name: Self.lastName(items[item].pathBytes), parent: at)
                nodes[at].children.append(child)
                if !below[item].isEmpty { pending.append((below[item], child)) }
            }
        }
    }

    private mutating func append(_ item: UsageItem, name: ArraySlice<UInt8>, parent: Int?) -> Int {
        append(name: name, parent: parent, isFolder: item.isFolder, logical: item.logicalBytes, allocated: item.allocatedBytes,
               files: item.fileCount, date: item.modificationDate)
    }

    private mutating func append(name: ArraySlice<UInt8>, parent: Int?, isFolder: Bool, logical: Int64, allocated: Int64, files: Int,
                                 date: Date?) -> Int {
        let start = names.count
        names.append(contentsOf: name)
        nodes.append(Node(nameStart: start, nameCount: Int32(name.count), parentIndex: parent.map { Int32($0) } ?? -1,
                          logicalBytes: logical, allocatedBytes: allocated, fileCount: files,
                          seconds: date.flatMap { Int64(exactly: $0.timeIntervalSince1970.rounded(.down)) } ?? .min, isFolder: isFolder))
        return nodes.count - 1
    }

    /// The tree of what changed since an older scan, one root per tree of `roots`
    /// (``UsageDifference/roots``): every item listed there, with its figures now (zero when it
    /// was removed since) and its ``Change``. With several roots a node named "N paths" holds them.
    init(changes roots: [UsageChange]) {
        isComparison = true
        if roots.count == 1 {
            top = addChanges(roots[0], parent: nil)
            return
        }
        top = holder(named: "\(roots.count) paths")
        changes.append(Change(logicalBytes: 0, allocatedBytes: 0, fileCount: 0, kind: roots.contains { $0.kind != .unchanged } ? .rearranged : .unchanged))
        for root in roots {
            let index = addChanges(root, parent: top)
            nodes[top].children.append(index)
            nodes[top].logicalBytes += nodes[index].logicalBytes
            nodes[top].allocatedBytes += nodes[index].allocatedBytes
            nodes[top].fileCount += nodes[index].fileCount
            changes[top].logicalBytes += changes[index].logicalBytes
            changes[top].allocatedBytes += changes[index].allocatedBytes
            changes[top].fileCount += changes[index].fileCount
        }
    }

    /// Adds the root `root` and the changes below it (iteratively: a tree can be deeper than the
    /// stack allows); returns the root's node.
    private mutating func addChanges(_ root: UsageChange, parent: Int?) -> Int {
        func append(_ change: UsageChange, name: ArraySlice<UInt8>, parent: Int?) -> Int {
            let now = change.after ?? UsageFigures()
            changes.append(Change(logicalBytes: change.changeInLogicalBytes, allocatedBytes: change.changeInAllocatedBytes,
                                  fileCount: change.changeInFileCount, kind: change.kind))
            return self.append(name: name, parent: parent, isFolder: change.isFolder, logical: now.logicalBytes,
                               allocated: now.allocatedBytes, files: now.fileCount, date: nil)
        }
        let first = append(root, name: root.pathBytes[...], parent: parent)
        nodes[first].isRoot = true
        var pending: [(UsageChange, Int)] = [(root, first)]
        while let (change, at) = pending.popLast() {
            for child in change.children {
                let index = append(child, name: Self.lastName(child.pathBytes), parent: at)
                nodes[at].children.append(index)
                if !child.children.isEmpty { pending.append((child, index)) }
            }
        }
        return first
    }

    /// How `index` changed, in a tree of changes (``isComparison``); `nil` otherwise.
    func change(of index: Int) -> Change? { isComparison ? changes[index] : nil }

    /// The node at the absolute path `path` (bytes), when the tree holds it.
    func node(atPath path: [UInt8]) -> Int? {
        let roots = nodes[top].isRoot ? [top] : nodes[top].children
        for root in roots where nodes[root].isRoot {
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

    subscript(index: Int) -> Node { nodes[index] }

    /// The name of `index` (the last name of its path; a root's whole path), as bytes.
    func name(of index: Int) -> ArraySlice<UInt8> {
        names[nodes[index].nameStart..<(nodes[index].nameStart + Int(nodes[index].nameCount))]
    }

    /// What the row of `index` says after the name (an app's location: its purge policy), if anything.
    func note(of index: Int) -> String? { notes[index] }

    /// Whether `index` is a file or folder on disk (not the node made to hold several roots).
    func isOnDisk(_ index: Int) -> Bool { nodes[index].isRoot || nodes[index].parent != nil }

    /// The absolute path of `index`, as bytes; empty for the node holding several roots.
    func path(of index: Int) -> [UInt8] {
        var names: [ArraySlice<UInt8>] = []
        var current: Int? = index
        while let node = current {
            if nodes[node].isRoot {
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
        nodes[folder].children.first { self.name(of: $0) == name }
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
        func nodeBelowBase(at relative: [UInt8]) -> Int? {
            let found = node(below: base, at: relative[...])
            return found == base ? nil : found
        }
        var gone = Set<Int>()
        for file in report.removed {
            guard let removed = nodeBelowBase(at: file.pathBytes), let holder = nodes[removed].parent else { continue }
            subtract(logical: file.logicalBytes, allocated: file.allocatedBytes, files: nodes[removed].fileCount, from: holder)
            nodes[holder].children.removeAll { $0 == removed }
            gone.insert(removed)
        }
        // Folders are named as text (U+FFFD for bytes that are not UTF-8): compared as such.
        let removedFolders = Set(report.removedFolders)
        guard !removedFolders.isEmpty else { return gone }
        var pending: [(Int, [UInt8])] = nodes[base].children.filter { nodes[$0].isFolder }.map { ($0, Array(name(of: $0))) }
        var emptied: [Int] = []
        while let (folder, relative) = pending.popLast() {
            if removedFolders.contains(String(decoding: relative, as: UTF8.self)) { emptied.append(folder) }
            for child in nodes[folder].children where nodes[child].isFolder {
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

    /// Puts `report` (a new scan of the folder `index`, its one root) in place of what the tree
    /// held for it.
    mutating func replace(_ index: Int, with report: UsageReport) {
        let tree = report.breakdownIndexTree(sortingChildren: false)  // the browser orders each folder as it shows it
        guard let root = tree.roots.first else { return }
        let old = nodes[index]
        if let parent = old.parent {
            subtract(logical: old.logicalBytes - root.logicalBytes, allocated: old.allocatedBytes - root.allocatedBytes,
                     files: old.fileCount - root.fileCount, from: parent)
        }
        nodes[index].logicalBytes = root.logicalBytes
        nodes[index].allocatedBytes = root.allocatedBytes
        nodes[index].fileCount = root.fileCount
        nodes[index].children = []
        addChildren(tree.rootChildren[0], of: report.breakdown, below: tree.children, to: index)
    }
}
