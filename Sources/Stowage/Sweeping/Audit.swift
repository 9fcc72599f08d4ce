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
}

extension Container {
    /// The size at which Apple's defaults system starts warning about a preferences file.
    public static let preferencesWarningSize: Int64 = 4 * 1024 * 1024

    /// Looks for storage habits that cost space or backups:
    /// - files of at least `minimumSize` in backed-up locations that are not excluded from backup
    ///   (re-downloadable data belongs in Caches, or should be excluded);
    /// - preferences files over 4 MiB, the size at which Apple's defaults system starts warning;
    /// - pinned files in Caches, which then never go under pressure;
    /// and totals what pressure relief would free: everything in tmp, unpinned caches, and files
    /// marked purgeable elsewhere.
    ///
    /// - Throws: as ``url(for:)``; unreadable folders are issues in the report.
    public func audit(minimumSize: Int64 = 10_000_000) throws -> AuditReport {
        var findings: [AuditFinding] = []
        var purgeable: [LocationTotals] = []
        var issues: [UsageIssue] = []
        for location in [Location.temporary, .caches, .documents, .applicationSupport, .preferences] {
            guard let folder = try openFolder(of: location, create: false, operation: .audit) else { continue }
            let base = try url(for: location).fileSystemPath
            var totals = LocationTotals(location: location.identifier, files: 0, allocatedBytes: 0)
            do {
                try FileTreeWalk(root: folder).run({ entry in
                    guard entry.status.kind == .file else { return entry.status.kind == .folder }
                    if RelativePath.isReserved(entry.name) || entry.name == CacheDirectoryTag.name { return false }
                    let absolute = base + "/" + entry.path
                    let size = entry.status.allocatedSize
                    switch location {
                    case .temporary:
                        totals.files += 1
                        totals.allocatedBytes += size
                    case .caches:
                        if try Marker.pinned.isSet(atPath: absolute) {
                            findings.append(AuditFinding(kind: "pinnedInCaches", location: location.identifier, path: entry.path,
                                                         allocatedBytes: size,
                                                         advice: "pinned: it never goes under storage pressure; unpin it or keep it in Application Support"))
                        } else {
                            totals.files += 1
                            totals.allocatedBytes += size
                        }
                    default:
                        if try Marker.purgeable.isSet(atPath: absolute), !(try Marker.pinned.isSet(atPath: absolute)) {
                            totals.files += 1
                            totals.allocatedBytes += size
                        }
                        if location == .preferences, entry.status.size > Self.preferencesWarningSize {
                            findings.append(AuditFinding(kind: "largePreferencesFile", location: location.identifier, path: entry.path,
                                                         allocatedBytes: size,
                                                         advice: "over 4 MiB: preferences are read whole at launch; move the data to Application Support"))
                        } else if size >= minimumSize, !(try BackupMarker.isExcluded(atPath: absolute)) {
                            findings.append(AuditFinding(kind: "largeBackedUpFile", location: location.identifier, path: entry.path,
                                                         allocatedBytes: size,
                                                         advice: "backed up: if it can be downloaded again, move it to Caches or exclude it from backup"))
                        }
                    }
                    return false
                }, problem: { folder, error in
                    issues.append(UsageIssue(path: base + (folder.isEmpty ? "" : "/" + folder), errno: error.errno,
                                             message: StowageError.describe(errno: error.errno) + "; its contents were skipped"))
                })
            } catch let error as SystemCallError {
                throw StowageError(error, operation: .audit, location: location, path: "")
            }
            if location.policy.purgePriority < .never || totals.files > 0 { purgeable.append(totals) }
        }
        findings.sort { ($0.allocatedBytes, $1.path) > ($1.allocatedBytes, $0.path) }
        return AuditReport(findings: findings, purgeableUnderPressure: purgeable, issues: issues)
    }
}

extension StowageError.Operation {
    /// Auditing a container.
    public static let audit = StowageError.Operation("audit")
}
