/// Elements appended in chunks of a fixed size, never moved once in: what ``ScanEngine`` gathers
/// the tree of names in, and what the tree keeps its nodes in (``UsageNameTree/nodes``).
///
/// An `Array` that grows copies all it holds into room twice as large and holds both meanwhile, up
/// to three times its elements at the last growth, which was most of the usage browser's peak
/// memory; here a growth costs one chunk. Nor are the chunks joined into one array when the walk
/// ends: that join copied every node once more (8 MB and 2,000 page faults for /usr's 130,000
/// entries, with the folders' sums after it about 10 ms) while the browser waited for its tree.
///
/// A random-access, mutable collection indexed from 0, with value semantics: each chunk is a block
/// of memory of its own (``Chunk``), shared between copies until one of them changes it, which
/// then copies that chunk alone. An element is read through one array look-up and a pointer (an
/// `Array` of `Array`s checked two bounds and two owners per change). Elements are
/// `BitwiseCopyable`: chunks are copied and freed as bytes.
package struct ChunkedStore<Element: BitwiseCopyable> {
    /// One chunk's memory: room for `1 << chunkShift` elements, the first ``count`` of them set.
    final class Chunk {
        let base: UnsafeMutablePointer<Element>
        var count = 0

        init(capacity: Int) { base = .allocate(capacity: capacity) }

        /// A chunk of the same elements in memory of its own.
        func copy(capacity: Int) -> Chunk {
            let copy = Chunk(capacity: capacity)
            copy.base.initialize(from: base, count: count)
            copy.count = count
            return copy
        }

        deinit { base.deallocate() }
    }

    private var chunks: [Chunk] = []
    /// Each chunk holds `1 << chunkShift` elements (the last fewer).
    private let chunkShift: Int
    /// How many elements it holds.
    package private(set) var count = 0

    /// The largest ``init(chunkShift:)``: chunks of 16 M elements.
    package static var maximumChunkShift: Int { 24 }

    /// An empty store whose chunks hold `1 << chunkShift` elements each; `chunkShift` from 0 to
    /// ``maximumChunkShift`` (outside, a shift of 64 or below 0 would make chunks of no room, and
    /// one of 63 a size below 0: stops the process).
    package init(chunkShift: Int) {
        precondition((0...Self.maximumChunkShift).contains(chunkShift), "ChunkedStore chunkShift \(chunkShift) not from 0 to \(Self.maximumChunkShift)")
        self.chunkShift = chunkShift
    }

    private var chunkSize: Int { 1 << chunkShift }

    /// The last chunk, made the store's own and not full: a new one when it is full (or there is none).
    private mutating func lastWithRoom() -> Chunk {
        if chunks.isEmpty || chunks[chunks.count - 1].count == chunkSize {
            chunks.append(Chunk(capacity: chunkSize))
        } else {
            ownChunk(chunks.count - 1)
        }
        return chunks[chunks.count - 1]
    }

    /// Makes chunk `index` this store's alone (copies it when another store shares it).
    @inline(__always)
    private mutating func ownChunk(_ index: Int) {
        if !isKnownUniquelyReferenced(&chunks[index]) { chunks[index] = chunks[index].copy(capacity: chunkSize) }
    }

    /// Appends `elements` after those held, starting another chunk whenever the last is full.
    package mutating func append(contentsOf elements: UnsafeBufferPointer<Element>) {
        var from = 0
        while from < elements.count {
            let last = lastWithRoom()
            let taken = Swift.min(chunkSize - last.count, elements.count - from)
            (last.base + last.count).initialize(from: elements.baseAddress! + from, count: taken)
            last.count += taken
            from += taken
        }
        count += elements.count
    }

    /// Appends `elements` after those held.
    package mutating func append(contentsOf elements: some Collection<Element>) {
        if elements.withContiguousStorageIfAvailable({ append(contentsOf: $0) }) == nil {
            Array(elements).withUnsafeBufferPointer { append(contentsOf: $0) }
        }
    }

    /// Appends `element` after those held.
    package mutating func append(_ element: Element) {
        let last = lastWithRoom()
        (last.base + last.count).initialize(to: element)
        last.count += 1
        count += 1
    }

    /// Whether every chunk is this store's alone (no other store shares one): a change of any
    /// element then copies nothing.
    package mutating func holdsChunksAlone() -> Bool {
        chunks.indices.allSatisfy { isKnownUniquelyReferenced(&chunks[$0]) }
    }

    /// Calls `body` with the memory of every chunk, in order (chunk `i` holds the elements from
    /// `i << chunkShift` on; every chunk but the last is full), each made this store's own first:
    /// element `index` is `chunks[index >> chunkShift][index & ((1 << chunkShift) - 1)]`. For a
    /// pass over every element that reads and changes others as it goes (the tree's sums), without
    /// the checks of a subscript at each access. The pointers are valid only during the call, and
    /// only the first ``count`` elements may be read or changed.
    package mutating func withUnsafeMutableChunks<Result>(
        _ body: (_ chunks: UnsafeBufferPointer<UnsafeMutablePointer<Element>>, _ chunkShift: Int) throws -> Result
    ) rethrows -> Result {
        for index in chunks.indices { ownChunk(index) }
        let bases = chunks.map(\.base)
        return try withExtendedLifetime(chunks) { try bases.withUnsafeBufferPointer { try body($0, chunkShift) } }
    }

    /// All the elements in order, in one array; the store is empty after. Each chunk is given
    /// back as soon as it is copied (unless another store shares it), from the last to the first.
    package mutating func joined() -> [Element] {
        var chunks: [Chunk] = []
        swap(&chunks, &self.chunks)
        let total = count, chunkSize = chunkSize
        count = 0
        return [Element](unsafeUninitializedCapacity: total) { buffer, initialized in
            // Every chunk but the last is full: chunk i starts at element i << chunkShift.
            while let chunk = chunks.popLast() {
                (buffer.baseAddress! + chunks.count * chunkSize).initialize(from: chunk.base, count: chunk.count)
            }
            initialized = total
        }
    }
}

extension ChunkedStore: RandomAccessCollection, MutableCollection {
    package var startIndex: Int { 0 }
    package var endIndex: Int { count }

    /// The element at `index` (below ``count``).
    package subscript(index: Int) -> Element {
        get {
            precondition(index >= 0 && index < count, "ChunkedStore index out of range")
            return chunks[index >> chunkShift].base[index & (chunkSize - 1)]
        }
        set {
            precondition(index >= 0 && index < count, "ChunkedStore index out of range")
            ownChunk(index >> chunkShift)
            chunks[index >> chunkShift].base[index & (chunkSize - 1)] = newValue
        }
    }
}

// Each chunk is changed only through a store that owns it alone (``ownChunk(_:)``), as an `Array`'s
// buffer is; a shared chunk is only read.
extension ChunkedStore: @unchecked Sendable where Element: Sendable {}
