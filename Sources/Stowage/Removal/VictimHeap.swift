import Foundation


/// The victims chosen so far, least deserving of removal on top, so the set can shrink to the
/// smallest that covers the need.
struct VictimHeap {
    let order: SweepOrder
    private(set) var items: [SweepEngine.Candidate] = []
    private(set) var allocated: Int64 = 0

    init(order: SweepOrder) { self.order = order }

    var top: SweepEngine.Candidate? { items.first }

    /// Whether `a` should be kept rather than `b` (so `a` sits above `b` in the heap).
    private func keeps(_ a: SweepEngine.Candidate, over b: SweepEngine.Candidate) -> Bool {
        switch order {
        case .largestFirst: (a.allocated, b.path) < (b.allocated, a.path)
        case .oldestModified: (a.modification, a.path) > (b.modification, b.path)
        default: (a.access, a.path) > (b.access, b.path)
        }
    }

    /// Whether offering `candidate` would change nothing: the heap covers the need (`bytes`,
    /// `count`) already and `candidate` deserves removal less than its top, in the heap's own
    /// order (ties broken by path), so that inserting it and trimming would drop it again at once.
    /// Such a file is not offered: no pin is read and nothing is kept for it.
    func wouldDrop(_ candidate: SweepEngine.Candidate, bytes: Int64, count: Int) -> Bool {
        guard let top, allocated >= bytes, items.count >= count else { return false }
        return keeps(candidate, over: top)
    }

    /// Whether the heap, less its top, still covers the need.
    func isSatisfied(bytes: Int64, count: Int) -> Bool {
        guard let top else { return bytes <= 0 && count <= 0 }
        return allocated - top.allocated >= bytes && items.count - 1 >= count
    }

    mutating func insert(_ candidate: SweepEngine.Candidate) {
        items.append(candidate)
        allocated += candidate.allocated
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard keeps(items[child], over: items[parent]) else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    /// Drops the least deserving victims while the rest still cover the need.
    mutating func trim(bytes: Int64, count: Int) {
        while !items.isEmpty, isSatisfied(bytes: bytes, count: count) { removeTop() }
    }

    private mutating func removeTop() {
        allocated -= items[0].allocated
        items.swapAt(0, items.count - 1)
        items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var best = parent
            if left < items.count, keeps(items[left], over: items[best]) { best = left }
            if right < items.count, keeps(items[right], over: items[best]) { best = right }
            if best == parent { return }
            items.swapAt(parent, best)
            parent = best
        }
    }
}
