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
    }

    var key = Key.size
    /// The other way round from each key's first order.
    var isReversed = false
    /// Logical bytes (`st_size`, `du -b`) instead of allocated bytes (`du -B1`) in the rows,
    /// the bars and the size order.
    var showsLogicalSize = false

    /// The figure the size order and the bars use.
    func size(_ node: BrowserTree.Node) -> Int64 { showsLogicalSize ? node.logicalBytes : node.allocatedBytes }

    /// `children` in this order; ties by name, so the order is stable.
    func sorted(_ children: [Int], in tree: BrowserTree) -> [Int] {
        children.sorted { left, right in
            let a = tree[left], b = tree[right]
            let first: Bool?
            switch key {
            case .size: first = size(a) == size(b) ? nil : size(a) > size(b)
            case .count: first = a.fileCount == b.fileCount ? nil : a.fileCount > b.fileCount
            case .name: first = a.name == b.name ? nil : a.name.lexicographicallyPrecedes(b.name)
            case .modificationTime:
                let (x, y) = (a.modificationTime ?? -.infinity, b.modificationTime ?? -.infinity)
                first = x == y ? nil : x > y
            }
            guard let first else { return a.name.lexicographicallyPrecedes(b.name) }
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
