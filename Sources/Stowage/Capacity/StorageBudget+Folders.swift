/// How a folder grows with the names put in it: the part of ``StorageBudget``'s block model that
/// keeps it from saying "fits" where ext4, the strictest of the common file systems, refuses.
///
/// **What each file system does with a folder's names**:
/// - **ext4** (the model): a folder starts as one block holding `.` and `..` (12 bytes each) and
///   its entries, each 8 bytes plus its name rounded up to 4 (`rec_len`), in the block's 4,084
///   usable bytes (12 go to the checksum tail of `metadata_csum`, on by default). When a name
///   does not fit, the folder becomes an htree: the first block turns into the index root and
///   the entries move to two leaf blocks; a full leaf splits in two, half each. A folder never
///   shrinks while it exists: removing names leaves holes, not fewer blocks. Past about 500
///   leaves (4 KiB blocks) the index takes blocks of its own.
/// - **XFS**: small folders live in the inode (no block); larger ones take directory blocks of
///   data entries (12 bytes plus the name, rounded to 8) and leaf hashes (8 bytes each), and
///   give empty blocks back. Not modelled: near a full disk XFS refuses to make a name while
///   some 46-77 blocks are still available (its transactions reserve the worst case), earlier
///   than ext4 and than the budget (the differential test measures it; see the article).
/// - **btrfs**: names are items of the metadata tree (stored twice by default), in metadata
///   block groups allocated in whole chunks: no data blocks per folder.
/// - **tmpfs**: a folder and its names take no blocks, only an inode each (and memory the
///   `size=` limit does not count).
///
/// **The bound.** The model's count is an upper bound of ext4's, whatever the order of the
/// names or the hash seed: a folder takes one block while every entry ever put in it (the
/// names since removed included, since their holes need not fit a new name) fits beside `.`
/// and `..`; after that, the root, two leaves, and one more leaf for each
/// `blockSize / 2 - 12 - 3 × largest entry` bytes put in since the first block was full: a leaf
/// splits only when full, each half holds at most half a block plus two entries, so the half
/// that splits again took at least that many bytes of new entries first. It never gives blocks back before the folder
/// is removed. The atomic writes' temporary names count as the entries they are: for 600
/// saves of 45-byte names in one folder the model says 30 blocks where ext4 took 14.
///
/// Block sizes below 1,024 bytes (ext4's smallest) keep one block per folder, whatever its names.
enum FolderGrowth {
    /// The bytes an entry of a name of `length` bytes takes in an ext4 folder block: 8 bytes of
    /// header and the name, rounded up to 4.
    static func entryBytes(nameLength: Int) -> Int64 {
        (8 + Int64(nameLength) + 3) / 4 * 4
    }

    /// The blocks an ext4 folder may take, at most, once `inserted` bytes of entries (see
    /// ``entryBytes(nameLength:)``, `.` and `..` not included) have been put in it, the largest
    /// of them `largest` bytes.
    static func blocks(inserted: Int64, largest: Int64, blockSize: Int64) -> Int64 {
        guard blockSize >= 1024 else { return 1 }
        let usable = blockSize - 12           // the checksum tail
        let dots: Int64 = 24                  // `.` and `..`
        if dots + inserted <= usable { return 1 }
        // The index came when a name no longer fitted, so past `beforeIndex` bytes; then a leaf
        // splits only when full, each half holding at most half a block and two entries (the
        // new one included), so each further split takes `step` bytes of new entries first.
        let beforeIndex = max(0, usable - dots - largest)
        let step = max(12, blockSize / 2 - 12 - 3 * largest)
        let leaves = 2 + max(0, inserted - beforeIndex) / step
        // The root holds (blockSize - 40) / 8 leaves; past that, index blocks, at least half full.
        let rootLimit = (blockSize - 40) / 8
        let indexBlocks = leaves <= rootLimit ? 0 : (leaves + (blockSize - 16) / 16 - 1) / ((blockSize - 16) / 16)
        return 1 + leaves + indexBlocks
    }
}

/// A folder as the budget models it (see ``FolderGrowth``).
struct BudgetedFolder: Sendable {
    /// The bytes of every entry put in it since the budget first met it (those there then included).
    var inserted: Int64 = 0
    /// The largest of them.
    var largest: Int64 = 0
    /// The blocks the model says it takes now.
    var blocks: Int64 = 1
    /// The blocks the budget did not charge: what a folder that was there before the budget had
    /// beyond the one block any folder is credited for when removed.
    var uncharged: Int64 = 0

    /// What removing the folder gives back.
    var credit: Int64 { blocks - uncharged }
}

extension StorageBudget {
    /// Where a folder is: its device and inode.
    struct FolderKey: Hashable, Sendable {
        var device: UInt64
        var inode: UInt64
    }

    /// What ``addEntry(nameLength:to:existingNames:)`` changed, for undoing it when the call fails.
    struct EntryCharge: Sendable {
        let folder: FolderKey
        let before: BudgetedFolder
        let blocks: Int64
    }

    /// Puts an entry of a name of `nameLength` bytes into `folder`, taking the blocks by which
    /// the folder grows; `existingNames` gives the lengths of the names in it when the budget
    /// meets it for the first time, or `nil` when they cannot be read (a folder this process may
    /// write to but not list): the folder then counts as full, so that its next name grows it,
    /// as ext4 may. `nil` when the blocks are not available.
    func addEntry(nameLength: Int, to folder: FolderKey, existingNames: () -> [Int]?) -> EntryCharge? {
        let known = lock.withLock { folders[folder] != nil }
        let found = known ? [] : existingNames()
        return lock.withLock {
            let record = folders[folder] ?? {
                var met = BudgetedFolder()
                if let found {
                    for length in found {
                        let bytes = FolderGrowth.entryBytes(nameLength: length)
                        met.inserted += bytes
                        met.largest = max(met.largest, bytes)
                    }
                } else {
                    // Unread: its one block full of the longest names ext4 allows.
                    met.largest = FolderGrowth.entryBytes(nameLength: 255)
                    met.inserted = max(0, blockSize - 12 - 24)
                }
                met.blocks = FolderGrowth.blocks(inserted: met.inserted, largest: met.largest, blockSize: blockSize)
                met.uncharged = met.blocks - 1
                return met
            }()
            var grown = record
            let bytes = FolderGrowth.entryBytes(nameLength: nameLength)
            grown.inserted += bytes
            grown.largest = max(grown.largest, bytes)
            grown.blocks = max(record.blocks, FolderGrowth.blocks(inserted: grown.inserted, largest: grown.largest, blockSize: blockSize))
            let taken = grown.blocks - record.blocks
            guard taken == 0 || taken <= availableBlocks else {
                folders[folder] = record
                return nil
            }
            availableBlocks -= taken
            folders[folder] = grown
            return EntryCharge(folder: folder, before: record, blocks: taken)
        }
    }

    /// Undoes `charge`, for a call that failed.
    func undo(_ charge: EntryCharge) {
        lock.withLock {
            availableBlocks += charge.blocks
            folders[charge.folder] = charge.before
        }
    }

    /// Notes a folder the budget has just seen made (its one block already taken).
    func noteNewFolder(_ folder: FolderKey) {
        lock.withLock { folders[folder] = BudgetedFolder() }
    }

    // The platform's view (``BudgetAccounting``): a folder by its device and inode.

    package func noteNewFolder(device: UInt64, inode: UInt64) {
        noteNewFolder(FolderKey(device: device, inode: inode))
    }

    package func addEntry(nameLength: Int, toFolder device: UInt64, inode: UInt64, existingNames: () -> [Int]?) -> (() -> Void)? {
        addEntry(nameLength: nameLength, to: FolderKey(device: device, inode: inode), existingNames: existingNames)
            .map { charge in { self.undo(charge) } }
    }

    /// Forgets the folder being removed, returning the blocks its removal gives back: what the
    /// model says it took, or one block for a folder it never met.
    func forgetFolder(_ folder: FolderKey) -> Int64 {
        lock.withLock { folders.removeValue(forKey: folder)?.credit ?? 1 }
    }
}
