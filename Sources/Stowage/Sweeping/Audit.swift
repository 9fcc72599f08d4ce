import Foundation

/// What ``Container/audit(minimumSize:)`` found: storage habits that cost users space or backups.
public struct AuditReport: Sendable, Hashable, Codable {
    /// Each finding, largest first.
    public var findings: [AuditFinding]
    /// What pressure relief would free, per location, in purge order.
    public var purgeableUnderPressure: [LocationTotals]
    /// Folders that could not be read.
    public var issues: [UsageIssue]
}

/// One thing worth fixing.
public struct AuditFinding: Sendable, Hashable, Codable {
    /// `largeBackedUpFile`, `largePreferencesFile` or `pinnedInCaches`.
    public var kind: String
    /// The location's identifier.
    public var location: String
    /// The path below the location.
    public var path: String
    /// Its allocated size.
    public var allocatedBytes: Int64
    /// What to do about it.
    public var advice: String
}

/// Totals of a location.
public struct LocationTotals: Sendable, Hashable, Codable {
    /// The location's identifier.
    public var location: String
    /// Files counted.
    public var files: Int
    /// Their allocated bytes.
    public var allocatedBytes: Int64

    /// The JSON names, in the vocabulary of every Stowage report (`fileCount`).
    private enum CodingKeys: String, CodingKey {
        case location, allocatedBytes
        case files = "fileCount"
    }
}

extension Container {
    /// The size at which Apple's defaults system starts warning about a preferences file.
    public static let preferencesWarningSize: Int64 = 4 * 1024 * 1024

    /// Looks for storage habits that cost space or backups:
    /// - files of at least `minimumSize` in backed-up locations that are not excluded from backup
    ///   (re-downloadable data belongs in Caches, or should be excluded);
    /// - preferences files over 4 MiB, the size at which Apple's defaults system starts warning;
    /// - pinned files in Caches, which then never go under pressure;
    /// and totals what pressure relief would free, by relief's own rule (see
    /// ``relieve(toAvailable:dryRun:now:)``): tmp, unpinned caches, and files marked purgeable
    /// elsewhere. A location whose folder cannot be used safely is reported and skipped.
    ///
    /// - Throws: as ``url(for:)``; unreadable folders are issues in the report.
    public func audit(minimumSize: Int64 = 10_000_000) throws -> AuditReport {
        var findings: [AuditFinding] = []
        var issues: [UsageIssue] = []
        let purgeable = try freeableUnderPressure(skipped: &issues)
        for location in [Location.caches, .documents, .applicationSupport, .preferences] {
            guard let folder = try usableFolder(of: location, onVolume: nil, operation: .audit, skipped: &issues) else { continue }
            let base = try url(for: location).fileSystemPath
            do {
                try FileTreeWalk(root: folder).run({ entry in
                    guard entry.status.kind == .file else { return entry.status.kind == .folder }
                    if entry.name.hasPrefix(RelativePath.reservedPrefix) || entry.name.equals(CacheDirectoryTag.name) { return false }
                    let path = entry.path.description
                    let size = entry.status.allocatedSize
                    if location == .caches {
                        if try entry.carries(.pinned) {
                            findings.append(AuditFinding(kind: "pinnedInCaches", location: location.identifier, path: path,
                                                         allocatedBytes: size,
                                                         advice: "pinned: it never goes under storage pressure; unpin it or keep it in Application Support"))
                        }
                    } else if location == .preferences, entry.status.size > Self.preferencesWarningSize {
                        findings.append(AuditFinding(kind: "largePreferencesFile", location: location.identifier, path: path,
                                                     allocatedBytes: size,
                                                     advice: "over 4 MiB: preferences are read whole at launch; move the data to Application Support"))
                    } else if size >= minimumSize, !(try BackupMarker.isExcluded(atPath: base + "/" + path)) {
                        findings.append(AuditFinding(kind: "largeBackedUpFile", location: location.identifier, path: path,
                                                     allocatedBytes: size,
                                                     advice: "backed up: if it can be downloaded again, move it to Caches or exclude it from backup"))
                    }
                    return false
                }, problem: { folder, problem in
                    issues.append(UsageIssue(path: base + (folder.isEmpty ? "" : "/" + folder.description), problem: problem))
                })
            } catch let error as SystemCallError {
                throw StowageError(error, operation: .audit, location: location, path: "")
            }
        }
        findings.sort { ($0.allocatedBytes, $1.path) > ($1.allocatedBytes, $0.path) }
        var reported = Set<UsageIssue>()  // a location skipped for the totals is skipped for the findings too
        return AuditReport(findings: findings, purgeableUnderPressure: purgeable,
                           issues: issues.filter { reported.insert($0).inserted })
    }

}

extension StowageError.Operation {
    /// Auditing a container.
    public static let audit = StowageError.Operation("audit")
}
