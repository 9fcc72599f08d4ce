import Foundation

extension FillFolder {
    /// Gives back the space of the fill: all of it, or at least `amount` bytes (whole files
    /// removed from the newest, the last one shrunk), and removes the fill folder once it
    /// holds nothing.
    ///
    /// Only files the manifest names that are still the files the fill made (the same device
    /// and inode and, where the file system keeps extended attributes, the fill's marker) are
    /// removed or shrunk; they are removed by the one removal walk, which checks each again just
    /// before unlinking it. Works after the filling process crashed.
    ///
    /// - Throws: ``StowageError/Code/busy`` while a fill is running in this folder;
    ///   ``StowageError/Code/invalidArgument`` for a negative amount;
    ///   ``StowageError/Code/decodingFailed`` for a damaged manifest (or one naming anything but
    ///   a fill file's name) on a file system without markers to rebuild it from; the error of
    ///   a fill file that cannot be removed, naming it (the others chosen are removed, and the
    ///   manifest names what is left).
    @discardableResult
    public func release(bytes amount: Int64? = nil) throws -> FillReleaseReport {
        try release(bytes: amount, reporter: nil, cancellation: nil)
    }

    /// Gives back the space of the fill as ``release(bytes:)`` does, on a thread of its own,
    /// reporting progress; cancelling the task stops the release before its next file and
    /// returns what was released until then, marked ``FillReleaseReport/wasCancelled`` (the
    /// manifest still names every file left, so a later release finishes the job).
    ///
    /// This is a long-running call under the one contract (see ``WorkProgress`` and
    /// "Long-running work" in the README): cancellation is not an error, progress comes from
    /// the releasing thread, throttled to `progressInterval`.
    /// The handler is required, so that a call without one (in an `async` function too) stays
    /// the synchronous form; pass `{ _ in }` to get cancellation alone.
    ///
    /// ```swift
    /// let report = try await FillFolder(in: volumeURL).release { progress in
    ///     print("\(progress.items) files, \(ByteCount(progress.bytes).formatted()) given back")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - amount: Give back at least this many bytes; `nil` for everything.
    ///   - progressInterval: The least time between two progress reports.
    ///   - progress: Called on the releasing thread (``WorkProgress/Phase/removing``) with the
    ///     fill files removed or shrunk so far, the bytes they gave back, and the bytes the
    ///     release will give back in all (``WorkProgress/expectedBytes``: the amount, or what
    ///     the fill's files hold). Keep it short.
    /// - Throws: as ``release(bytes:)``; cancellation is not an error.
    @discardableResult
    public func release(bytes amount: Int64? = nil, progressInterval: Duration = WorkProgress.defaultInterval,
                        progress: @escaping @Sendable (WorkProgress) -> Void) async throws -> FillReleaseReport {
        let cancellation = CancellationFlag()
        return try await LongRunningWork.run(progressInterval: progressInterval, progress: progress,
                                             cancel: { cancellation.cancel() }) { reporter in
            try release(bytes: amount, reporter: reporter, cancellation: cancellation)
        }
    }

    private func release(bytes amount: Int64?, reporter: ProgressReporter?, cancellation: CancellationFlag?) throws -> FillReleaseReport {
        if let amount, amount < 0 {
            throw StowageError(.invalidArgument, operation: .release, path: path,
                               reason: "the amount to release cannot be negative (\(amount))")
        }
        var reaching: Int64?  // the available bytes the volume counts once it counts a whole release
        let outcome = try perform(.release) { () -> FillReleaseReport? in
            guard let folder = try openIfPresent(for: .release) else { return nil }
            guard try folder.tryLock(exclusive: true) else {
                throw StowageError(.busy, operation: .release, path: path,
                                   reason: "a fill is running in this folder; stop it first (a held fill releases itself when stopped)")
            }
            defer { folder.unlock() }
            // A rebuilt manifest is saved at the end, once space is freed: on a full disk it could not be before.
            var (manifest, mustSave) = try readManifest(in: folder, rebuildingIfDamaged: true)
            let availableBefore = try folder.spaceFigures().available
            var expected: Int64?
            if reporter?.isActive == true {
                let held = try heldBytes(of: manifest, in: folder)
                expected = amount.map { min($0, held) } ?? held
                reporter?.report(.removing, items: 0, bytes: 0, expectedBytes: expected)
            }
            // The files to give back, newest first, chosen from the manifest (the fill's own
            // files only); the last one is shrunk when the amount ends inside it.
            var victims: [SweepEngine.Candidate] = []
            var forgotten = Set<String>()  // gone, or not ours: forgotten, never touched
            var chosen: Int64 = 0
            var shrinking: (entry: FillManifest.Entry, bytes: Int64)?
            for entry in manifest.files.reversed() {
                if let amount, chosen >= amount { break }
                guard let status = try verifiedStatus(of: entry, in: folder, ofFill: manifest.id) else {
                    forgotten.insert(entry.name)
                    continue
                }
                if let amount, status.allocatedSize > amount - chosen {
                    shrinking = (entry, amount - chosen)
                    break
                }
                victims.append(SweepEngine.Candidate(path: RawPath(entry.name), folder: RawPath(""), status: status, reason: .clear))
                chosen += status.allocatedSize
            }
            try FaultPoint.fillReleaseChosen.reach()
            // Removed by the one removal walk, which checks each file again just before unlinking it
            // (this folder's lock is held already).
            let removal = try Removal.run(root: folder, path: path, .chosen(victims), operation: .release, reporter: reporter,
                                          cancellation: cancellation, expectedBytes: expected)
            var cancelled = removal.wasCancelled
            var released = removal.removed.reduce(Int64(0)) { $0 + $1.allocatedBytes }
            forgotten.formUnion(removal.removed.map(\.path))
            let failure = removal.issues.first { $0.errno != nil }
            var shrunk = 0
            if let shrinking, !cancelled, failure == nil {
                if cancellation?.isCancelled == true {
                    cancelled = true
                } else if let freed = try shrink(shrinking.entry, ofFill: manifest.id, in: folder, by: shrinking.bytes) {
                    released += freed
                    shrunk = 1
                    reporter?.report(.removing, items: removal.removed.count + shrunk, bytes: released, expectedBytes: expected)
                } else {
                    forgotten.insert(shrinking.entry.name)  // replaced since it was examined: not ours any more
                }
            }
            let removed = removal.removed.count
            // Names are unique in a manifest (``readManifest`` refuses others), so a name forgets one entry.
            manifest.files.removeAll { forgotten.contains($0.name) }
            if (mustSave || !forgotten.isEmpty) && !manifest.files.isEmpty {
                do {
                    try save(manifest, in: folder)
                } catch where failure != nil || Self.isNoSpace(error) {
                    // The removal's error is the one to report, and no room (nothing freed yet:
                    // cancelled, or an amount of a block) is not a failure of the release: the
                    // manifest on disk still names every file left (a damaged one is rebuilt
                    // again, names of files gone are forgotten by the next release).
                }
            }
            if let failure {
                throw StowageError(SystemCallError(errno: failure.errno ?? .ioError, call: "unlinkat"),
                                   operation: .release, path: failure.path,
                                   reason: "\(failure.message); the rest of the fill stays, named in its manifest")
            }
            if manifest.files.isEmpty {
                do {
                    try folder.removeEntry(FillManifest.fileName, folder: false)
                } catch Errno.noSuchEntry {
                    // a fill that stopped before its first file wrote no manifest
                }
                try removeFolderIfEmpty()
            }
            let remaining = try heldBytes(of: manifest, in: folder)
            // Every file gone (and the manifest, and the folder): the volume counts at least what
            // they held. Not so for a part: btrfs counted 33 MB of a 50 MB shrink, and the rest
            // never, so a part is settled alone (a shrink frees its blocks in the call, on XFS too).
            if manifest.files.isEmpty { reaching = availableBefore + released }
            return FillReleaseReport(folder: path, removedFileCount: removed, shrunkFileCount: shrunk, releasedBytes: released,
                                     availableBytesBefore: availableBefore, availableBytesAfter: availableBefore, remainingBytes: remaining,
                                     wasCancelled: cancelled)
        }
        guard var report = outcome else {
            let available = try perform(.release) { try Sys.spaceFigures(atPath: Container.existingAncestor(of: parent)).available }
            return FillReleaseReport(folder: path, removedFileCount: 0, shrunkFileCount: 0, releasedBytes: 0,
                                     availableBytesBefore: available, availableBytesAfter: available, remainingBytes: 0)
        }
        // Measured once the fill folder is closed (a removed folder's blocks are freed when its
        // last descriptor closes), once the volume counts what a whole release gave back, and
        // settled: XFS frees a removed file's blocks from a background worker, which `syncfs`
        // does not wait for, and which a loaded machine may run after two agreeing readings.
        report.availableBytesAfter = try perform(.release) {
            let parent = try openParent()
            return try (reaching.map { try SettledFigures.of(parent, reaching: $0) } ?? SettledFigures.of(parent)).available
        }
        return report
    }

    /// Shrinks a fill file by at least `bytes` (whole blocks), checking on the open file that
    /// it is still the fill's (``verifiedStatus(of:in:ofFill:)``); returns the allocated bytes
    /// given back, or `nil` when the file is not the fill's (any more).
    private func shrink(_ entry: FillManifest.Entry, ofFill id: String, in folder: OpenFile, by bytes: Int64) throws -> Int64? {
        guard let (file, opened) = try openVerified(entry, in: folder, ofFill: id) else { return nil }
        let block = max(1, try file.spaceFigures().blockSize)
        let keep = max(0, (opened.size - bytes) / block * block)
        try file.truncate(to: keep)
        let after = try file.status()
        try file.close()
        return opened.allocatedSize - after.allocatedSize
    }

    private func removeFolderIfEmpty() throws {
        do {
            try openParent().removeEntry(Self.name, folder: true)
        } catch Errno.notEmpty, Errno.fileExists {
            // foreign entries remain (reported by status); the folder stays with them
        }
    }

    /// Whether `error` says the volume (or the user's quota) has no room.
    private static func isNoSpace(_ error: any Error) -> Bool {
        switch error {
        case let error as SystemCallError: [.noSpace, .quotaExceeded].contains(error.errno)
        case let error as StowageError: error.code == .noSpace
        default: false
        }
    }

    /// The allocated bytes of the manifest's files that are still the fill's own.
    private func heldBytes(of manifest: FillManifest, in folder: OpenFile) throws -> Int64 {
        try manifest.files.reduce(Int64(0)) { sum, entry in
            sum + ((try verifiedStatus(of: entry, in: folder, ofFill: manifest.id))?.allocatedSize ?? 0)
        }
    }
}

/// What ``FillFolder/release(bytes:)`` gave back.
public struct FillReleaseReport: Sendable, Hashable, Codable {
    /// The fill folder.
    public var folder: String
    /// Fill files removed.
    public var removedFileCount: Int
    /// Fill files shrunk (at most one, when an amount was asked for).
    public var shrunkFileCount: Int
    /// The allocated bytes of the files removed or shrunk.
    public var releasedBytes: Int64
    /// The volume's available bytes before the release.
    public var availableBytesBefore: Int64
    /// The volume's available bytes after the release, once the volume counts it: settled (two
    /// readings that agree), and after a whole release once it counts at least what the files
    /// held (waiting at most 2 s for a file system that frees blocks in the background, XFS).
    public var availableBytesAfter: Int64
    /// The allocated bytes of the fill files still there.
    public var remainingBytes: Int64
    /// Whether the release was cancelled before it finished (only the `async`
    /// ``FillFolder/release(bytes:progressInterval:progress:)`` can be): the files left are
    /// still in the manifest, for a later release. Not part of the report's JSON.
    public var wasCancelled = false

    /// The JSON names: each property's own, ``wasCancelled`` left out (the command never cancels this work).
    private enum CodingKeys: String, CodingKey {
        case folder, removedFileCount, shrunkFileCount, releasedBytes, availableBytesBefore, availableBytesAfter, remainingBytes
    }
}

// MARK: Earlier spellings, kept for one release

extension FillFolder {
    /// ``release(bytes:)``, in its earlier spelling.
    @available(*, deprecated, renamed: "release(bytes:)")
    @discardableResult
    public func release(amount: Int64?) throws -> FillReleaseReport {
        try release(bytes: amount)
    }

    /// ``release(bytes:progressInterval:progress:)``, in its earlier spelling.
    @available(*, deprecated, renamed: "release(bytes:progressInterval:progress:)")
    @discardableResult
    public func release(amount: Int64?, progressInterval: Duration = WorkProgress.defaultInterval,
                        progress: @escaping @Sendable (WorkProgress) -> Void) async throws -> FillReleaseReport {
        try await release(bytes: amount, progressInterval: progressInterval, progress: progress)
    }
}
