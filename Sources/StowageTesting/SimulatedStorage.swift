import Stowage

/// A simulated volume for one test: a budget of bytes (and, if you like, inodes) that every write
/// Stowage makes in the test's task takes from, and every removal gives back to.
///
/// Inside the scope (``withSimulatedStorage(available:total:blockSize:inodes:_:)``, or the
/// `.simulatedStorage` trait of Swift Testing):
/// - **Writes take space**: `Store` saves and appends (values, `Data`, folders of `Data`,
///   images), `DiskCache` sets, fills (`Filler`), Stowage's own records and journals, and the
///   folders they make. A write that does not fit fails as it would on a full disk: a
///   `StowageError` with code `noSpace` naming the path (for a `DiskCache`, its folder and
///   the key), the previous value intact, no temporary file left.
/// - **Removals give it back**: `Store.remove` and `clear`, `DiskCache` removals and
///   evictions, sweeps, relief, a fill's release, and a save that replaces a file.
/// - **Capacity figures move**: `VolumeCapacity`, `Container.capacity(of:)`,
///   `Container.availableSpace(of:)` and the space checks of `WriteOptions.spaceRequirement`
///   report the simulated volume (`VolumeCapacity.isSimulated` is `true`), whatever the path.
///
/// **The block model.** Space is counted in whole blocks of ``blockSize`` (4,096 bytes unless
/// set), as a real volume counts it: a file takes its size rounded up to whole blocks (holes
/// count too); a folder takes one block, as on ext4, and grows with the names put in it at least
/// as an ext4 folder may (never shrinking while it exists: see the article "A storage budget per
/// test"); a symbolic link takes none; each file, folder or link takes one inode. A differential
/// test against ext4, XFS, btrfs and tmpfs volumes keeps the budget from saying "fits" where ext4
/// refuses. ``available`` and ``total`` are rounded down to whole blocks.
/// An atomic save writes the new copy beside the old one before it replaces it, so saving over
/// a file needs room for the whole new copy, and gives the old file's blocks back afterwards.
/// Removing or replacing an item that was there before the scope began gives its blocks back
/// too, so the available bytes can grow past where they started.
///
/// **What it does not see.** Only writes made through Stowage count. Writes by anything else
/// (SQLite, `URLSession` downloads, `FileManager`, `Data.write(to:)`) neither take from the
/// budget nor fail when it is spent. Where the whole process, or another process, must meet a
/// full disk, run it under `stowage run` (Linux: a private mount namespace with a volume of the
/// size you give).
///
/// **Scope.** A task-local value, like `SimulatedCapacity.withFigures`: the task that runs
/// the scope and the tasks it creates (`async let`, task groups, `Task { }`), and the threads
/// Stowage moves its own work to (the `async` forms of `Store`, `DiskCache`, `Filler`,
/// `Sweeper`). Tests running in parallel each have their own volume and never see each other's
/// writes. Each scope starts a fresh volume; a scope inside another replaces it until it ends.
/// Inside a scope, `SimulatedCapacity`'s figures are not used: the volume's are.
///
/// ```swift
/// @Test(.simulatedStorage(available: 40_960))   // 10 blocks
/// func draftSurvivesAFullDisk() throws {
///     let store = Store(container: Container(root: scratchFolder))
///     try store.save(Data(count: 4_096), to: "draft.bin", in: .documents)
///     let error = #expect(throws: StowageError.self) {
///         try store.save(Data(count: 40_960), to: "draft.bin", in: .documents)
///     }
///     #expect(error?.code == .noSpace && error?.path == "draft.bin")
///     #expect(try store.retrieve(Data.self, from: "draft.bin", in: .documents).count == 4_096)
/// }
/// ```
public struct SimulatedStorage: Sendable, Hashable, CustomStringConvertible {
    /// The block size of a simulated volume unless given: 4,096 bytes, ext4's and APFS's.
    public static let defaultBlockSize: Int64 = 4096

    /// The bytes available when the scope begins, rounded down to whole blocks.
    public var available: ByteCount
    /// The volume's total bytes, rounded down to whole blocks; `nil` makes it ``available``
    /// (an empty volume). It decides the headroom of opportunistic usage
    /// (`VolumeCapacity.headroom(forTotal:)`).
    public var total: ByteCount?
    /// The allocation unit: every file takes whole blocks of it, every folder one.
    public var blockSize: Int64
    /// The inodes available when the scope begins: each file, folder or link Stowage creates
    /// takes one (temporary files too, while they exist), as `stowage run --inodes` limits them;
    /// `nil` for no limit (`VolumeCapacity.availableInodes` is then `nil`).
    public var inodes: Int64?

    /// A simulated volume; see the properties for each parameter.
    public init(available: ByteCount, total: ByteCount? = nil, blockSize: Int64 = SimulatedStorage.defaultBlockSize,
                inodes: Int64? = nil) {
        self.available = available
        self.total = total
        self.blockSize = blockSize
        self.inodes = inodes
    }

    /// `5,000,000 bytes available of 8,000,000 in blocks of 4,096, 10 inodes`.
    public var description: String {
        var text = "\(Noun.byte.counted(available.bytes)) available"
        if let total { text += " of \(total.bytes)" }
        text += " in blocks of \(blockSize)"
        if let inodes { text += ", \(Noun.inode.counted(inodes))" }
        return text
    }

    /// A fresh budget for these figures, or the error that refuses them.
    func makeBudget() throws -> StorageBudget {
        func refuse(_ reason: String) -> StowageError {
            StowageError(.invalidArgument, operation: .simulateStorage, reason: reason)
        }
        guard blockSize >= 1 else { throw refuse("the block size must be at least 1 byte, not \(blockSize)") }
        guard available.bytes >= 0 else { throw refuse("the available bytes cannot be negative (\(available.bytes))") }
        if let total, total.bytes < available.bytes {
            throw refuse("the total (\(Noun.byte.counted(total.bytes))) cannot be less than what is available (\(Noun.byte.counted(available.bytes)))")
        }
        if let inodes, inodes < 0 { throw refuse("the inodes cannot be negative (\(inodes))") }
        return StorageBudget(available: available.bytes, total: total?.bytes, blockSize: blockSize, inodes: inodes)
    }

    /// Runs `body` on a fresh simulated volume of these figures.
    func run<T>(_ body: () throws -> T) throws -> T {
        try makeBudget().run(body)
    }

    /// Runs `body` on a fresh simulated volume of these figures.
    func run<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async throws -> T {
        try await makeBudget().run(isolation: isolation, body)
    }
}

/// Runs `body` on a simulated volume of `available` bytes, which Stowage's writes in the
/// current task fill and its removals empty (see ``SimulatedStorage``): for XCTest, or any code
/// that is not a Swift Testing test.
///
/// ```swift
/// func testSaveFailsCleanlyOnAFullDisk() throws {
///     try withSimulatedStorage(available: 8_192) {
///         try store.save(Data(count: 8_192), to: "a.bin", in: .documents)   // fits exactly
///         XCTAssertThrowsError(try store.save(Data(count: 1), to: "b.bin", in: .documents)) { error in
///             XCTAssertEqual((error as? StowageError)?.code, .noSpace)
///         }
///     }
/// }
/// ```
///
/// - Parameters:
///   - available: The bytes available at the start, rounded down to whole blocks.
///   - total: The volume's total bytes; `nil` makes it `available`.
///   - blockSize: The allocation unit; 4,096 bytes unless given.
///   - inodes: The inodes available at the start; `nil` for no limit.
///   - body: The code to run on the simulated volume.
/// - Returns: What `body` returns.
/// - Throws: `invalidArgument` (before `body` runs) for a negative size or
///   inode count, a block size below 1, or a total below `available`; otherwise what `body`
///   throws. Running out of the budget is not an error of this call: the write that met it
///   throws `noSpace`, as on a real volume.
/// - Important: Writes made without Stowage (SQLite, `URLSession`, `FileManager`) do not use
///   the budget; see ``SimulatedStorage``.
public func withSimulatedStorage<T>(available: ByteCount, total: ByteCount? = nil,
                                    blockSize: Int64 = SimulatedStorage.defaultBlockSize, inodes: Int64? = nil,
                                    _ body: () throws -> T) throws -> T {
    try SimulatedStorage(available: available, total: total, blockSize: blockSize, inodes: inodes).run(body)
}

/// Runs `body` on a simulated volume of `available` bytes, which Stowage's writes in the
/// current task and its child tasks fill and its removals empty (see ``SimulatedStorage``): the
/// `async` form, for `async` tests. The `async` calls of Stowage inside it (`DiskCache.set`,
/// `Store.clear(_:dryRun:progressInterval:progress:)`, `Filler.fill(progressInterval:progress:)`)
/// use the budget on their own threads too.
///
/// ```swift
/// func testThumbnailsStopWhenTheDiskIsFull() async throws {
///     try await withSimulatedStorage(available: 1_000_000) {
///         try await cache.set(thumbnail, for: "t1")
///         XCTAssertLessThan(try container.availableSpace(of: .caches).availableBytes, 1_000_000)
///     }
/// }
/// ```
///
/// - Parameters:
///   - available: The bytes available at the start, rounded down to whole blocks.
///   - total: The volume's total bytes; `nil` makes it `available`.
///   - blockSize: The allocation unit; 4,096 bytes unless given.
///   - inodes: The inodes available at the start; `nil` for no limit.
///   - isolation: The actor `body` runs on: the caller's.
///   - body: The code to run on the simulated volume.
/// - Returns: What `body` returns.
/// - Throws: as the synchronous form.
public func withSimulatedStorage<T>(available: ByteCount, total: ByteCount? = nil,
                                    blockSize: Int64 = SimulatedStorage.defaultBlockSize, inodes: Int64? = nil,
                                    isolation: isolated (any Actor)? = #isolation,
                                    _ body: () async throws -> T) async throws -> T {
    try await SimulatedStorage(available: available, total: total, blockSize: blockSize, inodes: inodes)
        .run(isolation: isolation, body)
}

extension StowageError.Operation {
    /// Setting up a simulated volume (``withSimulatedStorage(available:total:blockSize:inodes:_:)``,
    /// the `.simulatedStorage` trait).
    public static let simulateStorage = StowageError.Operation("simulate storage")
}
