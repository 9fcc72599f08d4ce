import Foundation
import Stowage

/// What a piece of code left behind in some folders: the change of their allocated bytes,
/// logical bytes and entries (inodes), measured exactly with the same scan before and after,
/// and the tree of what changed.
///
/// ``withDiskGrowthCheck(in:atMost:inodes:_:)`` measures it and fails when it is over a limit:
/// a disk-leak test, for a cache that never evicts or temporary files never removed.
public struct DiskGrowth: Sendable, Hashable, CustomStringConvertible {
    /// Allocated bytes after less before (`st_blocks * 512`, hard links once): what the disk lost.
    public var allocatedBytes: Int64
    /// Logical bytes after less before (`st_size`).
    public var logicalBytes: Int64
    /// Entries after less before: files, folders, links and other files, each an inode.
    public var inodeCount: Int
    /// What changed, per folder and file (one tree per folder measured).
    public var changes: UsageDifference

    /// The growth from the scan `before` to the scan `after` of the same folders.
    public init(from before: UsageReport, to after: UsageReport) {
        func entries(_ totals: UsageTotals) -> Int {
            totals.fileCount + totals.folderCount + totals.symbolicLinkCount + totals.otherCount
        }
        allocatedBytes = after.allocatedBytes - before.allocatedBytes
        logicalBytes = after.logicalBytes - before.logicalBytes
        inodeCount = entries(after.totals) - entries(before.totals)
        changes = after.difference(from: before)
    }

    /// `+12,288 bytes allocated (+9,000 logical), +2 inodes`, then the largest changes, one a
    /// line: `added Library/Caches/thumbs/a.png +8,192 bytes`.
    public var description: String {
        func signed(_ value: Int64) -> String { (value > 0 ? "+" : "") + value.formatted() }
        var lines = ["\(signed(allocatedBytes)) bytes allocated (\(signed(logicalBytes)) logical), \(signed(Int64(inodeCount))) inodes"]
        let leaves = changes.roots.flatMap(\.allChanges).filter { $0.depth > 0 && $0.children.isEmpty }
            .sorted { abs($0.changeInAllocatedBytes) > abs($1.changeInAllocatedBytes) }
        for change in leaves.prefix(Self.changesDescribed) {
            lines.append("\(change.kind) \(change.path) \(signed(change.changeInAllocatedBytes)) bytes")
        }
        if leaves.count > Self.changesDescribed { lines.append("and \(leaves.count - Self.changesDescribed) more changes") }
        return lines.joined(separator: "\n")
    }

    /// How many changes ``description`` names: the largest.
    static let changesDescribed = 10
}

/// Thrown by ``withDiskGrowthCheck(in:atMost:inodes:_:)`` when the code left more behind than
/// allowed. Its description says how much and where, so a failed test shows the leak.
public struct DiskGrowthExceeded: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the code left behind.
    public var growth: DiskGrowth
    /// The allocated bytes allowed.
    public var allowedBytes: Int64
    /// The inodes allowed.
    public var allowedInodes: Int

    /// `left more behind than allowed (4,096 bytes, 0 inodes): ...` and the growth.
    public var description: String {
        "left more behind than allowed (\(allowedBytes.formatted()) bytes, \(allowedInodes.formatted()) inodes): \(growth)"
    }
}

/// Runs `body` and checks that it left at most `bytes` allocated bytes and `inodes` entries
/// behind in `folders`, measured exactly with Stowage's usage scan before and after (every
/// folder and file; hard links once; links not followed): a disk-leak test, for Swift Testing
/// and XCTest alike (a thrown error fails the test in both).
///
/// ```swift
/// @Test func thumbnailsEvictWhatTheyAdd() throws {
///     let caches = try container.url(for: .caches)
///     try withDiskGrowthCheck(in: [caches], atMost: 64_000, inodes: 4) {
///         for index in 0..<1_000 { try cache.set(thumbnail(index), for: "t\(index)") }
///     }
/// }
/// ```
///
/// The scan sees every write, whoever made it (unlike ``SimulatedStorage``'s budget, which sees
/// Stowage's writes only), and only in `folders`: a folder that does not exist yet counts as
/// empty. Growth is allocated bytes; shrinking is never a failure.
///
/// - Parameters:
///   - folders: The folders to measure (a container's location folders, say).
///   - bytes: The allocated bytes the code may leave behind (the check passes at exactly this).
///   - inodes: The entries (files, folders, links) it may leave behind.
///   - body: The code under test.
/// - Returns: What `body` returns.
/// - Throws: ``DiskGrowthExceeded`` when it left more; what `body` throws (then nothing is
///   checked); `invalidArgument` for a negative limit, before `body` runs.
public func withDiskGrowthCheck<T>(in folders: [URL], atMost bytes: ByteCount = 0, inodes: Int = 0,
                                   _ body: () throws -> T) throws -> T {
    let check = try DiskGrowthCheck(folders: folders, bytes: bytes.bytes, inodes: inodes)
    let before = check.scan()
    let result = try body()
    try check.verify(from: before, to: check.scan())
    return result
}

/// The `async` form of ``withDiskGrowthCheck(in:atMost:inodes:_:)``: runs `body`, then checks
/// what it left behind in `folders` (the scans run on threads of their own).
///
/// - Parameters:
///   - folders: The folders to measure.
///   - bytes: The allocated bytes the code may leave behind.
///   - inodes: The entries it may leave behind.
///   - isolation: The actor `body` runs on: the caller's.
///   - body: The code under test.
/// - Returns: What `body` returns.
/// - Throws: as the synchronous form.
public func withDiskGrowthCheck<T>(in folders: [URL], atMost bytes: ByteCount = 0, inodes: Int = 0,
                                   isolation: isolated (any Actor)? = #isolation,
                                   _ body: () async throws -> T) async throws -> T {
    let check = try DiskGrowthCheck(folders: folders, bytes: bytes.bytes, inodes: inodes)
    let before = try await check.scanAsync()
    let result = try await body()
    try check.verify(from: before, to: try await check.scanAsync())
    return result
}

/// The scans and the limits of one check.
struct DiskGrowthCheck {
    let folders: [URL]
    let bytes: Int64
    let inodes: Int
    let scanner: UsageScanner

    init(folders: [URL], bytes: Int64, inodes: Int) throws {
        guard bytes >= 0, inodes >= 0 else {
            throw StowageError(.invalidArgument, operation: .checkDiskGrowth,
                               reason: "the bytes and inodes allowed cannot be negative (\(bytes), \(inodes))")
        }
        self.folders = folders
        self.bytes = bytes
        self.inodes = inodes
        var options = UsageOptions()
        options.breakdownDepth = .max
        options.largestFileCount = 0
        scanner = UsageScanner(options: options)
    }

    func scan() -> UsageReport { scanner.scan(folders) }

    func scanAsync() async throws -> UsageReport { try await scanner.scan(folders) }

    func verify(from before: UsageReport, to after: UsageReport) throws {
        let growth = DiskGrowth(from: before, to: after)
        if growth.allocatedBytes > bytes || growth.inodeCount > inodes {
            throw DiskGrowthExceeded(growth: growth, allowedBytes: bytes, allowedInodes: inodes)
        }
    }
}

extension StowageError.Operation {
    /// Checking what code left behind in folders (``withDiskGrowthCheck(in:atMost:inodes:_:)``).
    public static let checkDiskGrowth = StowageError.Operation("check disk growth")
}
