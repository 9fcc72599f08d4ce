/// Elements appended in chunks of a fixed size, never moved once in: what ``ScanEngine`` gathers
/// the tree of names in. An `Array` that grows copies all it holds into room twice as large and
/// holds both meanwhile, up to three times its elements at the last growth, which was most of the
/// usage browser's peak memory; here a growth costs one chunk, and ``joined()`` makes the one
/// array at the end, filling it chunk after chunk and giving each back once copied (the array's
/// pages take memory as they are filled, as the chunks' are given back).
struct ChunkedStore<Element> {
    private var chunks: [[Element]] = []
    /// Each chunk holds `1 << chunkShift` elements (the last fewer).
    private let chunkShift: Int
    /// How many elements it holds.
    private(set) var count = 0

    /// An empty store whose chunks hold `1 << chunkShift` elements each.
    init(chunkShift: Int) { self.chunkShift = chunkShift }

    private var chunkSize: Int { 1 << chunkShift }

    /// Appends `elements` after those held, starting another chunk whenever the last is full.
    mutating func append(contentsOf elements: UnsafeBufferPointer<Element>) {
        var from = 0
        while from < elements.count {
            if chunks.isEmpty || chunks[chunks.count - 1].count == chunkSize {
                chunks.append([])
                chunks[chunks.count - 1].reserveCapacity(chunkSize)
            }
            let taken = min(chunkSize - chunks[chunks.count - 1].count, elements.count - from)
            chunks[chunks.count - 1].append(contentsOf: UnsafeBufferPointer(rebasing: elements[from..<(from + taken)]))
            from += taken
        }
        count += elements.count
    }

    /// Appends `elements` after those held.
    mutating func append(contentsOf elements: some Collection<Element>) {
        if elements.withContiguousStorageIfAvailable({ append(contentsOf: $0) }) == nil {
            Array(elements).withUnsafeBufferPointer { append(contentsOf: $0) }
        }
    }

    /// The element at `index` (below ``count``).
    subscript(index: Int) -> Element {
        get { chunks[index >> chunkShift][index & (chunkSize - 1)] }
        set { chunks[index >> chunkShift][index & (chunkSize - 1)] = newValue }
    }

    /// All the elements in order, in one array; the store is empty after. Each chunk is given
    /// back as soon as it is copied.
    mutating func joined() -> [Element] {
        var chunks: [[Element]] = []
        swap(&chunks, &self.chunks)
        let total = count
        count = 0
        return [Element](unsafeUninitializedCapacity: total) { buffer, initialized in
            for index in chunks.indices {
                var chunk: [Element] = []
                swap(&chunk, &chunks[index])  // the chunk's only reference: freed at the end of this turn
                chunk.withUnsafeBufferPointer { source in
                    (buffer.baseAddress! + initialized).initialize(from: source.baseAddress!, count: source.count)
                }
                initialized += chunk.count
            }
        }
    }
}
