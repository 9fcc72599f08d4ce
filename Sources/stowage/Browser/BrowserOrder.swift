import Foundation

/// The order of a folder's rows, and which size the rows show.
struct BrowserOrder: Equatable {
    enum Key: String, CaseIterable {
        /// Allocated or logical bytes, as ``BrowserOrder/showsLogicalSize`` says; largest first.
        case size
        /// Files inside; most first.
        case count
        /// Names, byte order (as `ls` in the C locale); A first.
        case name
        /// Modification time; newest first.
        case modificationTime = "time"
        /// The change since an older scan, in allocated or logical bytes as
        /// ``BrowserOrder/showsLogicalSize`` says, the largest (gained or lost) first; then the
        /// change in files (the "changed since" mode).
        case change
    }

    var key = Key.size
    /// The other way round from each key's first order.
    var isReversed = false
    /// Logical bytes (`st_size`, `du -b`) instead of allocated bytes (`du -B1`) in the rows,
    /// the bars and the size order.
    var showsLogicalSize = false

    /// The figure the size order and the bars use.
    func size(_ node: BrowserTree.Node) -> Int64 { showsLogicalSize ? node.logicalBytes : node.allocatedBytes }

    /// The change in bytes the change order uses (after less before), in a tree of changes.
    func change(_ change: BrowserTree.Change) -> Int64 { showsLogicalSize ? change.logicalBytes : change.allocatedBytes }

    /// `children` in this order; ties by name, so the order is stable.
    func sorted(_ children: [Int], in tree: BrowserTree) -> [Int] {
        children.sorted { left, right in
            let a = tree[left], b = tree[right], nameA = tree.name(of: left), nameB = tree.name(of: right)
            let first: Bool?
            switch key {
            case .size: first = size(a) == size(b) ? nil : size(a) > size(b)
            case .count: first = a.fileCount == b.fileCount ? nil : a.fileCount > b.fileCount
            case .name: first = nameA == nameB ? nil : nameA.lexicographicallyPrecedes(nameB)
            case .modificationTime:
                let (x, y) = (a.modificationTime ?? -.infinity, b.modificationTime ?? -.infinity)
                first = x == y ? nil : x > y
            case .change:
                let (x, y) = (tree.change(of: left), tree.change(of: right))
                let (bytesX, bytesY) = (x.map { change($0).magnitude } ?? 0, y.map { change($0).magnitude } ?? 0)
                let (filesX, filesY) = (x.map { $0.fileCount.magnitude } ?? 0, y.map { $0.fileCount.magnitude } ?? 0)
                first = bytesX != bytesY ? bytesX > bytesY : filesX != filesY ? filesX > filesY : nil
            }
            guard let first else { return nameA.lexicographicallyPrecedes(nameB) }
            return isReversed ? !first : first
        }
    }

    /// The order after the key `key` is pressed: that key, or, when it is the key already, the
    /// other way round.
    func choosing(_ key: Key) -> BrowserOrder {
        var next = self
        if next.key == key {
            next.isReversed.toggle()
        } else {
            next.key = key
            next.isReversed = false
        }
        return next
    }

    /// How the status line names the order: `size (allocated)`, `name, reversed`.
    var description: String {
        var text = key == .size ? "size" : key == .modificationTime ? "time" : key.rawValue
        if isReversed { text += ", reversed" }
        return text
    }
}
