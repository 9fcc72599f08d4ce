import Foundation

/// The loop behind ``Filler``: measure, fill one step, repeat; then correct any overshoot.
///
/// `@unchecked Sendable`: one thread runs ``run(progress:)``; other threads only call
/// ``cancel()`` and read the cancellation flag, both under `lock`.
final class FillEngine: @unchecked Sendable {
    /// Fill files grow to this size before the next one is started: small enough for any file
    /// system's file-size limit (FAT's 4 GiB) and for releasing in parts, large enough to keep
    /// the manifest short.
    static let fileSizeLimit: Int64 = 1 << 30

    let plan: FillPlan
    let unnamed: Bool
    let parentPath: String
    let parent: OpenFile
    private let start: Sys.SpaceFigures
    private let target: Int64
    private let chunk: Int64

    private let lock = NSLock()
    private var cancelled = false

    // The fill's state, used by the running thread only.
    private var folder: OpenFile?
    private var manifest: FillManifest?
    private var current: OpenFile?
    private var currentName: String?
    private var currentSize: Int64 = 0
    private var filled: Int64 = 0
    private var created = 0
    private var buffer: UnsafeMutableRawBufferPointer?
    private var random = RandomBytes(seed: UInt64.random(in: .min ... .max))
    private(set) var heldFiles: [OpenFile] = []
    /// Whether a hold fell back to named files (no unnamed files on this file system).
    private(set) var usesNames = false

    /// Checks the plan against the volume; nothing is written.
    init(plan: FillPlan, unnamed: Bool) throws {
        self.plan = plan
        self.unnamed = unnamed
        parentPath = plan.volume.fileSystemPath
        let chunkSizeBytes = plan.chunkSizeBytes ?? FillPlan.defaultChunkSizeBytes(for: plan.method)
        guard chunkSizeBytes > 0, chunkSizeBytes <= Self.fileSizeLimit else {
            throw StowageError(.invalidArgument, operation: .fill, path: parentPath,
                               reason: "the chunk size must be more than 0 and at most \(ByteCount(Self.fileSizeLimit)), not \(chunkSizeBytes)")
        }
        guard plan.safetyFloorBytes >= 0 else {
            throw StowageError(.invalidArgument, operation: .fill, path: parentPath, reason: "the safety floor cannot be negative")
        }
        do {
            parent = try OpenFile.openFolder(atPath: parentPath, followingLinks: true)
            start = try SettledFigures.of(parent).figures  // a removal just before may not be counted yet
        } catch let error as SystemCallError {
            throw StowageError(error, operation: .fill, path: parentPath)
        }
        target = try plan.goal.targetAvailable(total: start.total, available: start.available,
                                               blockSize: start.blockSize, path: parentPath)
        chunk = max(start.blockSize, chunkSizeBytes / start.blockSize * start.blockSize)
        if !plan.isForced, target < plan.safetyFloorBytes, target < start.available, let why = try systemVolume() {
            throw StowageError(.refused, operation: .fill, path: parentPath,
                               reason: "\(why); filling it to \(ByteCount(target).formatted(.binary)) "
                                   + "available is below the safety floor of \(ByteCount(plan.safetyFloorBytes).formatted(.binary)) "
                                   + "(force it if you must)",
                               neededBytes: plan.safetyFloorBytes, availableBytes: target)
        }
    }

    deinit { buffer?.deallocate() }

    func cancel() { lock.withLock { cancelled = true } }

    private var isCancelled: Bool { lock.withLock { cancelled } }

    // MARK: Running

    /// Fills until the goal, the end of the space, or cancellation.
    func run(progress: ((FillProgress) -> Void)?) throws -> FillReport {
        let began = ContinuousClock.now
        func seconds() -> Double {
            let elapsed = ContinuousClock.now - began
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
        guard start.available > target else {
            return report(ending: .alreadyAtGoal, after: start.available, seconds: seconds())
        }
        do {
            try prepare()
            let (ending, atGoal) = try fillLoop { available in
                guard let progress else { return }
                let elapsed = seconds()
                let rate = elapsed > 0 ? Double(filled) / elapsed : 0
                progress(FillProgress(filledBytes: filled, availableBytes: available, targetAvailableBytes: target,
                                      bytesPerSecond: rate,
                                      remainingSeconds: rate > 0 ? Double(max(0, available - target)) / rate : nil,
                                      elapsedSeconds: elapsed))
            }
            try finishCurrentFile()
            // The figure the goal was reached on (closing a fill file frees nothing: it was
            // trimmed, and stays), or, for any other ending, the settled figure now.
            let after = try atGoal ?? SettledFigures.of(parent)
            folder?.unlock()
            return report(ending: ending, after: after.available, seconds: seconds())
        } catch let error as SystemCallError {
            try? finishCurrentFile()  // best effort: the error that stopped the fill is the one to report
            throw StowageError(error, operation: .fill, path: currentName.map { folderPath + "/" + $0 } ?? folderPath)
        }
    }

    /// Fills on a thread of its own through ``LongRunningWork``: cancelling the task cancels
    /// the fill, and the report of what was filled until then is still returned. Progress goes
    /// from the filling thread to `progress`, throttled by the bridge's reporter, after each
    /// chunk and once more with the report's figures.
    func runOnThread(progressInterval: Duration, progress: (@Sendable (WorkProgress) -> Void)?) async throws -> FillReport {
        try await LongRunningWork.run(progressInterval: progressInterval, progress: progress, cancel: { self.cancel() }) { reporter in
            let report = try self.run { figures in
                reporter.report(.filling, items: self.created, bytes: figures.filledBytes,
                                expectedBytes: figures.filledBytes + max(0, figures.availableBytes - figures.targetAvailableBytes),
                                availableBytes: figures.availableBytes, targetAvailableBytes: figures.targetAvailableBytes)
            }
            reporter.report(.filling, items: report.fileCount, bytes: report.filledBytes,
                            expectedBytes: report.filledBytes + max(0, report.availableBytesAfter - report.targetAvailableBytes),
                            availableBytes: report.availableBytesAfter, targetAvailableBytes: report.targetAvailableBytes)
            return report
        }
    }

    private var folderPath: String { unnamed && !usesNames ? parentPath : FillFolder(in: plan.volume).path }

    private func report(ending: FillReport.Ending, after: Int64, seconds: Double) -> FillReport {
        FillReport(folder: folderPath, method: plan.method, goal: plan.goal.description, targetAvailableBytes: target,
                   availableBytesBefore: start.available, availableBytesAfter: after, totalBytes: start.total,
                   blockSizeBytes: start.blockSize, filledBytes: filled, fileCount: created, elapsedSeconds: seconds, ending: ending)
    }

    /// Opens the fill folder and its manifest (named files), takes the folder's lock, and
    /// allocates the write buffer.
    private func prepare() throws {
        if unnamed {
            do {
                let probe = OpenFile(adopting: try Sys.openUnnamedFile(in: parent.descriptor))
                heldFiles.append(probe)
                current = probe
                currentSize = 0
                created = 1
            } catch Errno.unnamedFilesUnsupported {
                usesNames = true
            }
        }
        if !unnamed || usesNames {
            let fillFolder = FillFolder(in: plan.volume)
            let opened = try fillFolder.openCreating()
            guard try opened.tryLock(exclusive: true) else {
                throw StowageError(.busy, operation: .fill, path: fillFolder.path, reason: "another fill is running in this folder")
            }
            folder = opened
            let loaded = try fillFolder.loadManifest(in: opened, rebuildingIfDamaged: true, availableNow: start.available)
            // Continue the newest file of an earlier fill while it is below the size limit.
            // Opened once and checked on the open file: what is written to is the file checked.
            if let last = loaded.files.last, let (file, status) = try fillFolder.openVerified(last, in: opened, ofFill: loaded.id),
               status.size < Self.fileSizeLimit {
                current = file
                currentName = last.name
                currentSize = status.size
            }
            manifest = loaded
        }
        if plan.method != .allocate {
            let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(chunk), alignment: 4096)
            bytes.initializeMemory(as: UInt8.self, repeating: 0)
            buffer = bytes
        }
    }

    /// How many settled figures a fill takes near its goal, correcting between two, before it
    /// ends as ``FillReport/Ending/goalMissed``: a fill alone needs two or three.
    static let correctionRounds = 8

    /// The least distance above the goal at which the quick part of the fill stops (one chunk
    /// when that is more): the last stretch is filled in steps each followed by a settled
    /// figure, from above, since giving back is not exact everywhere (btrfs frees a shortened
    /// extent only once no part of it is used).
    static let minimumApproach: Int64 = 4 << 20

    /// The measure-and-fill loop. Quickly first: one `fstatvfs` (cheap) before every chunk,
    /// until one approach (``minimumApproach``, or a chunk) above the goal; the figure aimed by
    /// is the lower of the volume's and the fill's own count since the last settled figure
    /// (btrfs counts written data only once it is written back, so the volume's figure alone let
    /// a fill write the whole volume). Then settled: the figure is settled (``SettledFigures``)
    /// before every step, an overshoot is given back and a shortfall filled, until the settled
    /// figure is within one block above the goal, at most ``correctionRounds`` times.
    ///
    /// - Returns: Why the fill ended, and at `.goalReached` the settled figure it ended on.
    private func fillLoop(progress: (Int64) -> Void) throws -> (FillReport.Ending, SettledFigures?) {
        let approach = max(chunk, Self.minimumApproach)
        var limit = chunk
        var rounds = 0
        var base = (available: start.available, filled: filled)
        func measure() throws -> Int64 {
            min(try parent.spaceFigures().available, base.available - (filled - base.filled))
        }
        while true {
            if isCancelled { return (.cancelled, nil) }
            var available = try measure()
            if available - target <= approach, try trimCurrentFile() { available = try measure() }
            let remaining = (available - target - approach) / start.blockSize * start.blockSize
            if remaining > 0 {
                let wanted = min(limit, remaining)
                guard let step = try fillFitting(wanted) else { return (.volumeFull, nil) }
                if step < wanted { limit = step }  // halved: the next steps are no longer
                try FaultPoint.fillStepWritten.reach()
                progress(available - step)
                continue
            }
            while true {
                if isCancelled { return (.cancelled, nil) }
                _ = try trimCurrentFile()
                let settled = try SettledFigures.of(parent)
                if isAtGoal(settled) { return (.goalReached, settled) }
                rounds += 1
                if rounds >= Self.correctionRounds { return (.goalMissed, nil) }
                base = (settled.available, filled)
                if settled.available < target {
                    guard try giveBack(target - settled.available) else { return (.goalMissed, nil) }
                    continue
                }
                let gap = (settled.available - target) / start.blockSize * start.blockSize
                if gap > approach { break }  // space came back meanwhile: quickly again
                if gap == 0 { continue }  // within the block, but the figure was still moving
                guard let step = try fillFitting(gap) else { return (.volumeFull, nil) }
                progress(settled.available - step)
            }
        }
    }

    /// Whether `figures` settled within one block above the goal: the only figure a fill claims
    /// its goal on.
    private func isAtGoal(_ figures: SettledFigures) -> Bool {
        figures.isSettled && figures.available >= target && figures.available < target + start.blockSize
    }

    /// Shrinks the current fill file by `bytes`, rounded up to whole blocks (to nothing at
    /// most); `false` when it holds nothing to give back (another writer took the space).
    private func giveBack(_ bytes: Int64) throws -> Bool {
        guard let current, currentSize > 0 else { return false }
        let excess = (bytes + start.blockSize - 1) / start.blockSize * start.blockSize
        let size = max(0, currentSize - excess)
        try current.truncate(to: size)
        filled -= currentSize - size
        currentSize = size
        return true
    }

    /// Gives back the blocks the file system holds past the end of the current file: XFS
    /// reserves them while a file grows by writing (speculative preallocation, 59 MB past a
    /// 200 MB file) and frees them only when the file is closed, or minutes later; truncating a
    /// file to its own size frees every block past its end. Only where the file holds more
    /// blocks than its size needs: a truncation is not free everywhere (on btrfs it moves the
    /// figure while the data is written back). `false` when nothing was trimmed.
    private func trimCurrentFile() throws -> Bool {
        guard let current else { return false }
        let blocks = (currentSize + start.blockSize - 1) / start.blockSize * start.blockSize
        guard try current.status().allocatedSize > blocks else { return false }
        try current.truncate(to: currentSize)
        return true
    }

    /// Fills `bytes` at the end of the current file or, where there is no room for them, less:
    /// the step is halved after every `ENOSPC` (tmpfs allocates all of a range or none, and a
    /// file system may need a block of metadata too) until one block fails.
    ///
    /// - Returns: The bytes of the step that fitted; `nil` when not even one block did.
    private func fillFitting(_ bytes: Int64) throws -> Int64? {
        var step = bytes
        while try !fillStep(step) {
            guard step > start.blockSize else { return nil }
            step = max(start.blockSize, step / 2 / start.blockSize * start.blockSize)
        }
        return step
    }

    /// Writes or allocates `bytes` at the end of the current file, starting a new file when
    /// needed. `false` when the volume filled up first (what fitted stays).
    private func fillStep(_ bytes: Int64) throws -> Bool {
        if current == nil || currentSize + bytes > Self.fileSizeLimit {
            guard try startFile() else { return false }
        }
        guard let file = current else { return false }
        do {
            switch plan.method {
            case .allocate:
                try Sys.allocate(file.descriptor, offset: currentSize, length: bytes)
            case .zeros, .random:
                var written: Int64 = 0
                while written < bytes {  // a step near the goal may be longer than the buffer
                    let bytesToWrite = UnsafeMutableRawBufferPointer(rebasing: buffer![0..<Int(min(chunk, bytes - written))])
                    if plan.method == .random { random.fill(bytesToWrite) }
                    try Sys.pwriteAll(file.descriptor, UnsafeRawBufferPointer(bytesToWrite), at: currentSize + written)
                    written += Int64(bytesToWrite.count)
                }
            }
        } catch Errno.noSpace, Errno.quotaExceeded {
            let size = (try? file.status().size) ?? currentSize  // a write may have stored part of the chunk
            filled += size - currentSize
            currentSize = size
            return false
        }
        currentSize += bytes
        filled += bytes
        return true
    }

    /// Starts the next fill file: unnamed, or named in the manifest before it is created and
    /// marked once it exists. `false` when there is no space left for it.
    private func startFile() throws -> Bool {
        try finishCurrentFile()
        do {
            if unnamed && !usesNames {
                let file = OpenFile(adopting: try Sys.openUnnamedFile(in: parent.descriptor))
                heldFiles.append(file)
                current = file
            } else {
                guard let folder, var manifest else { return false }
                let fillFolder = FillFolder(in: plan.volume)
                // Created with the fill's marker, then named in the manifest: a crash in between
                // leaves a marked file, which status and release adopt.
                func numbersUsedUp() -> StowageError {
                    StowageError(.refused, operation: .fill, path: fillFolder.path,
                                 reason: "every fill file number is taken (up to \(FillManifest.filePrefix)\(FillManifest.highestFileNumber)); release this fill first")
                }
                guard var name = manifest.nextFileName() else { throw numbersUsedUp() }
                let file: OpenFile
                while true {
                    do {
                        file = try folder.open(name, flags: Sys.writeCreateExclusive, mode: .ownerOnlyFile)
                        break
                    } catch Errno.fileExists {
                        // A foreign file has the name: never touch it.
                        guard let next = manifest.nextFileName(after: name) else { throw numbersUsedUp() }
                        name = next
                    }
                }
                do {
                    do {
                        try file.setAttribute(FillManifest.markerAttribute, to: Array(manifest.id.utf8))
                    } catch Errno.attributesUnsupported {
                        // no extended attributes here: the manifest entry alone identifies the file
                    }
                    let status = try file.status()
                    manifest.files.append(.init(name: name, device: status.device, inode: status.inode))
                    try fillFolder.save(manifest, in: folder)
                } catch {
                    try? folder.removeEntry(name, folder: false)  // empty and ours, and not in the manifest
                    throw error
                }
                self.manifest = manifest
                current = file
                currentName = name
            }
        } catch Errno.noSpace, Errno.quotaExceeded {
            return false
        }
        currentSize = 0
        created += 1
        return true
    }

    /// Closes the current named file (an unnamed one stays open: closing would free it).
    private func finishCurrentFile() throws {
        guard let file = current else { return }
        _ = try trimCurrentFile()
        current = nil
        if !(unnamed && !usesNames) { try file.close() }
    }
}
