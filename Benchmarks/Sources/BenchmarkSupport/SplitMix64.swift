/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny seeded generator, so that one seed makes the same
/// files on every machine. The helpers are written out with integers only, rather than taken from the
/// standard library's `random(in:using:)`, whose algorithms may change across Swift versions.
/// `@inlinable`, so that across the module boundary a draw still costs a few instructions.
public struct SplitMix64 {
    @usableFromInline var state: UInt64

    @inlinable public init(seed: UInt64) { state = seed }

    /// The next 64 random bits. No value repeats within 2^64 draws (the state steps by an odd constant
    /// and the mixing is a bijection), which MakeCache relies on for unique names.
    @inlinable public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `0 ..< bound` (multiply-shift; its bias, below 2^-40 here, does not matter for test data).
    @inlinable public mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "empty range")
        return Int(next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    @inlinable public mutating func within(_ range: ClosedRange<Int>) -> Int { range.lowerBound + below(range.count) }

    /// True with probability `perMillion` / 1,000,000.
    @inlinable public mutating func chance(perMillion: Int) -> Bool { below(1_000_000) < perMillion }

    /// Roughly log-uniform in `lower ..< lower << octaves`: an octave chosen uniformly, then a size
    /// uniformly within it, so there are as many files of 4-8 KiB as of 32-64 KiB.
    @inlinable public mutating func octaves(from lower: Int, count octaves: Int) -> Int {
        let start = lower << below(octaves)
        return start + below(start)
    }

    @inlinable public mutating func element<T>(of array: [T]) -> T { array[below(array.count)] }

    /// Fisher-Yates: every order equally likely.
    @inlinable public mutating func shuffle<T>(_ array: inout [T]) {
        var index = array.count - 1
        while index > 0 {
            array.swapAt(index, below(index + 1))
            index -= 1
        }
    }
}
