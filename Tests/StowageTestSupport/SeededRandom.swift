import Foundation

/// A seeded random number generator (SplitMix64) for tests with random inputs: the seed is
/// printed, and `STOWAGE_TEST_SEED=<seed>` replays exactly the same inputs.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    /// The seed this generator started from.
    public let seed: UInt64
    private var state: UInt64

    /// A generator seeded from `STOWAGE_TEST_SEED` when set, else from the clock; prints the
    /// seed and how to replay it, naming `test`.
    public init(for test: String) {
        if let text = ProcessInfo.processInfo.environment["STOWAGE_TEST_SEED"], let given = UInt64(text) {
            seed = given
        } else {
            seed = UInt64(truncatingIfNeeded: DispatchTime.now().uptimeNanoseconds) ^ 0x9E37_79B9_7F4A_7C15
        }
        state = seed
        print("\(test): random seed \(seed) (replay: STOWAGE_TEST_SEED=\(seed) swift test --filter '\(test)')")
    }

    /// A generator started from `seed`, printing nothing.
    public init(seed: UInt64) {
        self.seed = seed
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
