import Foundation

/// A simulated volume for the current task that Stowage's own writes fill and its removals
/// empty: the storage budget behind `StowageTesting` (`withSimulatedStorage`, the
/// `.simulatedStorage` trait).
///
/// **One seam.** The budget is charged where space is taken, in the Platform layer's
/// system-call wrappers (`Syscalls+Budget.swift`): a write, `pwrite`, `ftruncate` or
/// `fallocate` that makes a file longer, an `openat` that creates or truncates, `mkdirat`,
/// `symlinkat`, an unnamed file; and credited where space comes back: `unlinkat`, a `renameat`
/// over an existing item, the close of an unnamed file. A call that does not fit fails with
/// `ENOSPC` before it runs, exactly as the kernel's would, so each caller's own full-disk
/// handling (an atomic write removing its temporary file, an append undoing itself, a cache
/// evicting and trying again, a fill halving its step) is what runs. `statvfs` and `statfs`
/// (``Sys/spaceFigures(_:)``) report the budget's figures, so every capacity query, space check
/// and fill sees them move; ``SimulatedCapacity/current(environment:)`` gives them first.
///
/// **Cost when off.** One task-local read in each of those wrappers (an `openat` reads it only
/// when it creates or truncates); nothing else.
///
/// **The block model.** A file takes its size rounded up to whole blocks of ``blockSize``
/// (holes count: a sparse file is charged as if written); a folder takes one block, as on
/// ext4, and grows with the names put in it as an ext4 folder may at most (``FolderGrowth``:
/// the names' bytes, the htree's leaves and index, never shrinking while it exists); a
/// symbolic link none; each file, folder, link or unnamed file takes one inode. Removing
/// the last name of an item gives all of that back; removing one of several hard links gives
/// nothing. Items that were there before the budget began are measured the same way when they
/// are removed or replaced, so ``available`` can grow past where it started (``total`` then grows
/// with it: a volume never has more available than in all). Extended attributes (markers) and
/// what a file system spends on its own bookkeeping take nothing.
///
/// **Scope.** A task-local value: the task that binds it (``run(_:)``) and its child tasks.
/// Work that Stowage moves to threads of its own carries it there (``SimulationContext``).
///
/// `package`, not public: only `StowageTesting`, in this package, makes one.
///
/// `@unchecked Sendable`: `availableBlocks`, `availableInodes`, `unnamedFiles` and `folders` are
/// read and written only while `lock` is held; the rest never changes.
package final class StorageBudget: BudgetAccounting, @unchecked Sendable {
    /// The budget in force for the current task, if any (the platform's ``BudgetSeam``, which
    /// only a storage budget binds).
    package static var current: StorageBudget? { BudgetSeam.current as? StorageBudget }

    /// The allocation unit: files take whole blocks.
    package let blockSize: Int64
    /// The volume's size when the budget began, in blocks.
    private let startingTotalBlocks: Int64
    /// The inodes in all when the budget began; `nil` when they are not limited.
    private let startingTotalInodes: Int64?

    let lock = NSLock()
    var availableBlocks: Int64
    private var availableInodes: Int64?
    /// The unnamed files (`O_TMPFILE`) open now, by descriptor: their space comes back when closed.
    private var unnamedFiles: [Int32: (device: UInt64, inode: UInt64)] = [:]
    /// The folders met so far, and what each takes (see ``FolderGrowth``).
    var folders: [FolderKey: BudgetedFolder] = [:]

    /// A budget of `available` bytes free of `total` (`available` when `nil`), both rounded down
    /// to whole blocks of `blockSize`, and `inodes` free inodes (`nil`: not limited).
    /// `StowageTesting` checks the figures first; here a figure out of range is clamped.
    package init(available: Int64, total: Int64? = nil, blockSize: Int64, inodes: Int64? = nil) {
        self.blockSize = max(1, blockSize)
        availableBlocks = max(0, available) / self.blockSize
        startingTotalBlocks = max(availableBlocks, max(0, total ?? available) / self.blockSize)
        availableInodes = inodes.map { max(0, $0) }
        startingTotalInodes = availableInodes
    }

    /// Runs `body` with this budget in force for the current task and its child tasks.
    package func run<T>(_ body: () throws -> T) rethrows -> T {
        try BudgetSeam.$current.withValue(self, operation: body)
    }

    /// Runs `body` with this budget in force for the current task and its child tasks.
    package func run<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async rethrows -> T {
        try await BudgetSeam.$current.withValue(self, operation: body)
    }

    // MARK: Figures

    /// Bytes available now.
    package var available: Int64 { lock.withLock { max(0, availableBlocks) * blockSize } }

    /// The volume's size: as it began, or more once removals of older items made more available.
    package var total: Int64 { lock.withLock { max(startingTotalBlocks, availableBlocks) * blockSize } }

    /// Inodes available now; `nil` when they are not limited.
    package var inodesAvailable: Int64? { lock.withLock { availableInodes.map { max(0, $0) } } }

    /// The figures every capacity query reports.
    var figures: SimulatedCapacity.Figures {
        lock.withLock {
            SimulatedCapacity.Figures(availableBytes: max(0, availableBlocks) * blockSize,
                                      totalBytes: max(startingTotalBlocks, availableBlocks) * blockSize)
        }
    }

    /// The figures `statvfs`/`statfs` report (``Sys/spaceFigures(_:)``): the inode counts 0
    /// (not counted) when they are not limited.
    package var spaceFigures: Sys.SpaceFigures {
        lock.withLock {
            let available = max(0, availableBlocks) * blockSize
            let inodes = availableInodes.map { max(0, $0) } ?? 0
            return Sys.SpaceFigures(blockSize: blockSize, total: max(startingTotalBlocks, availableBlocks) * blockSize,
                                    available: available, free: available,
                                    totalInodes: startingTotalInodes.map { max($0, inodes) } ?? 0, availableInodes: inodes)
        }
    }

    /// The blocks a file of `size` bytes takes.
    package func blocks(forSize size: Int64) -> Int64 {
        size <= 0 ? 0 : (size - 1) / blockSize + 1
    }

    // MARK: Charging and crediting

    /// Takes `blocks` and `inodes`, all or none: `false` when either is short.
    package func take(blocks: Int64, inodes: Int64) -> Bool {
        lock.withLock {
            guard blocks == 0 || blocks <= availableBlocks,
                  inodes == 0 || (availableInodes.map { inodes <= $0 } ?? true) else { return false }
            availableBlocks -= blocks
            if let free = availableInodes { availableInodes = free - inodes }
            return true
        }
    }

    /// Gives `blocks` and `inodes` back (negative figures take them, whatever is left: for what
    /// the system did beyond what was asked, such as another writer growing the same file).
    package func giveBack(blocks: Int64, inodes: Int64) {
        lock.withLock {
            availableBlocks += blocks
            if let free = availableInodes { availableInodes = free + inodes }
        }
    }

    /// What removing the last name of an item of `status` gives back: its blocks and its inode,
    /// or nothing while another hard link keeps the item. A folder gives back the blocks the
    /// model says it grew to (and forgets it).
    package func credit(forRemoving status: FileStatus) -> (blocks: Int64, inodes: Int64) {
        switch status.kind {
        case .folder: return (forgetFolder(FolderKey(device: status.device, inode: status.inode)), 1)
        case .file: return status.linkCount <= 1 ? (blocks(forSize: status.size), 1) : (0, 0)
        case .symbolicLink, .other: return status.linkCount <= 1 ? (0, 1) : (0, 0)
        }
    }

    /// Notes the unnamed file open as `descriptor`, whose space comes back when it is closed.
    package func noteUnnamedFile(_ descriptor: Int32, device: UInt64, inode: UInt64) {
        lock.withLock { unnamedFiles[descriptor] = (device, inode) }
    }

    /// Whether any unnamed file is open: what a `close` asks before anything else.
    package var hasUnnamedFiles: Bool { lock.withLock { !unnamedFiles.isEmpty } }

    /// Forgets the unnamed file open as `descriptor`, returning what it was, or `nil`.
    package func forgetUnnamedFile(_ descriptor: Int32) -> (device: UInt64, inode: UInt64)? {
        lock.withLock { unnamedFiles.removeValue(forKey: descriptor) }
    }
}
