/// Fast pseudo-random bytes (wyrand), different for every block of every fill: enough to
/// defeat compression and deduplication, not for cryptography.
struct RandomBytes {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0xA076_1D64_78BD_642F
        let product = state.multipliedFullWidth(by: state ^ 0xE703_7ED1_A0B4_28DB)
        return product.high ^ product.low
    }

    mutating func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        let words = buffer.count / 8
        let pointer = buffer.baseAddress!
        for index in 0..<words {
            pointer.storeBytes(of: next(), toByteOffset: index * 8, as: UInt64.self)
        }
        for index in words * 8..<buffer.count {
            pointer.storeBytes(of: UInt8(truncatingIfNeeded: next()), toByteOffset: index, as: UInt8.self)
        }
    }
}
