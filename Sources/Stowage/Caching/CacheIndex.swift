import Foundation

/// The totals of a cache's folder (the entries' allocated bytes and their number), shared by
/// every ``DiskCache`` on that folder in every process, so that a limit holds whoever writes.
///
/// The index is the file `.stowage-cache-index` in the cache's folder: eight 64-bit words,
/// written with `pwrite` under the lock and mapped read-only into each instance's memory with
/// `MAP_SHARED` (``SharedMapping``), so every process sees the same words at once:
///
/// | Word | Holds |
/// |---|---|
/// | 0 | the magic number (anything else: the index is rebuilt) |
/// | 1 | the state: 0 when the totals are settled, 1 while a change is under way |
/// | 2 | the entries' allocated bytes |
/// | 3 | the number of entries |
/// | 4 | the generation: one more after every change, by any instance |
///
/// **Why the totals stay right.** Every change (a write, a removal, an eviction) runs inside
/// ``change(in:measure:_:)``, which holds an exclusive `flock` on the index file for the whole
/// change, so changes by all instances in all processes happen one at a time, each starting from
/// the totals the previous one left. Within one instance a lock serialises its threads too (they
/// share one descriptor, and `flock` does not tell them apart). A change first sets the state to
/// 1, and sets it back to 0 only after it stored the new totals; a process killed in between
/// (the kernel then drops its `flock`) leaves state 1, and whoever takes the lock next measures
/// the folder again before changing anything. A change that throws leaves state 1 the same way.
/// So whenever the lock is free and the state is 0, the totals are those of the folder's entries.
///
/// **What it costs.** A change: `flock` and its release, one `fstatat` (is this still the folder's
/// index?) and two `pwrite`s (the state, then the settled words at once); an eviction reads the
/// folder once (the index gives the totals a sweep would otherwise walk the folder for), a
/// rebuild once. A read takes no lock:
/// an atomic load of the generation tells a ``DiskCache`` whether its memory tier is still good.
///
/// Files added to the folder by anything but a ``DiskCache`` are not counted until the next
/// rebuild; entries removed behind the caches' backs make the totals high until the next
/// eviction measures the folder, which errs on the side of the limit.
///
/// `@unchecked Sendable`: `file` and `identity` are read and replaced only while `lock` is held;
/// `currentMapping` and `sweeps` only while `mappingLock` is held (for no more than copying the reference, so
/// readers never wait for a change), and its words are loaded and stored atomically.
final class CacheIndex: @unchecked Sendable {
    /// The index file's name.
    static let name = RelativePath.reservedPrefix + "cache-index"
    private static let magic: UInt64 = 0x3130_5844_4943_5753  // "SWCIDX01", little endian
    private static let wordCount = 8
    private enum Word: Int { case magic = 0, state, allocated, count, generation }

    /// The totals of the entries.
    struct Totals: Equatable {
        var allocatedBytes: Int64
        var count: Int
    }

    private let lock = NSLock()
    private var file: OpenFile
    private var identity: (device: UInt64, inode: UInt64)

    private let mappingLock = NSLock()
    private var currentMapping: SharedMapping
    private var mapping: SharedMapping {
        get { mappingLock.withLock { currentMapping } }
        set { mappingLock.withLock { currentMapping = newValue } }
    }

    /// Opens the index of the folder `root` (making it if missing) and settles it: a missing, damaged
    /// or unsettled index is rebuilt by `measure` (a process that stopped in the middle of a change).
    init(in root: OpenFile, measure: () throws -> Totals) throws {
        (file, currentMapping, identity) = try Self.open(in: root)
        // A settled index is left as it is: opening a cache is no change (the generation stays,
        // and other instances keep their memory tiers).
        let mapping = self.mapping
        if mapping.load(Word.magic.rawValue) != Self.magic || mapping.load(Word.state.rawValue) != 0 {
            try change(in: root, measure: measure) { _ in }
        }
    }

    /// Opens the index file of `root`, making it (or making it long enough) under its lock.
    private static func open(in root: OpenFile) throws -> (OpenFile, SharedMapping, (device: UInt64, inode: UInt64)) {
        // O_NOFOLLOW: a link in its place is refused (ELOOP); O_NONBLOCK: a FIFO never blocks the open.
        let file = try root.open(name, flags: Sys.readWriteCreate | Sys.noFollow | Sys.nonBlocking)
        var status = try file.status()
        // Not a regular file, or a hard link to a file elsewhere (whose bytes the index would write): refused.
        guard status.kind == .file, status.linkCount <= 1 else { throw SystemCallError(errno: .invalidArgument, call: "open") }
        if status.size < Int64(wordCount * 8) {
            // Zeros, written (not a sparse `ftruncate`: its blocks are allocated now, where a full
            // volume is an error): no magic, so the first change rebuilds it. Only ever made
            // longer: a mapping past the end of a shorter file would fault.
            try file.lock(exclusive: true)
            defer { file.unlock() }
            status = try file.status()
            if status.size < Int64(wordCount * 8) {
                try file.writeAll(Data(count: wordCount * 8 - Int(status.size)), at: status.size)
            }
        }
        return (file, try SharedMapping(file, words: wordCount), (status.device, status.inode))
    }

    /// The generation: it changes with every change to the folder made by any instance.
    var generation: UInt64 {
        mapping.load(Word.generation.rawValue)
    }

    /// The totals the last change left (without waiting for a change under way).
    var settledTotals: Totals {
        let mapping = self.mapping
        return Totals(allocatedBytes: Int64(bitPattern: mapping.load(Word.allocated.rawValue)),
                      count: Int(truncatingIfNeeded: mapping.load(Word.count.rawValue)))
    }

    /// Whether the folder `root` still holds the index file this instance maps.
    func isCurrent(in root: OpenFile) throws -> Bool {
        let identity = lock.withLock { self.identity }
        guard let status = try root.statusIfPresent(of: Self.name) else { return false }
        return status.device == identity.device && status.inode == identity.inode
    }

    /// How many evictions this instance made.
    var sweepCount: Int { mappingLock.withLock { sweeps } }
    private var sweeps = 0

    /// Counts one eviction by this instance.
    func noteSweep() { mappingLock.withLock { sweeps += 1 } }

    /// Runs `body`, a change to the folder `root`, alone among every instance in every process,
    /// with the current totals to update; measures the folder first when the index is not settled.
    /// Returns what `body` returned and the generation it left.
    ///
    /// When `body` throws, the index stays unsettled, to be measured by the next change.
    ///
    /// The generation moves on twice: when the change begins (so that a change that fails or is
    /// killed after it put something in place still tells every memory tier), and when it ends (so
    /// that a read made while it ran is never kept as current). An index without its magic (new,
    /// or made again with the folder) starts from a random generation, never one an instance may
    /// have seen on the file it replaces.
    @discardableResult
    func change<Result>(in root: OpenFile, measure: () throws -> Totals,
                        _ body: (inout Totals) throws -> Result) throws -> (result: Result, before: UInt64, after: UInt64) {
        try lock.withLock {
            try lockCurrentFile(in: root)
            defer { file.unlock() }
            let mapping = self.mapping
            let hasMagic = mapping.load(Word.magic.rawValue) == Self.magic
            let settled = hasMagic && mapping.load(Word.state.rawValue) == 0
            let before = hasMagic ? mapping.load(Word.generation.rawValue) : UInt64.random(in: .min ... .max)
            var totals = settled ? Totals(allocatedBytes: Int64(bitPattern: mapping.load(Word.allocated.rawValue)),
                                          count: Int(truncatingIfNeeded: mapping.load(Word.count.rawValue)))
                                 : Totals(allocatedBytes: 0, count: 0)
            // The state and the first move of the generation at once (words 1 to 4).
            try write([1, UInt64(bitPattern: totals.allocatedBytes), UInt64(truncatingIfNeeded: totals.count), before &+ 1],
                      at: .state)
            if !settled { totals = try measure() }
            try FaultPoint.cacheChanging.reach()
            let result = try body(&totals)
            let after = before &+ 2
            // One write of the settled index: a process is not stopped in the middle of copying
            // 40 bytes into the page cache, and readers without the lock load the generation only.
            try write([Self.magic, 0, UInt64(bitPattern: totals.allocatedBytes), UInt64(truncatingIfNeeded: totals.count),
                       after], at: .magic)
            return (result, before, after)
        }
    }

    /// Writes `words` into the index file from `word` on (little endian, as the words are read
    /// on every platform Stowage runs on). Called with `lock` held.
    private func write(_ words: [UInt64], at word: Word) throws {
        var bytes = Data()
        for value in words { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        try file.writeAll(bytes, at: Int64(word.rawValue * 8))
    }

    /// Takes the `flock` of the folder's index file, opening it again first when the folder's
    /// entry is no longer the file this instance holds (the folder was cleared or made again:
    /// a lock on a removed file would guard nothing another process sees). Called with `lock` held.
    private func lockCurrentFile(in root: OpenFile) throws {
        for _ in 0..<8 {
            try file.lock(exclusive: true)
            if let status = try root.statusIfPresent(of: Self.name),
               status.device == identity.device && status.inode == identity.inode {
                return
            }
            file.unlock()
            (file, mapping, identity) = try Self.open(in: root)
        }
        // Replaced eight times in a row while we tried: someone keeps removing it.
        throw SystemCallError(errno: .busy, call: "flock")
    }
}
