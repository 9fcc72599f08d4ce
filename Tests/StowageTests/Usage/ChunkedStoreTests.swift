import Testing
@testable import Stowage

@Suite("ChunkedStore: the tree of names' nodes and names, gathered in chunks")
struct ChunkedStoreTests {
    @Test("appends of every size around a chunk's (4 here): the elements in order, read and changed by index across chunks, one array at the end")
    func chunkBoundaries() {
        var store = ChunkedStore<String>(chunkShift: 2)
        var expected: [String] = []
        var next = 0
        // Empty, one short of a chunk, the last place of the first, the first of the second,
        // exactly a chunk, then three chunks and a part at once.
        for size in [0, 3, 1, 1, 4, 3, 14, 0, 1] {
            let elements = (0..<size).map { "e\(next + $0)" }
            next += size
            store.append(contentsOf: elements)
            expected += elements
            #expect(store.count == expected.count)
            #expect((0..<store.count).map { store[$0] } == expected, "after appending \(size)")
        }
        for index in [0, 3, 4, 7, 8, expected.count - 1] {
            store[index] += "!"
            expected[index] += "!"
        }
        #expect((0..<store.count).map { store[$0] } == expected)
        #expect(store.joined() == expected)
        #expect(store.count == 0 && store.joined().isEmpty, "empty after")
        store.append(contentsOf: ["again"])
        #expect(store.joined() == ["again"])
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
}
