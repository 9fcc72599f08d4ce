import Foundation

extension SweepEngine {
    // MARK: Selection

    /// Chooses the victims; nothing is removed.
    ///
    /// - Parameter progress: Called after each file examined, with the files examined so far by
    ///   both walks (a walk made again for pinned files among the chosen counts none again);
    ///   when it returns `false` the selection stops and throws `CancellationError`.
    func select(progress: Progress? = nil) throws -> Selection {
        var examined = 0
        var examinedAllocated: Int64 = 0
        func examine(_ status: FileStatus, counted: Bool = true) throws {
            guard let progress else { return }
            if counted {
                examined += 1
                examinedAllocated += status.allocatedSize
            }
            if !progress(examined, examinedAllocated) { throw CancellationError() }
        }
        var totalFiles = knownTotals?.files ?? 0
        var totalAllocated: Int64 = knownTotals?.allocatedBytes ?? 0
        if case .limits = goal, policy.maximumAllocatedBytes != nil || policy.maximumCount != nil, knownTotals == nil {
            try walk(recording: false) { entry, kind in
                if kind == .ordinary {
                    totalFiles += 1
                    totalAllocated += entry.status.allocatedSize
                    try examine(entry.status)
                }
            }
        }
        var bytesToFree: Int64 = 0
        var countToFree = 0
        var heapReason = SweepReason.size
        switch goal {
        case .limits:
            if let limit = policy.maximumAllocatedBytes, totalAllocated > limit {
                bytesToFree = totalAllocated - Int64((Double(limit) * policy.lowWatermark).rounded(.down))
            }
            if let limit = policy.maximumCount, totalFiles > limit {
                countToFree = totalFiles - Int((Double(limit) * policy.lowWatermark).rounded(.down))
                if bytesToFree == 0 { heapReason = .count }
            }
        case .free(let bytes, _):
            bytesToFree = bytes
            heapReason = .pressure
        case .everything:
            break
        }

        // Pins of the files offered by size, count or pressure are read for the chosen only, after
        // the walk (a pin is a system call per file, and few files are pinned): the walk chooses
        // as if none were, then each chosen file's pin is read; when some are pinned they are set
        // aside and the walk made once more, reading the pin of each file it would keep as it
        // goes (as many walks as pinned files otherwise: one each, when one file is to go). What
        // is chosen is what reading every pin first chose: the most deserving unpinned files; the
        // pinned files counted are those ranked before the last of them.
        var setAside: Set<RawPath> = []  // chosen, found pinned: kept, not offered again
        var readUnpinned: Set<RawPath> = []  // chosen, found not pinned: not read again
        var pinnedMet: [Candidate] = []  // found pinned by the last walk as it went
        var firstPass = true
        var forced: [Candidate] = []
        var forcedAllocated: Int64 = 0
        var forcedCount = 0
        var pinned = 0
        var heap = VictimHeap(order: policy.order)
        var seenFiles = 0
        var seenAllocated: Int64 = 0
        while true {
            (forced, forcedAllocated, forcedCount, pinned, seenFiles, seenAllocated) = ([], 0, 0, 0, 0, 0)
            heap = VictimHeap(order: policy.order)
            pinnedMet = []
            try walk(recording: true) { entry, kind in
                let status = entry.status
                switch kind {
                case .leftover:
                    forced.append(candidate(entry, reason: .leftover))
                    return
                case .pinnedFolder:
                    pinned += 1
                    return
                case .ordinary:
                    break
                }
                seenFiles += 1
                seenAllocated += status.allocatedSize
                try examine(status, counted: firstPass)
                if removesEverything {
                    if isPinned(entry) {
                        pinned += 1
                        return
                    }
                    forced.append(candidate(entry, reason: .clear))
                    return
                }
                if case .limits = goal, let maximumAge = policy.maximumAgeSeconds, now - timestamp(of: status) > maximumAge {
                    if isPinned(entry) {
                        pinned += 1
                        return
                    }
                    forced.append(candidate(entry, reason: .age))
                    forcedAllocated += status.allocatedSize
                    forcedCount += 1
                    return
                }
                guard bytesToFree > 0 || countToFree > 0 else { return }
                let offered = candidate(entry, reason: heapReason)
                guard offered.path != spared else { return }
                if setAside.contains(offered.path) {
                    pinned += 1
                    return
                }
                if heap.wouldDrop(offered, bytes: bytesToFree - forcedAllocated, count: countToFree - forcedCount) { return }
                guard reliefMayFree(entry) else { return }
                if !firstPass, !readUnpinned.contains(offered.path) {
                    if isPinned(entry) {
                        pinnedMet.append(offered)
                        return
                    }
                    readUnpinned.insert(offered.path)
                }
                heap.insert(offered)
                heap.trim(bytes: bytesToFree - forcedAllocated, count: countToFree - forcedCount)
            }
            heap.trim(bytes: bytesToFree - forcedAllocated, count: countToFree - forcedCount)
            pinned += pinnedMet.filter { !heap.wouldDrop($0, bytes: bytesToFree - forcedAllocated, count: countToFree - forcedCount) }.count
            try FaultPoint.sweepWalked.reach()
            let unread = heap.items.filter { !readUnpinned.contains($0.path) }
            let found = Set(unread.filter(isPinned).map(\.path))
            readUnpinned.formUnion(unread.map(\.path).filter { !found.contains($0) })
            guard !found.isSubset(of: setAside) else { break }
            setAside.formUnion(found)
            firstPass = false
        }
        var reported = Set<UsageIssue>()  // an issue is met by every walk
        issues = issues.filter { reported.insert($0).inserted }
        var victims = forced + heap.items
        victims.sort { $0.path < $1.path }
        Self.markHardLinks(in: &victims)
        let counted = victims.filter { $0.reason != .leftover }  // the entries counted as seen
        return Selection(victims: victims, keptFiles: seenFiles - counted.count,
                         keptAllocated: seenAllocated - counted.reduce(0) { $0 + $1.allocated }, pinned: pinned)
    }

    /// The relief rule's file-level part, shared by relief, audit and the reclaimable figure:
    /// in locations never purged, only files marked purgeable (a marker that cannot be read is
    /// not there). Pins, Stowage's records and young in-flight items are excluded by the walk
    /// and ``isPinned(_:)`` for every goal.
    private func reliefMayFree(_ entry: FileTreeWalk.Entry) -> Bool {
        guard case .free(_, let purgeableOnly) = goal, purgeableOnly else { return true }
        return (try? entry.carries(.purgeable)) ?? false  // unreadable: not known to be purgeable, so kept
    }

    /// A hard-linked victim frees its blocks only when every name of its data is a victim; then
    /// the first of them counts the bytes freed, the others none.
    private static func markHardLinks(in victims: inout [Candidate]) {
        var names: [UInt64: [Int]] = [:]  // by inode; devices compared below
        for index in victims.indices where victims[index].linkCount > 1 {
            names[victims[index].inode, default: []].append(index)
        }
        for (_, indices) in names {
            let device = victims[indices[0]].device
            let sameFile = indices.filter { victims[$0].device == device }
            let allNames = UInt64(sameFile.count) >= victims[sameFile[0]].linkCount
            for (position, index) in sameFile.enumerated() { victims[index].freesSpace = allNames && position == 0 }
        }
    }

    /// Totals what a `.free` goal may take from the folder (the relief rule), without choosing:
    /// the reclaimable figure of ``Container/capacity(of:)-8qkvy`` and audit's pressure totals.
    ///
    /// - Parameter examined: Told the status of each file met, before it is judged; an error it
    ///   throws (a cancellation) ends the walk.
    func freeableTotals(examined: ((FileStatus) throws -> Void)? = nil) throws -> (files: Int, allocated: Int64) {
        var files = 0
        var allocated: Int64 = 0
        try walk(recording: true) { entry, kind in
            if kind == .ordinary { try examined?(entry.status) }
            guard kind != .pinnedFolder, reliefMayFree(entry), !isPinned(entry) else { return }
            files += kind == .ordinary ? 1 : 0
            allocated += entry.status.allocatedSize
        }
        return (files, allocated)
    }

    private func timestamp(of status: FileStatus) -> Double {
        policy.order == .leastRecentlyUsed ? status.accessTime : status.modificationTime
    }

    private func candidate(_ entry: FileTreeWalk.Entry, reason: SweepReason) -> Candidate {
        Candidate(path: entry.path, folder: entry.folder, status: entry.status, reason: reason)
    }

    /// The absolute path of `path` below the root, for issues: bytes, so that an issue names a
    /// file whose name is not UTF-8 exactly (``UsageIssue/pathBytes``).
    func absolutePath(_ path: RawPath) -> [UInt8] {
        RawPath(rootPath).appending(path).bytes
    }

    /// The folders that would be empty once `victims` are gone, deepest first: those holding
    /// entries, all of them victims or folders emptied in turn; and, when removing everything,
    /// folders that were empty already.
    func emptiedFolders(by victims: [Candidate]) -> [RawPath] {
        var removedPerFolder: [RawPath: Int] = [:]
        for victim in victims { removedPerFolder[victim.folder, default: 0] += 1 }
        var emptied: [RawPath] = []
        let deepestFirst = entriesPerFolder.keys.sorted { ($0.depth, $1) > ($1.depth, $0) }
        for folder in deepestFirst where !folder.isEmpty {
            let entries = entriesPerFolder[folder] ?? 0
            guard removedPerFolder[folder, default: 0] == entries, entries > 0 || removesEverything else { continue }
            emptied.append(folder)
            removedPerFolder[folder.parentAndName.parent, default: 0] += 1
        }
        return emptied
    }

}
