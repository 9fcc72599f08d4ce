import Foundation

/// What ``Container/audit(minimumBytes:)`` found: storage habits that cost users space or backups.
public struct AuditReport: Sendable, Hashable, Codable {
    /// Each finding, largest first.
    public var findings: [AuditFinding]
    /// What pressure relief would free, per location, in purge order.
    public var purgeableUnderPressure: [LocationTotals]
    /// Folders that could not be read.
    public var issues: [UsageIssue]
    /// Whether the audit was cancelled before it finished (only the `async`
    /// ``Container/audit(minimumBytes:progressInterval:progress:)`` can be): the findings and
    /// totals then cover only what was read until then (none when it was cancelled during its
    /// first walk, the one that totals what storage pressure could free). Not part of the
    /// report's JSON.
    public var wasCancelled = false

    /// The JSON names: each property's own, ``wasCancelled`` left out (the command never cancels this work).
    private enum CodingKeys: String, CodingKey {
        case findings, purgeableUnderPressure, issues
    }
}

/// One thing worth fixing.
///
/// Names are bytes on disk and need not be UTF-8: ``path`` is text, with U+FFFD for bytes that
/// are not UTF-8, ``pathBytes`` exact; JSON adds `pathBase64` only when the text is not exact.
public struct AuditFinding: Sendable, Hashable, Codable {
    /// `largeBackedUpFile`, `largePreferencesFile` or `pinnedInCaches`.
    public var kind: String
    /// Where it is (its ``Location/identifier`` in JSON).
    public var location: Location
    /// The path below the location, as text (see ``pathBytes`` for the exact bytes).
    public var path: String
    /// The path below the location, byte for byte (`pathBase64` in JSON, only when it is not UTF-8).
    @Base64WhenNotUTF8 public var pathBytes: [UInt8]
    /// Its allocated size.
    public var allocatedBytes: Int64
    /// What to do about it.
    public var advice: String

    init(kind: String, location: Location, path: RawPath, allocatedBytes: Int64, advice: String) {
        self.kind = kind
        self.location = location
        self.path = path.description
        pathBytes = path.bytes
        self.allocatedBytes = allocatedBytes
        self.advice = advice
    }

    /// The JSON names: the properties' own, ``pathBytes`` written as `pathBase64` (see ``ReportedPath``).
    private enum CodingKeys: String, CodingKey {
        case kind, location, path, pathBytes = "pathBase64", allocatedBytes, advice
    }

}

/// Totals of a location.
public struct LocationTotals: Sendable, Hashable, Codable {
    /// The location (its ``Location/identifier`` in JSON).
    public var location: Location
    /// Files counted.
    public var fileCount: Int
    /// Their allocated bytes.
    public var allocatedBytes: Int64
}

extension Container {
    /// The size at which Apple's defaults system starts warning about a preferences file.
    public static let preferencesWarningBytes: Int64 = 4 * 1024 * 1024

    /// Looks for storage habits that cost space or backups:
    /// - files of at least `minimumBytes` in backed-up locations that are not excluded from backup
    ///   (re-downloadable data belongs in Caches, or should be excluded);
    /// - preferences files over 4 MiB, the size at which Apple's defaults system starts warning;
    /// - pinned files and folders in Caches, which then never go under pressure (a folder with
    ///   the bytes of all it holds, which is not listed again);
    /// and totals what pressure relief would free, by relief's own rule (see
    /// ``relieve(toAvailableBytes:dryRun:now:)``): tmp, unpinned caches, and files marked purgeable
    /// elsewhere. A location whose folder cannot be used safely is reported and skipped.
    ///
    /// - Throws: as ``url(for:)``; unreadable folders are issues in the report.
    public func audit(minimumBytes: Int64 = 10_000_000) throws -> AuditReport {
        try audit(minimumBytes: minimumBytes, reporter: nil, cancellation: nil)
    }

    /// Audits the container as ``audit(minimumBytes:)`` does, on a thread of its own, reporting
    /// progress; cancelling the task stops the audit before its next file and returns what was
    /// found until then, marked ``AuditReport/wasCancelled``.
    ///
    /// This is a long-running call under the one contract (see ``WorkProgress`` and
    /// "Long-running work" in the README): cancellation is not an error, progress comes from
    /// the auditing thread, throttled to `progressInterval`.
    /// The handler is required, so that a call without one (in an `async` function too) stays
    /// the synchronous form; pass `{ _ in }` to get cancellation alone.
    ///
    /// ```swift
    /// let report = try await container.audit { progress in
    ///     print("\(progress.items) files examined, now in \(progress.location?.displayName ?? "")")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - minimumBytes: The size from which a backed-up file is reported.
    ///   - progressInterval: The least time between two progress reports.
    ///   - progress: Called on the auditing thread (``WorkProgress/Phase/scanning``) with the
    ///     files examined so far by all of the audit's walks (a location is read twice: once
    ///     for what pressure would free, once for the findings) and their allocated bytes, the
    ///     location being read in ``WorkProgress/location``. Keep it short.
    /// - Throws: as ``audit(minimumBytes:)``; cancellation is not an error.
    public func audit(minimumBytes: Int64 = 10_000_000, progressInterval: Duration = WorkProgress.defaultInterval,
                      progress: @escaping @Sendable (WorkProgress) -> Void) async throws -> AuditReport {
        let cancellation = CancellationFlag()
        return try await LongRunningWork.run(progressInterval: progressInterval, progress: progress,
                                             cancel: { cancellation.cancel() }) { reporter in
            try audit(minimumBytes: minimumBytes, reporter: reporter, cancellation: cancellation)
        }
    }

    private func audit(minimumBytes: Int64, reporter: ProgressReporter?, cancellation: CancellationFlag?) throws -> AuditReport {
        var findings: [AuditFinding] = []
        var issues: [UsageIssue] = []
        var examinedFiles = 0
        var examinedBytes: Int64 = 0
        // Each file met by either walk: counted, reported, and the point where a cancelled audit stops.
        let examine: (Location, FileStatus) throws -> Void = { location, status in
            if cancellation?.isCancelled == true { throw CancellationError() }
            examinedFiles += 1
            examinedBytes += status.allocatedSize
            reporter?.report(.scanning, items: examinedFiles, bytes: examinedBytes, location: location)
        }
        let watched = reporter != nil || cancellation != nil
        let purgeable: [LocationTotals]
        do {
            purgeable = try freeableUnderPressure(operation: .audit, skipped: &issues, examined: watched ? examine : nil)
        } catch is CancellationError {
            return AuditReport(findings: [], purgeableUnderPressure: [], issues: issues, wasCancelled: true)
        }
        var cancelled = false
        for location in [Location.caches, .documents, .applicationSupport, .preferences] where !cancelled {
            guard let folder = try usableFolder(of: location, onVolume: nil, operation: .audit, skipped: &issues) else { continue }
            let base = try url(for: location).fileSystemPath
            // Pinned folders in Caches met so far, and their findings: each gathers what it holds.
            var pinnedFolders: [(path: RawPath, finding: Int)] = []
            func pinnedInCaches(_ path: RawPath, _ size: Int64) -> AuditFinding {
                AuditFinding(kind: "pinnedInCaches", location: location, path: path, allocatedBytes: size,
                             advice: "pinned: it never goes under storage pressure; unpin it or keep it in Application Support")
            }
            do {
                try FileTreeWalk(root: folder).run({ entry in
                    let path = entry.path
                    let holder = location == .caches ? pinnedFolders.last { path.bytes.starts(with: $0.path.bytes + [UInt8(ascii: "/")]) } : nil
                    if entry.status.kind == .folder, location == .caches, holder == nil, try entry.carries(.pinned) {
                        pinnedFolders.append((path, findings.count))
                        findings.append(pinnedInCaches(path, 0))
                    }
                    guard entry.status.kind == .file else { return entry.status.kind == .folder }
                    if entry.name.hasPrefix(RelativePath.reservedPrefix) || entry.name.equals(CacheDirectoryTag.name) { return false }
                    if watched { try examine(location, entry.status) }
                    let size = entry.status.allocatedSize
                    if location == .caches {
                        if let holder {
                            findings[holder.finding].allocatedBytes += size  // pinned with its folder: counted there
                        } else if try entry.carries(.pinned) {
                            findings.append(pinnedInCaches(path, size))
                        }
                    } else if location == .preferences, entry.status.size > Self.preferencesWarningBytes {
                        findings.append(AuditFinding(kind: "largePreferencesFile", location: location, path: path,
                                                     allocatedBytes: size,
                                                     advice: "over 4 MiB: preferences are read whole at launch; move the data to Application Support"))
                    } else if size >= minimumBytes, !(try entry.isExcludedFromBackup()) {
                        findings.append(AuditFinding(kind: "largeBackedUpFile", location: location, path: path,
                                                     allocatedBytes: size,
                                                     advice: "backed up: if it can be downloaded again, move it to Caches or exclude it from backup"))
                    }
                    return false
                }, problem: { folder, problem in
                    issues.append(UsageIssue(pathBytes: RawPath(base).appending(folder).bytes, problem: problem))
                })
            } catch let error as SystemCallError {
                throw StowageError(error, operation: .audit, location: location, path: "")
            } catch is CancellationError {
                cancelled = true
            }
        }
        findings.sort {
            $0.allocatedBytes != $1.allocatedBytes ? $0.allocatedBytes > $1.allocatedBytes
                : RawPath(bytes: $0.pathBytes) < RawPath(bytes: $1.pathBytes)
        }
        var reported = Set<UsageIssue>()  // a location skipped for the totals is skipped for the findings too
        return AuditReport(findings: findings, purgeableUnderPressure: purgeable,
                           issues: issues.filter { reported.insert($0).inserted }, wasCancelled: cancelled)
    }

}

extension StowageError.Operation {
    /// Auditing a container.
    public static let audit = StowageError.Operation("audit")
}

// MARK: Earlier spellings, kept for one release

extension Container {
    /// ``audit(minimumBytes:)``, in its earlier spelling.
    @available(*, deprecated, renamed: "audit(minimumBytes:)")
    public func audit(minimumSize: Int64) throws -> AuditReport {
        try audit(minimumBytes: minimumSize)
    }

    /// ``audit(minimumBytes:progressInterval:progress:)``, in its earlier spelling.
    @available(*, deprecated, renamed: "audit(minimumBytes:progressInterval:progress:)")
    public func audit(minimumSize: Int64, progressInterval: Duration = WorkProgress.defaultInterval,
                      progress: @escaping @Sendable (WorkProgress) -> Void) async throws -> AuditReport {
        try await audit(minimumBytes: minimumSize, progressInterval: progressInterval, progress: progress)
    }

    /// ``preferencesWarningBytes``, in its earlier spelling.
    @available(*, deprecated, renamed: "preferencesWarningBytes")
    public static var preferencesWarningSize: Int64 { preferencesWarningBytes }
}
