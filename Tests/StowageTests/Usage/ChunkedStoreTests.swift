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

    /// Every way a store is changed, each applied to one of two copies (10 elements in chunks of 4,
    /// 4 and 2: full chunks and a last one with room), with what the changed copy then holds.
    static let changes: [(name: String, change: @Sendable (inout ChunkedStore<Int>) -> Void, result: [Int])] = [
        ("subscript set", { $0[5] = -5 }, [0, 1, 2, 3, 4, -5, 6, 7, 8, 9]),
        ("+= through get and set", { $0[9] += 100 }, [0, 1, 2, 3, 4, 5, 6, 7, 8, 109]),
        ("a node's field", { $0[2] &= 0 }, [0, 1, 0, 3, 4, 5, 6, 7, 8, 9]),
        ("swapAt across chunks", { $0.swapAt(1, 8) }, [0, 8, 2, 3, 4, 5, 6, 7, 1, 9]),
        ("sort", { $0.sort(by: >) }, Array((0..<10).reversed())),
        ("reverse of a slice across chunks", { $0[2..<7].reverse() }, [0, 1, 6, 5, 4, 3, 2, 7, 8, 9]),
        ("sort of a slice", { $0[7...].sort(by: >) }, [0, 1, 2, 3, 4, 5, 6, 9, 8, 7]),
        ("partition", { _ = $0.partition { $0 % 2 == 1 } }, [0, 8, 2, 6, 4, 5, 3, 7, 1, 9]),
        ("one appended into the last chunk's room", { $0.append(10) }, Array(0..<11)),
        ("appended through the room into a new chunk", { $0.append(contentsOf: [10, 11, 12]) }, Array(0..<13)),
        ("every element through the raw chunks", { store in
            let count = store.count
            store.withUnsafeMutableChunks { chunks, shift in
                for index in 0..<count { chunks[index >> shift][index & ((1 << shift) - 1)] *= 10 }
            }
        }, (0..<10).map { $0 * 10 }),
        ("joined", { _ = $0.joined() }, []),
    ]

    @Test("each way of changing a copy (subscript, swapAt, sort, a slice's reverse and sort, partition, appends into a shared chunk's room, the raw chunks, joined) changes it alone, whichever of the two copies is changed", arguments: 0..<changes.count)
    func everyChangeOfACopy(_ which: Int) {
        let (name, change, result) = Self.changes[which]
        for changesTheCopy in [true, false] {
            var original = ChunkedStore<Int>(chunkShift: 2)
            original.append(contentsOf: Array(0..<10))
            var copy = original
            if changesTheCopy { change(&copy) } else { change(&original) }
            let (changed, kept) = changesTheCopy ? (copy, original) : (original, copy)
            #expect(Array(changed) == result, "\(name): the copy changed")
            #expect(Array(kept) == Array(0..<10), "\(name): the other copy as it was (\(changesTheCopy ? "the copy" : "the original") changed)")
        }
    }

    @Test("the raw chunks: chunk i holds the elements from i << chunkShift on, the last one the rest; a store held alone keeps its memory (not copied), one shared gets memory of its own; an empty store has none; chunks of one element")
    func rawChunks() {
        for (shift, total) in [(2, 0), (2, 4), (2, 9), (0, 5), (3, 17)] {
            var store = ChunkedStore<Int>(chunkShift: shift)
            store.append(contentsOf: Array(0..<total))
            let size = 1 << shift
            let bases = store.withUnsafeMutableChunks { chunks, chunkShift in
                #expect(chunkShift == shift && chunks.count == (total + size - 1) / size, "\(total) in chunks of \(size)")
                for index in 0..<total { #expect(chunks[index >> chunkShift][index % size] == index) }
                return Array(chunks)
            }
            #expect(store.withUnsafeMutableChunks { chunks, _ in Array(chunks) } == bases, "held alone: the same memory again")
            let alone = store.holdsChunksAlone()
            let copy = store
            let aloneWithACopy = store.holdsChunksAlone()
            #expect(alone && aloneWithACopy == (total == 0), "held alone, then sharing every chunk with a copy")
            let own = store.withUnsafeMutableChunks { chunks, _ in Array(chunks) }
            #expect(total == 0 || Set(own).isDisjoint(with: bases), "shared: every chunk copied before it can be written")
            #expect(Array(store) == Array(0..<total) && Array(copy) == Array(0..<total))
        }
    }

    @Test("an index at the count (in the last chunk's room, never written) or below 0 stops the process, as an array's does")
    func indexOutOfRange() async {
        await #expect(processExitsWith: .failure, "read at the count") {
            var store = ChunkedStore<Int>(chunkShift: 2)
            store.append(contentsOf: [1, 2, 3, 4, 5])
            _ = store[5]
        }
        await #expect(processExitsWith: .failure, "written at the count") {
            var store = ChunkedStore<Int>(chunkShift: 2)
            store.append(contentsOf: [1, 2, 3, 4, 5])
            store[5] = 6
        }
        await #expect(processExitsWith: .failure, "read below 0") {
            var store = ChunkedStore<Int>(chunkShift: 2)
            store.append(7)
            _ = store[-1]
        }
    }

    @Test("chunks of 1 to 2^24 elements (chunkShift 0 to 24): a shift outside stops the process at once; 1 << 64 or 1 << -1 made chunks of no room, which an append wrote past (or appended forever)")
    func chunkShiftBounds() async {
        for shift in [0, ChunkedStore<UInt8>.maximumChunkShift] {
            var store = ChunkedStore<UInt8>(chunkShift: shift)
            store.append(contentsOf: [1, 2, 3])
            store.append(4)
            #expect(Array(store) == [1, 2, 3, 4], "chunks of \(1 << shift)")
        }
        await #expect(processExitsWith: .failure, "shift -1") {
            var store = ChunkedStore<Int>(chunkShift: -1)
            store.append(1)
        }
        await #expect(processExitsWith: .failure, "one past the largest") {
            var store = ChunkedStore<UInt8>(chunkShift: ChunkedStore<UInt8>.maximumChunkShift + 1)
            store.append(1)
        }
        await #expect(processExitsWith: .failure, "shift 64") {
            var store = ChunkedStore<Int>(chunkShift: 64)
            store.append(1)
        }
    }
}
