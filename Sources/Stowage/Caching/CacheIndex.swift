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
/// | 5 | the check word of words 1 to 4 |
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
/// **Damage from outside is rebuilt, never fatal.** The file is Stowage's, but a backup restore,
/// a cleaning tool or a person can cut it short, write over it or put something else at its name
/// while caches use it:
/// - *Cut short* (to 0 bytes, say): a load from a mapped page the file no longer reaches would
///   end the process with `SIGBUS`; every load is guarded instead (``SharedMapping``: a `SIGBUS`
///   handler and a jump point per thread, about 30 ns a load, where an `fstat` before each
///   would cost about 0.5 µs and still leave a window), and a faulted load reads as a damaged
///   index. On Apple platforms the index is read with `pread` instead of mapped, which cannot fault.
///   Bytes past a shorter file's end on its last page read as zeros: damaged too.
/// - *Written over*: words are taken only when they are an index's (``Words/isValid``: the magic,
///   the check word, a state of 0 or 1, totals a folder can have), looked at up to three times (a
///   read torn by a change writing at that moment passes the next time).
/// - While damaged, ``generation`` is a new random value at each load (no memory tier trusts
///   anything), ``settledTotals`` rebuilds the index first (so ``DiskCache/count`` and
///   ``DiskCache/allocatedBytes`` are the folder's, never negative), and the next change measures
///   the folder and writes the index whole again (a file cut short grows back).
/// - *Something else at its name*: what holds no data (a link, never followed; a FIFO, never
///   blocking the open; a socket or device node; an empty folder; a second name of another file)
///   is removed through ``Removal/removeIfHoldingNoData(_:in:)`` and the index made again; a folder
///   with entries is refused with ``StowageError/Code/wrongKind`` naming the index's path.
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
    static let magic: UInt64 = 0x3230_5844_4943_5753  // "SWCIDX02", little endian
    private static let wordCount = 8
    private enum Word: Int { case magic = 0, state, allocated, count, generation, check }

    /// The totals of the entries.
    struct Totals: Equatable {
        var allocatedBytes: Int64
        var count: Int
    }

    private let lock = NSLock()
    private var file: OpenFile
    private var identity: (device: UInt64, inode: UInt64)
    /// The cache's folder, as errors name it.
    private let folderPath: String
    /// Opens the cache's folder again (made again if removed) and measures its entries: the
    /// rebuild a damaged index gets when its totals are asked for.
    private let reopen: @Sendable () throws -> OpenFile
    private let measure: @Sendable (OpenFile) throws -> Totals

    private let mappingLock = NSLock()
    private var currentMapping: SharedMapping
    private var mapping: SharedMapping {
        get { mappingLock.withLock { currentMapping } }
        set { mappingLock.withLock { currentMapping = newValue } }
    }

    /// Opens the index of the folder `root` (named `folderPath` in errors; making the index if
    /// missing, and clearing its name of anything that holds no data) and settles it: a missing,
    /// damaged or unsettled index is rebuilt by `measure` (a process that stopped in the middle of
    /// a change). `reopen` opens the folder again, for a rebuild asked for by ``settledTotals``.
    init(in root: OpenFile, folderPath: String, reopen: @escaping @Sendable () throws -> OpenFile,
         measure: @escaping @Sendable (OpenFile) throws -> Totals) throws {
        self.folderPath = folderPath
        self.reopen = reopen
        self.measure = measure
        (file, currentMapping, identity) = try Self.open(in: root, folderPath: folderPath)
        // A settled index is left as it is: opening a cache is no change (the generation stays,
        // and other instances keep their memory tiers).
        if let words = validWords, words.state == 0 { return }
        try change(in: root, measure: { try measure(root) }) { _ in }
    }

    /// Opens the index file of `root`, making it (or making it long enough) under its lock.
    ///
    /// Anything else at its name (a link, a FIFO, a socket, a device node, an empty folder, a
    /// second name of another file) holds no data of anyone's and is removed through the removal
    /// walk's rule (``Removal/removeIfHoldingNoData(_:in:)``); a folder with entries is refused
    /// with ``StowageError/Code/wrongKind`` naming the index's path. The name is opened with
    /// `O_NOFOLLOW` (a link put there meanwhile is refused, never followed) and `O_NONBLOCK` (a FIFO
    /// never blocks the open), and looked at again once open.
    private static func open(in root: OpenFile, folderPath: String) throws -> (OpenFile, SharedMapping, (device: UInt64, inode: UInt64)) {
        let path = folderPath + "/" + name
        for _ in 0..<4 {
            do {
                if try !Removal.removeIfHoldingNoData(name, in: root), try root.statusIfPresent(of: name)?.kind != .file {
                    throw StowageError(.wrongKind, operation: .cache, path: path,
                                       reason: "a folder with entries is where the cache's index belongs; Stowage removes "
                                           + "only what holds no data there: move it away")
                }
            } catch let error as SystemCallError {
                throw StowageError(error, operation: .cache, path: path)  // what is in the way could not be removed
            }
            let file: OpenFile
            do {
                file = try root.open(name, flags: Sys.readWriteCreate | Sys.noFollow | Sys.nonBlocking)
            } catch Errno.tooManySymbolicLinkLevels, Errno.isFolder, Errno.noDeviceOrAddress {
                continue  // something else was put there since it was cleared: clear it again
            }
            var status = try file.status()
            // Not a regular file, or a hard link to a file elsewhere (whose bytes the index would write).
            guard status.kind == .file, status.linkCount <= 1 else { continue }
            if status.size < Int64(wordCount * 8) {
                // Zeros, written (not a sparse `ftruncate`: its blocks are allocated now, where a full
                // volume is an error): no magic, so the first change rebuilds it.
                try file.lock(exclusive: true)
                defer { file.unlock() }
                status = try file.status()
                if status.size < Int64(wordCount * 8) {
                    try file.writeAll(Data(count: wordCount * 8 - Int(status.size)), at: status.size)
                }
            }
            return (file, try SharedMapping(file, words: wordCount), (status.device, status.inode))
        }
        // Replaced four times in a row while we cleared it: someone keeps putting things there.
        throw StowageError(.busy, operation: .cache, path: path,
                           reason: "something else keeps appearing where the cache's index belongs")
    }

    /// The index's words as one load saw them.
    struct Words {
        var magic, state, allocated, count, generation, check: UInt64

        /// Whether these are an index's words: the magic number, the check word of the four
        /// after it, a state of 0 or 1, and totals a folder can have (not negative, whole 512-byte
        /// units as `st_blocks` counts). Anything else (bytes written over the file, a read torn
        /// by a change writing at that moment) is no index.
        var isValid: Bool {
            magic == CacheIndex.magic && check == CacheIndex.check(state, allocated, count, generation) && state <= 1
                && Int64(bitPattern: allocated) >= 0 && allocated % 512 == 0 && Int64(bitPattern: count) >= 0
        }

        var totals: Totals { Totals(allocatedBytes: Int64(bitPattern: allocated), count: Int(truncatingIfNeeded: count)) }
    }

    /// The check word of words 1 to 4: a 64-bit mix (SplitMix64's finaliser), so that random
    /// bytes pass for an index once in 2⁶⁴, not once in a few thousand as plausibility alone would.
    private static func check(_ words: UInt64...) -> UInt64 {
        var mixed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for word in words {
            mixed = (mixed ^ word) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            mixed ^= mixed >> 31
        }
        return mixed
    }

    /// The words now, or `nil` when the file was cut short below them (``SharedMapping``).
    private var words: Words? {
        mapping.load(6) { words in
            words.map { Words(magic: $0[0], state: $0[1], allocated: $0[2], count: $0[3], generation: $0[4], check: $0[5]) }
        }
    }

    /// Valid words, looked at up to three times (a read torn by a change writing at that moment
    /// is gone the next time); `nil` for an index cut short or damaged.
    private var validWords: Words? {
        for _ in 0..<3 {
            if let words, words.isValid { return words }
        }
        return nil
    }

    /// The generation: it changes with every change to the folder made by any instance. While
    /// the index is damaged (cut short, overwritten), a new random value at each call, so that
    /// no memory tier trusts anything until a change rebuilds it.
    var generation: UInt64 {
        guard let words = validWords else { return UInt64.random(in: .min ... .max) }
        return words.generation
    }

    /// The totals the last change left (without waiting for a change under way); never negative.
    /// A damaged index (cut short, overwritten) is rebuilt first, as the next change would: one
    /// walk of the folder. Should that fail too (the folder cannot be read), zeros: best effort,
    /// for a figure that cannot throw; the next change tries again.
    var settledTotals: Totals {
        if let words = validWords { return words.totals }
        do {
            let root = try reopen()
            return try change(in: root, measure: { try measure(root) }) { $0 }.result
        } catch {
            return Totals(allocatedBytes: 0, count: 0)
        }
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
            let words = validWords  // cut short or damaged: rebuilt
            let settled = words?.state == 0
            let before = words?.generation ?? UInt64.random(in: .min ... .max)
            var totals = settled ? words!.totals : Totals(allocatedBytes: 0, count: 0)
            // The state and the first move of the generation at once (words 1 to 4).
            try write(magic: false, state: 1, totals, generation: before &+ 1)
            if !settled { totals = try measure() }
            try FaultPoint.cacheChanging.reach()
            let result = try body(&totals)
            let after = before &+ 2
            // One write of the settled index: a process is not stopped in the middle of copying
            // 40 bytes into the page cache, and readers without the lock load the generation only.
            try write(magic: true, state: 0, totals, generation: after)
            return (result, before, after)
        }
    }

    /// Writes words 1 to 5 (the state, the totals, the generation and their check word) into
    /// the index file in one `pwrite`, and word 0 with them when `magic` (little endian, as the
    /// words are read on every platform Stowage runs on). Called with `lock` held.
    private func write(magic: Bool, state: UInt64, _ totals: Totals, generation: UInt64) throws {
        let (allocated, count) = (UInt64(bitPattern: totals.allocatedBytes), UInt64(truncatingIfNeeded: totals.count))
        var bytes = Data()
        for value in (magic ? [Self.magic] : []) + [state, allocated, count, generation, Self.check(state, allocated, count, generation)] {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        try file.writeAll(bytes, at: Int64((magic ? Word.magic : Word.state).rawValue * 8))
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
            (file, mapping, identity) = try Self.open(in: root, folderPath: folderPath)
        }
        // Replaced eight times in a row while we tried: someone keeps removing it.
        throw SystemCallError(errno: .busy, call: "flock")
    }
}
