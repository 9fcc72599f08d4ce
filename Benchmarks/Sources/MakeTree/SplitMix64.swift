/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny seeded generator, so that one seed makes
/// the same tree on every machine. The helpers below are written out rather than taken from
/// the standard library's `random(in:using:)`, whose algorithms are not promised to stay the
/// same across Swift versions; they use integers only, for the same reason.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `0 ..< bound` (multiply-shift; the bias, below 2^-40 for the bounds used
    /// here, does not matter for test data).
    mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "empty range")
        return Int(next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// Uniform in `range`.
    mutating func within(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.count)
    }

    /// True with probability `perMillion` / 1,000,000.
    mutating func chance(perMillion: Int) -> Bool {
        below(1_000_000) < perMillion
    }

    /// Roughly log-uniform in `lower ..< lower << octaves`: an octave (a doubling) is chosen
    /// uniformly, then a size uniformly within it, so there are as many files of 4-8 KiB as
    /// of 32-64 KiB.
    mutating func octaves(from lower: Int, count octaves: Int) -> Int {
        let start = lower << below(octaves)
        return start + below(start)
    }

    /// A uniformly chosen element of a non-empty array.
    mutating func element<T>(of array: [T]) -> T {
        array[below(array.count)]
    }
}
