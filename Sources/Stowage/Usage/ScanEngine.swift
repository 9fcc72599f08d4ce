import Dispatch
import Foundation

/// The parallel walk behind ``UsageScanner``.
///
/// Workers share a stack of folders to read. The scan starts on the calling thread alone; more
/// workers (up to ``UsageOptions/threads``) start only once the stack holds more folders than the
/// running ones can take (``foldersPerWorker`` each), so a small tree (an app's container, a
/// few hundred entries) pays for no thread at all. Each worker reads a folder with `readdir`,
/// `fstatat`s every entry by its C name (no per-entry allocation: a name is copied only for a
/// sub-folder, a breakdown item or a file that enters the largest), adds the folder's sizes to
/// its own accumulator once per folder, and pushes sub-folders for any worker to take.
/// Accumulators are merged at the end.
/// Memory holds the pending folders, the breakdown items and the top-N lists, not one record per
/// file; only files with several hard links are remembered, to count them once, and, when
/// several roots are scanned (or links followed), every folder, so that roots that overlap count
/// each folder and file once, as `du` does across its arguments.
///
/// Names stay bytes from `readdir` to the report (``RawPath``, ``UsageItem/pathBytes``): a name
/// that is not UTF-8 is never turned into another name.
///
/// Made with `buildsNameTree`, the walk makes no breakdown item: it builds the tree of names
/// instead (``UsageNameTree``). A worker gathers a folder's entries (name bytes, own figures)
/// in buffers of its own and appends them to the shared tree in one step, under the lock it takes
/// anyway to push the folder's sub-folders: the entries' indices are known then, and each
/// sub-folder carries its own (``Work/node``) to its children. No path is made per entry, only
/// per folder (to open it past the descriptor budget), as without the tree. A wide folder is
/// shared as without the tree (``shareEvery``), and its children stay one range: each worker
/// leaves its part (nodes, names, sub-folders) in the folder's ``SharedFolder``, and the last part
/// in appends them all in one step and only then pushes the sub-folders, whose nodes are known
/// from then on (their descriptors count against the budget while they wait). The tree is
/// gathered in chunks (``ChunkedStore``): no growth copies it, nor holds it twice, and the tree
/// keeps the nodes' chunks (only the names are made one array when the walk is done).
///
/// `@unchecked Sendable`: every mutable field below is read and written only while `condition`
/// is locked; per-worker state lives in each worker's own `Accumulator`.
final class ScanEngine: @unchecked Sendable {
    struct Work {
        /// The folder's absolute path, as bytes.
        var path: RawPath
        /// The folder already opened by `openat` on its parent, when the descriptor budget
        /// allowed; otherwise the folder is opened by path.
        var descriptor: Int32?
        /// How many bytes of ``path`` are the root's: the rest is the path below the root.
        var rootLength: Int
        var root: Int
        var depth: Int
        /// Breakdown items this folder's contents count towards (its ancestors down to the depth).
        var items: [Int]
        var rootDevice: UInt64
        /// The folder's node in the tree of names (``buildsNameTree``); -1 otherwise.
        var node: Int32 = -1
        /// Entries of this folder that the worker reading it handed over (``SharedEntries``), to
        /// be examined instead of reading the folder; `nil` for a folder to read.
        var shared: SharedEntries?
    }

    struct Accumulator {
        var roots: [UsageTotals]
        var items: [Int: UsageTotals] = [:]
        var largest: LargestFiles
        var entries = 0
        var allocated: Int64 = 0
        /// The tree of names (``buildsNameTree``): the folder being read's entries, their names one
        /// after the other, and which of them each sub-folder is; emptied for each folder, their
        /// room kept, so that a folder costs no allocation of its own.
        var folderEntries: [UsageNameTree.Node] = []
        var folderNames = NameBytes()
        /// The sub-folders of the folder being read, pushed together at its end (in the tree of
        /// names, each ``Work/node`` its index in ``folderEntries`` until then); emptied for each
        /// folder, its room kept.
        var subfolders: [Work] = []

        /// Gives the room of the folder buffers back (``ScanEngine/keptRoom``).
        mutating func releaseRoom() {
            folderEntries = []
            folderNames = NameBytes()
            subfolders = []
        }
    }

    let options: UsageOptions
    /// Whether the walk builds the tree of names (``takeNameTree(report:)``) instead of breakdown items.
    let buildsNameTree: Bool
    private let condition = NSCondition()
    // `@exclusivity(unchecked)` below: fields changed many times a folder, only under `condition`
    // and never by an access that overlaps another on the same thread, whose run-time check (the
    // only one there: it never sees other threads) cost more than the appends it guarded.
    @exclusivity(unchecked) private var pending: [Work] = []
    private var busy = 0
    /// Workers waiting for work.
    private var waiting = 0
    private var cancelled = false
    /// What has been counted, by identity, with the root that counted it: files with several
    /// hard links, files given as roots, and, when ``tracksFolders``, every folder.
    private var counted: [FileIdentity: Int] = [:]
    private var hardLinksSkipped = 0
    /// Whether every folder is remembered: when links are followed (a folder may be reached
    /// twice, and link loops must end) and when several roots are scanned (they may overlap).
    private var tracksFolders = false
    /// The identities of the roots that are not folders, when several roots are scanned: a file
    /// inside a folder root may be one of them. Set before the walk, then only read.
    private var rootFiles = Set<FileIdentity>()
    /// For each root, the earlier root that counted it whole, if one did.
    private var countedIn: [Int?] = []
    private var items: [UsageItem] = []
    /// The tree of names (``buildsNameTree``): the roots first, then each folder's entries as
    /// they are read, with their own figures (``UsageNameTree/init(walked:names:report:)`` adds them up);
    /// in chunks (256 KB of nodes, 64 KB of names); the tree takes the nodes' chunks over, and the
    /// names are made one array once the walk is done.
    @exclusivity(unchecked) private var treeNodes = ChunkedStore<UsageNameTree.Node>(chunkShift: UsageNameTree.nodeChunkShift)
    @exclusivity(unchecked) private var treeNames = ChunkedStore<UInt8>(chunkShift: 16)
    private var issues: [UsageIssue] = []
    private var merged: [Accumulator] = []
    /// Workers started besides the calling thread, and those of them still running.
    private var helpers = 0
    private var runningHelpers = 0
    /// The most helpers this scan may start (``UsageOptions/threads`` less the calling thread).
    private var maximumHelpers = 0
    /// Folders waiting per running worker before another worker starts: a folder of a few dozen
    /// entries takes tens of microseconds, about what starting a thread costs.
    static let foldersPerWorker = 8
    /// Descriptors held by pending work; kept under a budget far below the descriptor limit.
    private var openPending = 0
    private static let descriptorBudget = 256
    private var progressEntries = 0
    private var progressAllocated: Int64 = 0
    #if DEBUG
    /// The probe in force where the engine was made, which counts the batches shared (the
    /// workers' threads do not carry the task's).
    private let probe = TestProbe.current
    #endif

    /// An engine for one scan, building the tree of names instead of breakdown items when
    /// `buildsNameTree`. Created in the task that asks for the scan (which counts it,
    /// in debug builds, see `TestProbe`), even when `run` then runs on another thread.
    init(options: UsageOptions, buildsNameTree: Bool = false) {
        self.options = options
        self.buildsNameTree = buildsNameTree
        #if DEBUG
        TestProbe.record(.usageScan)
        #endif
    }

    /// Stops the scan soon; `run` then returns what it has (callers treat it as cancelled).
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    var isCancelled: Bool { condition.withLock { cancelled } }

    /// Where progress goes while ``run(roots:)`` runs (the async scan sets it; see
    /// ``LongRunningWork``). Set before `run`, never during.
    var reporter: ProgressReporter?

    /// Scans `roots` (absolute paths) and returns the report. Blocks until done, or until
    /// cancelled: the report then holds what was counted and says it was cancelled.
    func run(roots: [String]) -> UsageReport {
        var rootTotals = roots.map { UsageTotals(path: $0) }
        countedIn = Array(repeating: nil, count: roots.count)
        tracksFolders = options.followsSymbolicLinks || roots.count > 1
        if roots.count > 1 {
            for root in roots {
                let status = try? options.followsSymbolicLinks ? Sys.stat(root) : Sys.lstat(root)  // best effort: startRoot reports the error
                if let status, status.kind != .folder { rootFiles.insert(FileIdentity(device: status.device, inode: status.inode)) }
            }
        }
        if buildsNameTree {
            for root in roots {
                let bytes = RawPath(root).bytes
                treeNodes.append(contentsOf: [UsageNameTree.Node(nameStart: treeNames.count, nameCount: Int32(bytes.count), parentIndex: -1,
                                                                 logicalBytes: 0, allocatedBytes: 0, fileCount: 0, seconds: .min, isFolder: false)])
                treeNames.append(contentsOf: bytes)
            }
        }
        var seed = Accumulator(roots: rootTotals, largest: LargestFiles(limit: options.largestFileCount, byLogical: options.ranksByLogicalSize))
        let threads = max(1, options.threads ?? max(2, ProcessInfo.processInfo.activeProcessorCount))
        maximumHelpers = threads - 1
        // One root after the other, as du does, so a file hard-linked into two roots belongs to
        // the first; the folders of each root are read on this thread, and on more once there
        // are enough of them (see `offer`).
        for (index, root) in roots.enumerated() where !isCancelled {
            condition.withLock { startRoot(root, index: index, into: &seed) }
            work(roots: roots.count)
            condition.withLock {
                while runningHelpers > 0 { condition.wait() }
                helpers = 0
            }
        }
        closeLeftovers()
        if let reporter {  // the final figures, however short the scan
            let (entries, allocated) = condition.withLock { (progressEntries, progressAllocated) }
            reporter.report(.scanning, items: entries, bytes: allocated)
        }

        var largest = seed.largest
        var itemTotals = seed.items
        for accumulator in merged {
            for (index, totals) in accumulator.roots.enumerated() { rootTotals[index].add(totals) }
            largest.merge(accumulator.largest)
            for (item, totals) in accumulator.items { itemTotals[item, default: UsageTotals()].add(totals) }
        }
        for (index, totals) in seed.roots.enumerated() { rootTotals[index].add(totals) }
        for (index, owner) in countedIn.enumerated() { rootTotals[index].alreadyCountedIn = owner.map { roots[$0] } }
        var total = UsageTotals()
        for totals in rootTotals { total.add(totals) }
        // Taken out, not copied: the items are most of a large scan's memory.
        var breakdown = condition.withLock { () -> [UsageItem] in
            defer { items = [] }
            return items
        }
        for (index, totals) in itemTotals where breakdown[index].isFolder {
            breakdown[index].logicalBytes += totals.logicalBytes
            breakdown[index].allocatedBytes += totals.allocatedBytes
            breakdown[index].fileCount += totals.fileCount
        }
        let byLogical = options.ranksByLogicalSize
        breakdown.sort { byLogical ? $0.logicalBytes > $1.logicalBytes : $0.allocatedBytes > $1.allocatedBytes }
        return UsageReport(roots: rootTotals, totals: total, skippedHardLinkCount: hardLinksSkipped,
                           largestFiles: largest.sorted(), breakdown: breakdown,
                           issues: issues.sorted { RawPath(bytes: $0.pathBytes) < RawPath(bytes: $1.pathBytes) },
                           wasCancelled: isCancelled)
    }

    // MARK: Roots

    private func startRoot(_ root: String, index: Int, into accumulator: inout Accumulator) {
        let status: FileStatus
        do {
            status = options.followsSymbolicLinks ? try Sys.stat(root) : try Sys.lstat(root)
        } catch {
            issues.append(UsageIssue(path: root, error: error))
            return
        }
        // A root counted already (inside an earlier root, or given again) adds nothing, as in du.
        let identity = FileIdentity(device: status.device, inode: status.inode)
        let remembered = status.kind == .folder ? tracksFolders : status.linkCount > 1 || !rootFiles.isEmpty
        if remembered {
            if let owner = counted[identity] {
                countedIn[index] = owner
                if status.kind != .folder && status.linkCount > 1 { hardLinksSkipped += 1 }
                return
            }
            counted[identity] = index
        }
        accumulator.roots[index].add(status)
        if status.kind == .folder {
            let path = RawPath(root)
            pending.append(Work(path: path, descriptor: nil, rootLength: path.bytes.count, root: index, depth: 0, items: [],
                                rootDevice: status.device, node: buildsNameTree ? Int32(index) : -1))
        } else if status.kind == .file {
            accumulator.largest.offer(path: RawPath(root), status: status)
        }
    }

    // MARK: The work stack

    /// Takes folders from the stack until none is left, on the calling thread, with an
    /// accumulator of its own merged at the end.
    private func work(roots: Int) {
        var accumulator = Accumulator(roots: Array(repeating: UsageTotals(), count: roots),
                                      largest: LargestFiles(limit: options.largestFileCount, byLogical: options.ranksByLogicalSize))
        // Progress is offered after this worker's first folder, then once an interval has passed
        // since its last offer (the reporter delivers at most once per interval whatever the
        // workers offer): a folder that reports nothing finishes and takes the next in one lock.
        // DispatchTime, a plain number, rather than ContinuousClock, whose Instant is resilient.
        let reporter = reporter
        let interval = reporter.map { Double($0.interval.components.seconds) + Double($0.interval.components.attoseconds) / 1e18 } ?? 0
        var nextOffer: DispatchTime?
        var budget = 0
        var finishes = false
        while let work = next(finishing: finishes, accumulator: &accumulator, descriptors: &budget) {
            read(work, budget: budget, into: &accumulator)
            var offers = false
            if reporter != nil {
                let now = DispatchTime.now()
                offers = nextOffer.map { !(now < $0) } ?? true
                if offers { nextOffer = now + interval }
            }
            if offers, let reporter {
                let (entries, allocated) = condition.withLock { finish(&accumulator) }
                // From this worker's thread, outside the lock: a handler that cancels stops the
                // scan before this worker takes another folder.
                reporter.report(.scanning, items: entries, bytes: allocated)
            }
            finishes = !offers
        }
        condition.withLock { merged.append(accumulator) }
    }

    /// Starts another worker when the stack holds more folders than the running workers take
    /// (``foldersPerWorker`` each) and the scan may have one more. Called with `condition` locked.
    private func startHelperIfWanted(roots: Int) {
        guard helpers < maximumHelpers, pending.count > Self.foldersPerWorker * (helpers + 1), !cancelled else { return }
        startHelper(roots: roots)
    }

    /// Starts another worker. Called with `condition` locked.
    private func startHelper(roots: Int) {
        helpers += 1
        runningHelpers += 1
        Thread { [self] in
            work(roots: roots)
            condition.withLock {
                runningHelpers -= 1
                condition.broadcast()
            }
        }.start()
    }

    /// The next folder to read, with in `descriptors` how many descriptors its sub-folders may
    /// hold (the budget less those pending work holds); `nil` when none is left. With
    /// `finishing`, the folder this worker read is finished first (``finish(_:)``), in the same
    /// lock.
    private func next(finishing: Bool, accumulator: inout Accumulator, descriptors: inout Int) -> Work? {
        condition.lock()
        defer { condition.unlock() }
        if finishing { _ = finish(&accumulator) }
        while pending.isEmpty && busy > 0 && !cancelled {
            waiting += 1
            condition.wait()
            waiting -= 1
        }
        if cancelled || pending.isEmpty {
            condition.broadcast()
            return nil
        }
        busy += 1
        let work = pending.removeLast()
        if work.descriptor != nil { openPending -= 1 }
        descriptors = max(0, Self.descriptorBudget - openPending)
        return work
    }

    /// Closes the descriptors of work left over after a cancelled scan. A shared folder's batch
    /// left unexamined is its folder's last part all the same (with no entry), so that the
    /// entries its other parts hold join the tree, and their sub-folders are closed with the rest.
    private func closeLeftovers() {
        condition.withLock {
            let left = pending
            pending.removeAll()
            for work in left {
                guard let folder = work.shared?.folder else { continue }
                folder.outstanding -= 1
                if folder.outstanding == 0 { assemble(folder, folder: work.node) }
            }
            for work in left + pending { if let fd = work.descriptor { DirectoryStream.discard(fd) } }
            pending.removeAll()
            openPending = 0
        }
    }

    /// Ends this worker's folder: it is no longer busy, and its entries and bytes join the
    /// progress figures, which are returned. Called with `condition` locked.
    private func finish(_ accumulator: inout Accumulator) -> (entries: Int, allocated: Int64) {
        busy -= 1
        progressEntries += accumulator.entries
        progressAllocated += accumulator.allocated
        accumulator.entries = 0
        accumulator.allocated = 0
        condition.broadcast()
        return (progressEntries, progressAllocated)
    }

    // MARK: Reading one folder

    private func read(_ work: Work, budget: Int, into accumulator: inout Accumulator) {
        if let shared = work.shared {
            shared.names.withUnsafeBufferPointer { names in
                var entries = SharedEntries.Cursor(shared: shared, names: names.baseAddress!)
                examine(work, from: &entries, stream: shared.stream, budget: budget, into: &accumulator)
            }
            return
        }
        let follow = options.followsSymbolicLinks
        let stream: DirectoryStream
        do {
            if let fd = work.descriptor {
                stream = try DirectoryStream(adopting: fd)
            } else {
                stream = try DirectoryStream(path: work.path, followingLinks: follow || work.depth == 0)
            }
        } catch let error as SystemCallError {
            record(UsageIssue(pathBytes: work.path.bytes, problem: .unreadable(error)))
            return
        } catch {
            return
        }
        var entries = stream
        examine(work, from: &entries, stream: stream, budget: budget, into: &accumulator)
    }

    /// Examines the entries `source` gives, of the folder of `work` open as `stream`: each is
    /// counted, and its sub-folders pushed. A wide folder read from its stream is shared: every
    /// ``shareEvery`` entries, when nothing is pending, the next ``shareEvery`` are handed over
    /// to the other workers (``SharedEntries``) and this worker goes on with the rest; in the tree
    /// of names, each part of the folder's children is then appended by the last (``SharedFolder``).
    private func examine<Source: EntrySource>(_ work: Work, from source: inout Source, stream: DirectoryStream, budget: Int,
                                              into accumulator: inout Accumulator) {
        let follow = options.followsSymbolicLinks
        var opened = 0
        let childDepth = work.depth + 1
        let listsChildren = !buildsNameTree && childDepth <= options.breakdownDepth
        // Read once per folder, not per entry: the class's own fields cost an exclusivity check
        // at each access.
        let skipsHidden = !options.includesHiddenEntries, excludes = !options.excludedPatterns.isEmpty
        let staysOnDevice = options.staysOnOneFileSystem, tracksFolders = self.tracksFolders, checksRootFiles = !rootFiles.isEmpty
        let buildsTree = buildsNameTree
        // A sub-folder the folder reports as one is opened first and its status read from its
        // descriptor: one name lookup in the kernel instead of two (`fstatat`, then `openat`).
        // Not when links are followed, nor on one file system: opening a mount point (an
        // automount one) mounts it, where `fstatat` only looks.
        let opensFoldersFirst = !follow && !staysOnDevice
        if buildsTree {
            accumulator.folderEntries.removeAll(keepingCapacity: true)
            accumulator.folderNames.count = 0
        }
        accumulator.subfolders.removeAll(keepingCapacity: true)
        // What this folder holds, added to its root and to its breakdown items once, at the end.
        var contents = UsageTotals()
        let shares = work.shared == nil && maximumHelpers > 0
        var untilShareCheck = Self.shareEvery
        // The tree of names' assembly of this folder's children, once a batch is handed over.
        var sharedFolder: SharedFolder?
        do {
            while true {
                // Before the next entry is taken: handing entries over reads on, and an entry's
                // name is valid only until the stream reads again.
                if shares {
                    untilShareCheck -= 1
                    if untilShareCheck == 0 {
                        untilShareCheck = Self.shareEvery
                        try share(from: &source, of: work, stream: stream, roots: accumulator.roots.count, folder: &sharedFolder)
                    }
                }
                guard let entry = try source.nextEntry() else { break }
                let name = entry.name
                if skipsHidden && name[0] == 0x2E { continue }
                if excludes && isExcluded(name, relativeTo: work) { continue }
                var status: FileStatus
                var descriptor: Int32?
                // An entry whose status cannot be read (a link to itself when links are followed:
                // ELOOP) is an issue of its own, as in du; the folder's other entries are counted.
                do {
                    if opensFoldersFirst && entry.isReportedFolder && opened < budget, let fd = stream.openFolder(name, followingLinks: false) {
                        // The status of the folder opened; should that fail, the name's, as for any entry.
                        if let own = try? Sys.fstat(fd) {
                            status = own
                            descriptor = fd
                            opened += 1
                        } else {
                            DirectoryStream.discard(fd)
                            guard let own = try stream.status(of: name, followingLinks: false) else { continue }
                            status = own
                        }
                    } else {
                        guard let found = try stream.status(of: name, followingLinks: follow) else {
                            // Gone since the listing: skipped. Following links, a link that leads
                            // nowhere is not counted either, and is an issue of its own, as du -L
                            // reports it ("cannot access").
                            if follow, let own = try stream.status(of: name, followingLinks: false), case .symbolicLink = own.kind {
                                throw SystemCallError(errno: .noSuchEntry, call: "stat")
                            }
                            continue
                        }
                        status = found
                    }
                } catch {
                    record(UsageIssue(pathBytes: work.path.appending(cName: name, length: entry.nameLength).bytes, error: error))
                    continue
                }
                // Matched, not compared with ==: Kind's == is a call through Equatable's witness.
                let isFolder: Bool, isFile: Bool
                switch status.kind {
                case .folder: (isFolder, isFile) = (true, false)
                case .file: (isFolder, isFile) = (false, true)
                case .symbolicLink, .other: (isFolder, isFile) = (false, false)
                }
                if isFolder {
                    if (staysOnDevice && status.device != work.rootDevice) || (tracksFolders && !claim(status, for: work.root)) {
                        if let descriptor {
                            DirectoryStream.discard(descriptor)
                            opened -= 1  // closed: no longer held against the budget
                        }
                        continue
                    }
                } else if status.linkCount > 1 || (checksRootFiles && rootFiles.contains(FileIdentity(device: status.device, inode: status.inode))) {
                    if !claim(status, for: work.root) { continue }
                }
                contents.add(status)
                if buildsTree {
                    let length = entry.nameLength
                    accumulator.folderEntries.append(UsageNameTree.Node(nameStart: accumulator.folderNames.count, nameCount: Int32(length),
                                                                        parentIndex: work.node, logicalBytes: status.size,
                                                                        allocatedBytes: status.allocatedSize, fileCount: isFile ? 1 : 0,
                                                                        seconds: status.modificationWholeSeconds,
                                                                        isFolder: isFolder))
                    accumulator.folderNames.append(name, count: length)
                }

                guard isFolder || listsChildren || (isFile && accumulator.largest.wouldKeep(status)) else { continue }
                let childPath = work.path.appending(cName: name, length: entry.nameLength)
                var childItems = work.items
                if listsChildren {
                    childItems.append(register(UsageItem(pathBytes: childPath.bytes, depth: childDepth, isFolder: isFolder,
                                                         logicalBytes: status.size, allocatedBytes: status.allocatedSize,
                                                         fileCount: isFile ? 1 : 0,
                                                         modificationDate: Date(timeIntervalSince1970: Double(status.modificationWholeSeconds)),
                                                         hardLink: UsageHardLink(status))))
                }
                if isFile {
                    accumulator.largest.offer(path: childPath, status: status)
                } else if isFolder {
                    if descriptor == nil, opened < budget, let fd = stream.openFolder(name, followingLinks: follow) {
                        descriptor = fd
                        opened += 1
                    }
                    accumulator.subfolders.append(Work(path: childPath, descriptor: descriptor, rootLength: work.rootLength, root: work.root,
                                                       depth: childDepth, items: childItems, rootDevice: work.rootDevice,
                                                       node: buildsTree ? Int32(accumulator.folderEntries.count - 1) : -1))
                }
            }
        } catch {
            record(UsageIssue(pathBytes: work.path.bytes, error: error))
        }
        accumulator.roots[work.root].add(contents)
        accumulator.entries += contents.fileCount + contents.folderCount + contents.symbolicLinkCount + contents.otherCount
        accumulator.allocated += contents.allocatedBytes
        for item in work.items { accumulator.items[item, default: UsageTotals()].add(contents) }
        let assembly = work.shared?.folder ?? sharedFolder
        if assembly != nil || !accumulator.subfolders.isEmpty || !accumulator.folderEntries.isEmpty {
            condition.lock()
            openPending += opened  // sub-folders held in a shared folder's parts count too
            if let assembly {
                // A part of a shared folder's children: the last part in appends them all.
                // Copies of their exact size: the buffers keep their room for the next folder.
                assembly.parts.append(SharedFolder.Part(nodes: accumulator.folderEntries.withUnsafeBufferPointer { Array($0) },
                                                        names: Array(accumulator.folderNames.bytes[..<accumulator.folderNames.count]),
                                                        subfolders: accumulator.subfolders.withUnsafeBufferPointer { Array($0) }))
                assembly.outstanding -= 1
                if assembly.outstanding == 0 { assemble(assembly, folder: work.node) }
            } else if buildsTree {
                let first = treeNodes.count
                appendToTree(&accumulator.folderEntries, names: accumulator.folderNames.bytes[..<accumulator.folderNames.count],
                             subfolders: &accumulator.subfolders)
                setChildren(of: work.node, from: first)
            } else {
                pending.append(contentsOf: accumulator.subfolders)
            }
            startHelperIfWanted(roots: accumulator.roots.count)
            condition.broadcast()
            condition.unlock()
        }
        if accumulator.folderEntries.capacity > Self.keptRoom { accumulator.releaseRoom() }
    }

    /// The most entries of a folder whose room a worker keeps for the next: a wider folder's
    /// (`/usr/share/man/man1`: 17,848 entries, 2 MB of nodes and 1 MB of names as the room
    /// grows) is given back once the folder is appended, not held through the rest of the walk.
    static let keptRoom = 4096

    /// How many entries a worker examines between two looks for a worker to share a wide
    /// folder with, and how many it then hands over: a few hundred `fstatat`s, a fraction of a
    /// millisecond, against tens of microseconds to wake or start a worker.
    static let shareEvery = 256

    /// Hands the next ``shareEvery`` entries of `source` over to the other workers when nothing
    /// is pending: one batch is kept ahead of them, so that a worker done with the last finds
    /// the next waiting (handing over only to a worker already waiting left it waiting again for
    /// each batch); a worker is started if the scan may have one more.
    private func share<Source: EntrySource>(from source: inout Source, of work: Work, stream: DirectoryStream, roots: Int,
                                            folder: inout SharedFolder?) throws {
        let wanted = condition.withLock { pending.isEmpty && !cancelled }
        guard wanted else { return }
        if buildsNameTree && folder == nil { folder = SharedFolder() }
        var shared = SharedEntries(stream: stream, folder: folder)
        while shared.entries.count < Self.shareEvery, let entry = try source.nextEntry() { shared.append(entry) }
        guard !shared.entries.isEmpty else { return }
        var handed = work
        handed.descriptor = nil
        handed.shared = shared
        #if DEBUG
        probe?.record(.usageBatchShared)
        #endif
        condition.withLock {
            folder?.outstanding += 1
            pending.append(handed)
            if waiting == 0 && helpers < maximumHelpers { startHelper(roots: roots) }
            condition.broadcast()
        }
    }

    /// Appends a folder's entries (`nodes`, each ``UsageNameTree/Node/nameStart`` in `names`) to
    /// the tree of names after those there, and pushes its `subfolders` (each ``Work/node`` the
    /// index of its entry in `nodes`, made the tree's). Called with `condition` locked.
    private func appendToTree(_ nodes: inout [UsageNameTree.Node], names: ArraySlice<UInt8>, subfolders: inout [Work]) {
        let first = treeNodes.count, nameBase = treeNames.count
        nodes.withUnsafeMutableBufferPointer { nodes in
            for index in nodes.indices { nodes[index].nameStart += nameBase }
            treeNodes.append(contentsOf: UnsafeBufferPointer(nodes))
        }
        treeNames.append(contentsOf: names)
        for index in subfolders.indices { subfolders[index].node += Int32(first) }
        pending.append(contentsOf: subfolders)
    }

    /// Makes the nodes from `first` to the last the children of `folder`'s node. Called with
    /// `condition` locked.
    private func setChildren(of folder: Int32, from first: Int) {
        guard treeNodes.count > first else { return }
        var node = treeNodes[Int(folder)]  // read and written once: each access finds the chunk
        node.firstChild = Int32(first)
        node.childCount = Int32(treeNodes.count - first)
        treeNodes[Int(folder)] = node
    }

    /// Appends the children of a shared folder, its parts one after the other, as one range of
    /// `folder`'s node, and pushes their sub-folders (not pushed before: their nodes were not
    /// known). Called with `condition` locked, by the worker that deposited the last part.
    private func assemble(_ shared: SharedFolder, folder: Int32) {
        let first = treeNodes.count
        while var part = shared.parts.popLast() {  // taken out: its buffers are then its own, changed in place
            appendToTree(&part.nodes, names: part.names[...], subfolders: &part.subfolders)
        }
        setChildren(of: folder, from: first)
    }

    private func isExcluded(_ name: UnsafePointer<CChar>, relativeTo work: Work) -> Bool {
        for pattern in options.excludedPatterns {
            if NamePattern.matches(pattern, name) { return true }
            if pattern.contains("/") {
                // The path below the root: what follows the root's bytes and their slash.
                let below = RawPath(bytes: Array(work.path.bytes.dropFirst(work.rootLength).drop(while: { $0 == UInt8(ascii: "/") })))
                let relative = below.appending(RawPath(cString: name))
                if relative.withCString({ NamePattern.matches(pattern, $0, path: true) }) { return true }
            }
        }
        return false
    }

    /// Records that root `root` counts the file or folder of `status`; `false` when it was counted
    /// already (by this root through another hard link or link, or by an earlier root), and then
    /// it must be skipped, with its contents.
    private func claim(_ status: FileStatus, for root: Int) -> Bool {
        condition.withLock {
            let identity = FileIdentity(device: status.device, inode: status.inode)
            guard counted[identity] == nil else {
                if status.kind != .folder && status.linkCount > 1 { hardLinksSkipped += 1 }
                return false
            }
            counted[identity] = root
            return true
        }
    }

    /// The tree of names the walk built (``buildsNameTree``), finished with `report`, the one
    /// ``run(roots:)`` returned (whose roots give the roots' figures); taken out, not copied.
    func takeNameTree(report: UsageReport) -> UsageNameTree {
        // The nodes are moved over in their chunks, not copied: a second reference to a chunk would
        // make the tree's first change of it copy it. The names (a third of the nodes' bytes) are
        // joined: a name is one slice.
        var nodes = ChunkedStore<UsageNameTree.Node>(chunkShift: UsageNameTree.nodeChunkShift)
        condition.lock()
        swap(&nodes, &treeNodes)
        let names = treeNames.joined()
        condition.unlock()
        return UsageNameTree(walked: consume nodes, names: names, report: report)
    }

    private func register(_ item: UsageItem) -> Int {
        condition.withLock {
            items.append(item)
            return items.count - 1
        }
    }

    private func record(_ issue: UsageIssue) {
        condition.withLock { issues.append(issue) }
    }
}

/// The names of a folder's entries one after the other, as the tree of names gathers them: bytes
/// whose room is kept from folder to folder, each name copied in with one `memcpy` (an `Array`'s
/// `append(contentsOf:)` costs several times that per name through its generic path).
struct NameBytes {
    /// The room; only the first ``count`` bytes are names.
    private(set) var bytes: [UInt8] = []
    /// How many bytes hold names.
    var count = 0

    mutating func append(_ name: UnsafePointer<CChar>, count length: Int) {
        if count + length > bytes.count || bytes.isEmpty { bytes.append(contentsOf: repeatElement(0, count: max(count + length - bytes.count, 4096))) }
        let start = count
        bytes.withUnsafeMutableBytes { room in
            (room.baseAddress! + start).copyMemory(from: name, byteCount: length)
        }
        count += length
    }
}

/// Where ``ScanEngine`` takes a folder's entries from: the folder's stream, or entries another
/// worker handed over (``SharedEntries``).
protocol EntrySource {
    /// The next entry (its name valid until the next call); `nil` at the end.
    mutating func nextEntry() throws -> DirectoryEntry?
}

extension DirectoryStream: EntrySource {}

/// Entries of a wide folder that the worker reading it handed over to another: their names,
/// each followed by its NUL, and the kinds the folder reported, with the folder's stream, whose
/// descriptor they are examined through (it stays open while they are pending).
struct SharedEntries {
    let stream: DirectoryStream
    /// Where the tree of names gathers the folder's children (``ScanEngine/buildsNameTree``);
    /// `nil` otherwise.
    let folder: SharedFolder?
    private(set) var names: [CChar] = []
    /// Where a name starts in ``names``, its length, and the kind the folder reported
    /// (``DirectoryEntry/type``).
    struct Entry {
        var start: Int
        var length: Int
        var type: UInt8
    }

    private(set) var entries: [Entry] = []

    init(stream: DirectoryStream, folder: SharedFolder?) {
        self.stream = stream
        self.folder = folder
    }

    mutating func append(_ entry: DirectoryEntry) {
        entries.append(Entry(start: names.count, length: entry.nameLength, type: entry.type))
        names.append(contentsOf: UnsafeBufferPointer(start: entry.name, count: entry.nameLength + 1))
    }

    /// The entries one after the other, their names in `names` (the storage of ``names``).
    struct Cursor: EntrySource {
        let shared: SharedEntries
        let names: UnsafePointer<CChar>
        var index = 0

        mutating func nextEntry() -> DirectoryEntry? {
            guard index < shared.entries.count else { return nil }
            let entry = shared.entries[index]
            index += 1
            return DirectoryEntry(name: names + entry.start, nameLength: entry.length, type: entry.type)
        }
    }
}

/// A wide folder of the tree of names whose entries several workers examine (``SharedEntries``):
/// each leaves its part of the folder's children here, the one that read the folder last (its
/// entries not handed over), and the last part in appends them all to the tree as one range.
///
/// `@unchecked Sendable`: its fields are read and written only while the engine's `condition` is
/// locked.
final class SharedFolder: @unchecked Sendable {
    /// One worker's part: its entries' nodes (each ``UsageNameTree/Node/nameStart`` in ``names``),
    /// their names, and its sub-folders (each ``ScanEngine/Work/node`` the index of its entry in
    /// ``nodes``), which wait here with their descriptors until the folder is appended.
    struct Part {
        var nodes: [UsageNameTree.Node]
        var names: [UInt8]
        var subfolders: [ScanEngine.Work]
    }

    /// Parts not yet left: the reading worker's own, and one for each batch handed over.
    var outstanding = 1
    var parts: [Part] = []
}
