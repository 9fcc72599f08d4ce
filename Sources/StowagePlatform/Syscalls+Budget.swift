#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Stowage's Platform layer supports Darwin, Glibc and Musl systems")
#endif

/// What the system-call wrappers ask of a storage budget: the library's `StorageBudget`, the one
/// kind there is (the platform names nothing of the library, so it sees the budget through this).
/// Figures are in blocks of the budget's block size and in inodes.
package protocol BudgetAccounting: AnyObject, Sendable {
    /// The blocks a file of `size` bytes takes.
    func blocks(forSize size: Int64) -> Int64
    /// Takes `blocks` and `inodes`, all or none: `false` when either is short.
    func take(blocks: Int64, inodes: Int64) -> Bool
    /// Gives `blocks` and `inodes` back (negative figures take them).
    func giveBack(blocks: Int64, inodes: Int64)
    /// What removing the last name of an item of `status` gives back.
    func credit(forRemoving status: FileStatus) -> (blocks: Int64, inodes: Int64)
    /// Notes the unnamed file open as `descriptor`, whose space comes back when it is closed.
    func noteUnnamedFile(_ descriptor: Int32, device: UInt64, inode: UInt64)
    /// Whether any unnamed file is open.
    var hasUnnamedFiles: Bool { get }
    /// Forgets the unnamed file open as `descriptor`, returning what it was, or `nil`.
    func forgetUnnamedFile(_ descriptor: Int32) -> (device: UInt64, inode: UInt64)?
    /// The figures `statvfs`/`statfs` report while the budget is in force.
    var spaceFigures: Sys.SpaceFigures { get }
    /// Notes a folder the budget's task has just made (it takes one block).
    func noteNewFolder(device: UInt64, inode: UInt64)
    /// Puts an entry of a name of `nameLength` bytes into the folder at `device`/`inode`, taking
    /// the blocks by which the folder grows; `existingNames` gives the lengths of the names in it
    /// when the budget meets the folder first (`nil`: they cannot be read). Returns what undoes it,
    /// or `nil` when the blocks are not available.
    func addEntry(nameLength: Int, toFolder device: UInt64, inode: UInt64, existingNames: () -> [Int]?) -> (() -> Void)?
}

/// The storage budget in force for the current task (a task-local value): the one seam through
/// which a budget sees Stowage's system calls.
package enum BudgetSeam {
    /// The budget in force for the current task and its child tasks, if any.
    @TaskLocal package static var current: (any BudgetAccounting)?
}

/// The one seam of the storage budget: the system-call wrappers that take space or an inode, or
/// give them back, ask the budget of the current task here (``BudgetSeam``), before the call. A
/// call that does not fit throws `ENOSPC` (``SystemCallError`` naming the call) without running,
/// as the kernel would on a full volume; after the call the budget is settled with what the
/// system did.
///
/// With no budget in force, each helper is one task-local read and a call of `body`.
extension Sys {
    /// Runs `body`, which makes the regular file open as `fd` `newSize(size)` bytes long (`size`:
    /// its length now): the blocks it adds are taken first (`ENOSPC` when they do not fit), and
    /// afterwards the budget is settled with the file's length then (what a failed or short
    /// call did not write is given back; a shorter file gives blocks back).
    @inline(__always)
    package static func budgeted<T>(resizing fd: Int32, call: String, to newSize: (Int64) throws -> Int64,
                            _ body: () throws -> T) throws -> T {
        guard let budget = BudgetSeam.current else { return try body() }
        return try resize(fd, in: budget, call: call, to: newSize, body)
    }

    private static func resize<T>(_ fd: Int32, in budget: any BudgetAccounting, call: String, to newSize: (Int64) throws -> Int64,
                                  _ body: () throws -> T) throws -> T {
        guard let before = try? fstat(fd), before.kind == .file else { return try body() }
        let target = try newSize(before.size)
        let taken = max(0, budget.blocks(forSize: target) - budget.blocks(forSize: before.size))
        guard budget.take(blocks: taken, inodes: 0) else { throw SystemCallError(errno: .noSpace, call: call) }
        func settle(assuming size: Int64) {
            let after = (try? fstat(fd).size) ?? size
            budget.giveBack(blocks: taken - (budget.blocks(forSize: after) - budget.blocks(forSize: before.size)), inodes: 0)
        }
        do {
            let result = try body()
            settle(assuming: target)
            return result
        } catch {
            settle(assuming: before.size)
            throw error
        }
    }

    /// Runs `body`, an `openat` with `flags` of the item `status` describes (throwing when there
    /// is none): one inode is taken first when it creates the item, and a file it truncates
    /// gives its blocks back. An item that exists takes nothing: the kernel answers `EEXIST`
    /// (with `O_EXCL`) or opens it, however full the volume.
    @inline(__always)
    package static func budgeted<T>(opening flags: Int32, call: String, status: () throws -> FileStatus, entry: () -> BudgetEntry,
                            _ body: () throws -> T) throws -> T {
        guard flags & (O_CREAT | O_TRUNC) != 0, let budget = BudgetSeam.current else { return try body() }
        return try openCharged(flags, in: budget, call: call, status: status, entry: entry, body)
    }

    private static func openCharged<T>(_ flags: Int32, in budget: any BudgetAccounting, call: String, status: () throws -> FileStatus,
                                       entry: () -> BudgetEntry, _ body: () throws -> T) throws -> T {
        let existing = try? status()
        let creates: Int64 = flags & O_CREAT != 0 && existing == nil ? 1 : 0
        guard budget.take(blocks: 0, inodes: creates) else { throw SystemCallError(errno: .noSpace, call: call) }
        let undo: (() -> Void)?
        do {
            undo = creates == 1 ? try chargeEntry(entry(), in: budget, call: call) : nil
        } catch {
            budget.giveBack(blocks: 0, inodes: creates)
            throw error
        }
        let result: T
        do {
            result = try body()
        } catch {
            undo?()
            budget.giveBack(blocks: 0, inodes: creates)
            throw error
        }
        if flags & O_TRUNC != 0, let existing, existing.kind == .file {
            budget.giveBack(blocks: budget.blocks(forSize: existing.size), inodes: 0)
        }
        return result
    }

    /// Runs `body`, which creates one item of the kind `item` (a folder: a block and an inode;
    /// a symbolic link: an inode) where `status` finds none, taking them first, and the blocks
    /// by which its `entry` grows the folder it is put in. Where an item exists already nothing
    /// is taken: the kernel answers `EEXIST` however full the volume (Stowage makes folders by
    /// trying, and takes `EEXIST` as "there already").
    @inline(__always)
    package static func budgeted<T>(creating item: FileStatus.Kind, call: String, status: () throws -> FileStatus, entry: () -> BudgetEntry,
                            _ body: () throws -> T) throws -> T {
        guard let budget = BudgetSeam.current, (try? status()) == nil else { return try body() }
        let blocks: Int64 = item == .folder ? 1 : 0
        guard budget.take(blocks: blocks, inodes: 1) else { throw SystemCallError(errno: .noSpace, call: call) }
        let undo: (() -> Void)?
        do {
            undo = try chargeEntry(entry(), in: budget, call: call)
        } catch {
            budget.giveBack(blocks: blocks, inodes: 1)
            throw error
        }
        do {
            let result = try body()
            if item == .folder, let made = try? status() {
                budget.noteNewFolder(device: made.device, inode: made.inode)
            }
            return result
        } catch {
            undo?()
            budget.giveBack(blocks: blocks, inodes: 1)
            throw error
        }
    }

    /// A name about to be put in a folder: the folder's descriptor (or `AT_FDCWD`) and the
    /// name's bytes relative to it, as the call has them.
    package struct BudgetEntry {
        package var directory: Int32
        package var name: [UInt8]

        package init(directory: Int32, name: [UInt8]) {
            self.directory = directory
            self.name = name
        }
    }

    /// Takes the blocks by which putting `entry` in its folder grows the folder (see
    /// the library's model of folder growth); `ENOSPC` when they are not available. `nil` when the folder cannot be
    /// found (the call then fails on its own).
    private static func chargeEntry(_ entry: BudgetEntry, in budget: any BudgetAccounting, call: String) throws -> (() -> Void)? {
        var bytes = entry.name
        while bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        let slash = bytes.lastIndex(of: UInt8(ascii: "/"))
        let nameLength = slash.map { bytes.count - $0 - 1 } ?? bytes.count
        let parent = slash.map { $0 == 0 ? RawPath(bytes: [UInt8(ascii: "/")]) : RawPath(bytes: Array(bytes[..<$0])) }
            ?? RawPath(bytes: [UInt8(ascii: ".")])
        guard let folder = try? fstatat(entry.directory, parent, followingLinks: true), folder.kind == .folder else { return nil }
        let undo = budget.addEntry(nameLength: nameLength, toFolder: folder.device, inode: folder.inode) {
            // The folder as the budget first meets it: the names in it now (`nil`: not readable).
            guard let fd = try? openat(entry.directory, parent, folderReadOnly), let stream = try? DirectoryStream(adopting: fd) else {
                return nil
            }
            var lengths: [Int] = []
            do {
                try stream.forEachEntry { entry in
                    lengths.append(entry.nameLength)
                    return true
                }
            } catch {
                return nil
            }
            return lengths
        }
        guard let undo else { throw SystemCallError(errno: .noSpace, call: call) }
        return undo
    }

    /// Runs `body`, which removes the name of the item `status` describes, and gives back what
    /// the item took when that was its last name.
    @inline(__always)
    package static func budgeted<T>(removing status: () throws -> FileStatus, _ body: () throws -> T) throws -> T {
        guard let budget = BudgetSeam.current else { return try body() }
        let removed = try? status()
        let result = try body()
        if let removed {
            let credit = budget.credit(forRemoving: removed)
            budget.giveBack(blocks: credit.blocks, inodes: credit.inodes)
        }
        return result
    }

    /// Runs `body`, a rename of the item `source` describes over the one `target` describes (if
    /// any), and gives back what the replaced item took (nothing when both names are links to
    /// one item: the rename then changes nothing). Where there is no item at the target, its
    /// name (`entry`) is put in the target's folder first, taking the blocks by which that
    /// folder grows (`ENOSPC`, naming `call`, when they are not available): a rename needs
    /// room in a full folder.
    @inline(__always)
    package static func budgeted<T>(renaming source: () throws -> FileStatus, over target: () throws -> FileStatus, call: String,
                            entry: () -> BudgetEntry, _ body: () throws -> T) throws -> T {
        guard let budget = BudgetSeam.current else { return try body() }
        let replaced = try? target()
        let moved = replaced == nil ? nil : try? source()
        let undo = replaced == nil ? try chargeEntry(entry(), in: budget, call: call) : nil
        let result: T
        do {
            result = try body()
        } catch {
            undo?()
            throw error
        }
        if let replaced, !(moved?.device == replaced.device && moved?.inode == replaced.inode) {
            let credit = budget.credit(forRemoving: replaced)
            budget.giveBack(blocks: credit.blocks, inodes: credit.inodes)
        }
        return result
    }

    /// Runs `body`, which opens an unnamed file (`O_TMPFILE`): an inode is taken first, and the
    /// file is noted so that closing it gives back what it took.
    package static func budgeted(openingUnnamed call: String, _ body: () throws -> Int32) throws -> Int32 {
        guard let budget = BudgetSeam.current else { return try body() }
        guard budget.take(blocks: 0, inodes: 1) else { throw SystemCallError(errno: .noSpace, call: call) }
        let fd: Int32
        do {
            fd = try body()
        } catch {
            budget.giveBack(blocks: 0, inodes: 1)
            throw error
        }
        if let status = try? fstat(fd) { budget.noteUnnamedFile(fd, device: status.device, inode: status.inode) }
        return fd
    }

    /// Before `fd` is closed: an unnamed file's blocks and inode go back to the budget.
    @inline(__always)
    package static func budgetedClose(_ fd: Int32) {
        guard let budget = BudgetSeam.current, budget.hasUnnamedFiles, let noted = budget.forgetUnnamedFile(fd),
              let status = try? fstat(fd), status.device == noted.device, status.inode == noted.inode,
              status.linkCount == 0 else { return }
        budget.giveBack(blocks: budget.blocks(forSize: status.size), inodes: 1)
    }

    /// The figures of a volume as the budget in force has them, else as the system gave them.
    @inline(__always)
    package static func budgeted(_ figures: SpaceFigures) -> SpaceFigures {
        BudgetSeam.current?.spaceFigures ?? figures
    }
}
