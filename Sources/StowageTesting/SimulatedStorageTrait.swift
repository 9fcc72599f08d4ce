#if canImport(Testing)
import Testing
import Stowage

/// A Swift Testing trait that runs each test it applies to on a fresh simulated volume (see
/// ``SimulatedStorage``): Stowage's writes in the test take from its budget, its removals give
/// back, and its capacity figures move with them.
///
/// Applied to a test, each run of it (each argument of a parameterized test) gets its own
/// volume; applied to a suite, every test in the suite does, never one volume shared by the
/// suite. Tests running in parallel never see each other's volumes.
///
/// ```swift
/// @Test(.simulatedStorage(available: 5_000_000, inodes: 100))
/// func exportStopsCleanlyWhenTheDiskFills() throws { ... }
///
/// @Suite(.simulatedStorage(available: 1_000_000))
/// struct LowStorageTests { ... }
/// ```
///
/// Figures that cannot make a volume (a negative size, a total below what is available) fail
/// the test before its body runs, with `invalidArgument`.
public struct SimulatedStorageTrait: TestTrait, SuiteTrait, TestScoping {
    /// The volume each test starts with.
    public var storage: SimulatedStorage

    /// A trait giving each test a fresh volume of `storage`'s figures.
    public init(storage: SimulatedStorage) { self.storage = storage }

    /// `true`: on a suite, the trait applies to every test in it (each with its own volume).
    public var isRecursive: Bool { true }

    /// Runs the test (`function`) with a fresh simulated volume in force for its task.
    ///
    /// - Throws: `invalidArgument` for figures that cannot make a volume,
    ///   before `function` runs; otherwise what `function` throws.
    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try await storage.run(function)
    }
}

extension Trait where Self == SimulatedStorageTrait {
    /// Runs each test on a fresh simulated volume of `available` bytes, which Stowage's writes in
    /// the test fill and its removals empty (see ``SimulatedStorage``).
    ///
    /// ```swift
    /// @Test(.simulatedStorage(available: 40_960))   // 10 blocks of 4,096 bytes
    /// func savingPastTheBudgetKeepsTheOldValue() throws { ... }
    /// ```
    ///
    /// - Parameters:
    ///   - available: The bytes available when the test begins, rounded down to whole blocks.
    ///   - total: The volume's total bytes; `nil` makes it `available`.
    ///   - blockSize: The allocation unit; 4,096 bytes unless given.
    ///   - inodes: The inodes available when the test begins; `nil` for no limit.
    public static func simulatedStorage(available: ByteCount, total: ByteCount? = nil,
                                        blockSize: Int64 = SimulatedStorage.defaultBlockSize,
                                        inodes: Int64? = nil) -> Self {
        SimulatedStorageTrait(storage: SimulatedStorage(available: available, total: total, blockSize: blockSize, inodes: inodes))
    }
}
#endif
