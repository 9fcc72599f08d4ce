import Testing
@testable import Stowage

@Suite("ChunkedStore: the tree of names' nodes and names, gathered in chunks")
struct ChunkedStoreTests {
    @Test("appends of every size around a chunk's (4 here): the elements in order, read and changed by index across chunks, one array at the end")
    func chunkBoundaries() {
        var store = ChunkedStore<Int>(chunkShift: 2)
        var expected: [Int] = []
        var next = 0
        // Empty, one short of a chunk, the last place of the first, the first of the second,
        // exactly a chunk, then three chunks and a part at once.
        for size in [0, 3, 1, 1, 4, 3, 14, 0, 1] {
            let elements = Array(next..<(next + size))
            next += size
            store.append(contentsOf: elements)
            expected += elements
            #expect(store.count == expected.count)
            #expect(Array(store) == expected, "after appending \(size)")
        }
        for index in [0, 3, 4, 7, 8, expected.count - 1] {
            store[index] += 1_000
            expected[index] += 1_000
        }
        #expect(Array(store) == expected)
        #expect(store.joined() == expected)
        #expect(store.count == 0 && store.joined().isEmpty, "empty after")
        store.append(contentsOf: [7])
        #expect(store.joined() == [7])
    }

    @Test("bytes appended from a buffer, a slice and a collection without contiguous storage")
    func appendSources() {
        var store = ChunkedStore<UInt8>(chunkShift: 3)
        let bytes = (0..<100).map { UInt8($0) }
        bytes[..<37].withUnsafeBufferPointer { store.append(contentsOf: $0) }
        store.append(contentsOf: bytes[37..<90])
        store.append(contentsOf: (90..<100).lazy.map { UInt8($0) })
        #expect(store.count == 100 && store.joined() == bytes)
    }

    @Test("a random-access, mutable collection across chunks: single appends, indices, slices, sums")
    func collection() {
        var store = ChunkedStore<Int>(chunkShift: 2)
        #expect(store.isEmpty && store.startIndex == 0 && store.endIndex == 0 && Array(store).isEmpty)
        // One at a time, through the end of a chunk (4), the start of the next and into a third.
        for value in 0..<9 { store.append(value) }
        #expect(store.count == 9 && Array(store) == Array(0..<9) && store.indices == 0..<9)
        #expect(Array(store.dropFirst()) == Array(1..<9))
        #expect(store.last == 8 && Array(store[3..<6]) == [3, 4, 5])
        store[3] = 30
        store[4] = 40  // the first of the second chunk
        store[8] = 80  // the only one of the third
        store.swapAt(0, 5)
        #expect(Array(store) == [5, 1, 2, 30, 40, 0, 6, 7, 80])
        let sum = store.reduce(0, +)
        #expect(sum == 171)
    }

    @Test("copies share their chunks until one changes: the other keeps what it had, in every chunk, through every change")
    func valueSemantics() {
        var original = ChunkedStore<Int>(chunkShift: 2)
        original.append(contentsOf: Array(0..<10))  // chunks of 4, 4 and 2
        var copy = original
        copy[1] = -1  // a full chunk
        copy[9] = -9  // the last, not full
        copy.append(10)  // into the last chunk's room, which the original shares
        copy.append(contentsOf: [11, 12])  // through the end of that chunk into a new one
        #expect(Array(original) == Array(0..<10), "the original as it was")
        #expect(Array(copy) == [0, -1, 2, 3, 4, 5, 6, 7, 8, -9, 10, 11, 12])
        original.append(100)  // the original's own room now: the copy took its chunk away
        #expect(Array(original) == Array(0..<10) + [100] && copy[10] == 10)
        var joinedCopy = copy
        let joined = joinedCopy.joined()
        #expect(joined == Array(copy) && joinedCopy.isEmpty && copy.count == 13, "joining one copy leaves the other whole")
        let third = original
        original[0] = 42
        #expect(third[0] == 0 && original[0] == 42)
    }
}
