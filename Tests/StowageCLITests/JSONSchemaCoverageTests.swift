import Foundation
import Testing
@testable import Stowage
@testable import stowage

/// The schemas in `Schemas/` against the types that write the command's JSON, both ways: a value
/// of every output type, encoded as the command encodes it (a name that is not UTF-8 included),
/// validates against its schema; and every key a schema declares is one of those values has, so
/// a key renamed in Swift fails here, in the schema, instead of leaving a stale name behind.
@Suite("JSON output: every output type against its schema")
struct JSONSchemaCoverageTests {
    let schemas: JSONSchemas

    init() throws { schemas = try JSONSchemas() }

    @Test("a value of every output type validates, and each schema declares only keys these values have")
    func everyTypeAgainstItsSchema() throws {
        let documents = try Self.documents()
        let covered = Set(documents.map(\.schema))
        #expect(covered == Set(schemas.fileNames).subtracting([JSONSchemas.sharedFile]),
                "every schema has a value here, and only schemas do")
        for schema in covered.sorted() {
            var seen: Set<String> = []
            for document in documents where document.schema == schema {
                let value = try JSONSerialization.jsonObject(with: Data(document.text.utf8))
                let validation = schemas.validation(of: value, against: schema)
                #expect(validation.errors.isEmpty,
                        "\(document.name) against \(schema):\n\(validation.errors.map(\.description).joined(separator: "\n"))\n\(document.text)")
                seen.formUnion(validation.seen)
            }
            let stale = schemas.declaredProperties(of: schema).subtracting(seen).sorted()
            #expect(stale.isEmpty, "\(schema) declares keys no value of its types has (renamed or gone?): \(stale)")
        }
    }

    @Test("a name that is not UTF-8 is written as path (with U+FFFD) and pathBase64 (its exact bytes)")
    func nameThatIsNotUTF8() throws {
        let text = try JSONOutput.encode(Self.sweep(cancelled: false))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let removed = try #require(object["removed"] as? [[String: Any]])
        let odd = try #require(removed.first { $0["pathBase64"] != nil }, "\(text)")
        #expect(Data(base64Encoded: try #require(odd["pathBase64"] as? String)) == Data(Self.latin1Name))
        #expect((odd["path"] as? String)?.contains("\u{FFFD}") == true)
        #expect(removed.filter { $0["pathBase64"] == nil }.count == 1, "a UTF-8 name has no pathBase64")
    }

    @Test("every library report writes each stored property under the property's own name (one name per idea)")
    func keysAreTheSwiftNames() throws {
        let capacity = Self.capacity(mountPoint: "/v")
        let room = Room(fileSystem: "tmpfs", folders: ["/home/u"], hiddenMounts: [], availableBytes: 4096, totalBytes: 8192,
                        blockSizeBytes: 4096, availableInodeCount: 10, isUserNamespace: true)
        let kept = KeptWrites(folder: "/keep", fileCount: 1, folderCount: 2, symbolicLinkCount: 0, copiedBytes: 5,
                              removedPaths: [], skippedPaths: [], notCopied: [])
        let reports: [(String, any Encodable)] = [
            ("VolumeCapacity", capacity), ("UsageReport", Self.usageReport()), ("UsageTotals", Self.usageReport().roots[0]),
            ("UsageItem", Self.items()[1]), ("UsageDifference", Self.difference()), ("UsageChange", Self.difference().roots[0].children[0]),
            ("UsageFigures", UsageFigures(Self.items()[0])), ("UsageHardLink", Self.items()[1].hardLink!), ("UsageIssue", Self.issues()[0]), ("SweepReport", Self.sweep(cancelled: true)),
            ("SweptFile", Self.sweep(cancelled: false).removed[0]),
            ("SweepRecord", SweepRecord(date: Self.date, removedFileCount: 1, freedAllocatedBytes: 4096)),
            ("ReliefReport", Self.relief()), ("ReliefStep", Self.relief().steps[0]), ("AuditReport", Self.audit()),
            ("AuditFinding", Self.audit().findings[0]), ("LocationTotals", Self.audit().purgeableUnderPressure[0]),
            ("FillProgress", Self.fillProgress), ("FillReport", Self.fillReport), ("FillStatus", Self.fillStatus),
            ("FillReleaseReport", Self.release), ("Room", room),
            ("RoomDrop", RoomDrop(date: Self.date, availableBytesBefore: 8192, availableBytesAfter: 4096)), ("KeptWrites", kept),
        ]
        for (name, report) in reports {
            // Exactly two properties have another form in JSON: `pathBytes` (`pathBase64`, only for
            // a name that is not UTF-8) and `wasCancelled` (only when true, or never); and one
            // figure is derived: `VolumeCapacity.usedBytes`. A property under a property wrapper
            // (`@NullWhenAbsent`, ...) is stored as `_name`: its name is `name`.
            let properties = Set(Mirror(reflecting: report).children.compactMap(\.label).map { $0.hasPrefix("_") ? String($0.dropFirst()) : $0 })
                .subtracting(["pathBytes", "wasCancelled"])
            let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? [String: Any])
            let keys = Set(object.keys).subtracting(["pathBase64", "wasCancelled", "usedBytes"])
            #expect(keys == properties, "\(name): JSON \(keys.subtracting(properties).sorted()), Swift \(properties.subtracting(keys).sorted())")
        }
    }

    // MARK: - Values of every output type

    /// An encoded document (or event line), the schema it follows, and what it is.
    struct Document {
        var name: String
        var schema: String
        var text: String
    }

    /// One or more values of every type the command writes, encoded as the command encodes them.
    static func documents() throws -> [Document] {
        let capacity = Self.capacity(mountPoint: "/")
        let rooted = ContainerJSON(Container(root: URL(filePath: "/tmp/demo", directoryHint: .isDirectory)))
        let xdg = ContainerJSON(try Container.default(appIdentifier: "com.example.App",
                                                      environment: ["HOME": "/home/u", "TMPDIR": "/tmp"]))
        let locations = Self.locations().map(LocationJSON.init)
        let mounted = MountedVolume(mountPoint: "/", mountPointBytes: Array("/".utf8), otherMountPoints: ["/mnt/bind"], source: "/dev/vda", fileSystemType: "ext4",
                                    kind: .local, capacity: capacity)
        let error = StowageError(.notFound, operation: .retrieve, location: .caches, path: "Caches/feed.json", errno: .noSuchEntry,
                                 reason: "there is no such file")
        let usageError = ErrorJSON(error: .init(code: "usage", operation: "parse arguments", location: nil, path: nil, errno: nil,
                                                message: "Missing expected argument '--available <size>'"))
        var documents: [Document] = []
        func document(_ name: String, _ schema: String, _ value: some Encodable) throws {
            documents.append(Document(name: name, schema: schema, text: try JSONOutput.encode(value)))
        }
        func event(_ name: String, _ schema: String, _ payload: some Encodable = EmptyPayload()) throws {
            documents.append(Document(name: "\(schema) \(name)", schema: schema,
                                      text: try JSONOutput.line(EventLine(event: EventName(rawValue: name), date: Self.date, payload: payload))))
        }
        try document("overview", "overview.json", OverviewJSON(container: xdg, capacity: capacity, locations: locations))
        try document("locations", "locations.json", LocationsJSON(container: rooted, locations: locations))
        try document("info", "info.json", capacity)
        var notUTF8 = mounted
        notUTF8.mountPoint = "/mnt/m\u{FFFD}"
        notUTF8.mountPointBytes = Array("/mnt/m".utf8) + [0xFF]
        try document("info --all", "info-all.json", [MountedVolumeJSON(mounted), MountedVolumeJSON(notUTF8)])
        let report = Self.usageReport()
        // As the command writes it: UsageJSON.text(), the same bytes as JSONOutput.encode.
        documents.append(Document(name: "usage", schema: "usage.json", text: UsageJSON(report, breakdown: report.breakdownTree()[0].children).text()))
        // As the command writes it: UsageComparisonJSON, the same bytes as JSONOutput.encode.
        documents.append(Document(name: "usage --compare", schema: "usage-compare.json", text: UsageComparisonJSON.text(Self.difference())))
        try document("sweep", "sweep.json", Self.sweep(cancelled: false))
        try document("sweep, cancelled", "sweep.json", Self.sweep(cancelled: true))
        try document("relieve", "relieve.json", Self.relief())
        try document("audit", "audit.json", Self.audit())
        try document("fill", "fill.json", Self.fillReport)
        try event("progress", "fill-events.json", Self.fillProgress)
        try event("filled", "fill-events.json", Self.fillReport)
        try event("holding", "fill-events.json", Self.fillReport)
        try event("released", "fill-events.json", ReleasedJSON(availableBytes: 1_000_000))
        try event("error", "fill-events.json", ErrorJSON(error))
        try document("fill --status, nothing filled", "fill-status.json", FillStatusJSON(folder: "/v/.stowage-fill", status: nil))
        try document("fill --status", "fill-status.json", FillStatusJSON(folder: "/v/.stowage-fill", status: Self.fillStatus))
        try document("release", "release.json", Self.release)
        try event("started", "watch-events.json", WatchStartedJSON(folder: "/home/u/Documents", targetAvailableBytes: 1_000_000_000,
                                                                    intervalSeconds: 60))
        try event("relief", "watch-events.json", WatchReliefJSON(Self.relief()))
        try event("stopped", "watch-events.json")
        try event("error", "watch-events.json", usageError)
        let room = Room(fileSystem: "tmpfs", folders: ["/home/u/.cache/app"], hiddenMounts: [], availableBytes: 8192,
                        totalBytes: 1 << 20, blockSizeBytes: 4096, availableInodeCount: 100, isUserNamespace: false)
        let failed = RoomTrial(size: 8192, room: room, commandEnding: .exited(1), checkEnding: .exited(1))
        let killed = RoomTrial(size: 8192, room: room, commandEnding: .signalled(.kill), checkEnding: nil)
        try event("room", "run-range-events.json", RangeTrialJSON(failed))
        try event("room", "run-range-events.json", RangeTrialJSON(killed))
        try event("finished", "run-range-events.json",
                  RangeFinishedJSON(quantity: "bytes", roomCount: 3, failedCount: 1, failedRooms: [RangeRoomJSON(failed)],
                                    hasCommandSucceeded: true, keptRoom: RangeRoomJSON(failed), keptFolder: "/tmp/kept", exitStatus: 1))
        try event("finished", "run-range-events.json",
                  RangeFinishedJSON(quantity: "inodes", roomCount: 3, failedCount: 0, failedRooms: [], hasCommandSucceeded: false,
                                    keptRoom: nil, keptFolder: nil, exitStatus: 3))
        try event("minimum", "run-range-events.json",
                  RangeMinimumJSON(quantity: "bytes", roomCount: 12, minimumAvailableBytes: 102_400, minimumAvailableInodeCount: nil,
                                   isConfirmed: true, exitStatus: 0))
        try event("interrupted", "run-range-events.json", RangeInterruptedJSON(roomCount: 4))
        try event("error", "run-range-events.json", ErrorJSON(error))
        try document("error", "error.json", ErrorJSON(error))
        try document("usage error", "error.json", usageError)
        return documents
    }

    static let date = Date(timeIntervalSince1970: 1_795_000_000)

    /// `caf\xe9.txt`: a Latin-1 name, not UTF-8.
    static let latin1Name: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".txt".utf8)

    static func capacity(mountPoint: String?) -> VolumeCapacity {
        VolumeCapacity(statistics: VolumeStatistics(blockSize: 4096, total: 40_960_000, available: 8_192_000, free: 12_288_000, device: 1,
                                                    mountPoint: mountPoint, fileSystemType: "ext4", totalInodes: 1000,
                                                    availableInodes: 900),
                       path: "/home/u/Documents", reclaimable: 4096, simulated: nil)
    }

    static func locations() -> [LocationUsage] {
        var caches = UsageTotals(path: "/home/u/.cache/app")
        caches.fileCount = 2
        caches.allocatedBytes = 8192
        caches.logicalBytes = 5000
        return [
            LocationUsage(location: .caches, path: "/home/u/.cache/app", exists: true, totals: caches, issues: []),
            LocationUsage(location: .sharedContainer("group.example"), path: "/home/u/.local/share/group.example", exists: false,
                          totals: UsageTotals(path: "/home/u/.local/share/group.example"), issues: []),
        ]
    }

    static func items() -> [UsageItem] {
        [UsageItem(pathBytes: Array("/r/a".utf8), depth: 1, isFolder: true, logicalBytes: 10, allocatedBytes: 8192, fileCount: 2,
                   modificationDate: Date(timeIntervalSince1970: 1_700_000_000)),
         UsageItem(pathBytes: Array("/r/a/".utf8) + latin1Name, depth: 2, isFolder: false, logicalBytes: 5, allocatedBytes: 4096,
                   fileCount: 1, modificationDate: Date(timeIntervalSince1970: 1_700_000_001),
                   hardLink: UsageHardLink(device: 2049, inode: 12, linkCount: 2))]
    }

    static func issues() -> [UsageIssue] {
        [UsageIssue(pathBytes: Array("/r/".utf8) + latin1Name, errno: .permissionDenied, message: "permission denied; its contents were skipped"),
         UsageIssue(pathBytes: Array("/r/b".utf8), errno: nil, message: "changed while it was read")]
    }

    /// A difference with every kind of change: the file that is not UTF-8 grew, a folder came
    /// (with a file), and the report's second root is not in the newer one.
    static func difference() -> UsageDifference {
        let before = usageReport()
        var after = before
        after.roots.removeLast()
        after.breakdown[1].allocatedBytes += 4096
        after.breakdown[0].allocatedBytes += 4096
        after.roots[0].allocatedBytes += 8192
        after.breakdown.append(UsageItem(pathBytes: Array("/r/new".utf8), depth: 1, isFolder: true, logicalBytes: 0, allocatedBytes: 4096, fileCount: 0))
        return after.difference(from: before)
    }

    static func usageReport() -> UsageReport {
        var root = UsageTotals(path: "/r")
        root.fileCount = 2
        root.folderCount = 2
        root.symbolicLinkCount = 1
        root.otherCount = 1
        root.allocatedBytes = 12_288
        root.logicalBytes = 10
        var again = UsageTotals(path: "/r/a")
        again.alreadyCountedIn = "/r"
        var totals = root
        totals.path = nil
        return UsageReport(roots: [root, again], totals: totals, skippedHardLinkCount: 1, largestFiles: [items()[1]],
                           breakdown: items(), issues: issues())
    }

    static func sweep(cancelled: Bool) -> SweepReport {
        func file(_ path: [UInt8], reason: SweepReason) -> SweptFile {
            SweptFile(SweepEngine.Candidate(path: RawPath(bytes: path), folder: RawPath(""), kind: .file, device: 1, inode: 2,
                                            linkCount: 1, logical: 100, allocated: 4096, access: 1_700_000_000,
                                            modification: 1_690_000_000, reason: reason))
        }
        return SweepReport(folder: "/home/u/.cache/app", isDryRun: false,
                           removed: [file(Array("thumbs/1.png".utf8), reason: .size), file(latin1Name, reason: .age)],
                           removedFolders: ["thumbs"], freedLogicalBytes: 200, freedAllocatedBytes: 8192, keptFileCount: 3,
                           keptAllocatedBytes: 12_288, pinnedItemCount: 1, issues: issues(), wasCancelled: cancelled)
    }

    static func relief() -> ReliefReport {
        ReliefReport(targetAvailableBytes: 1_000_000, availableBytesBefore: 10, neededBytes: 999_990, freedAllocatedBytes: 8192,
                     isSatisfied: false, isDryRun: true, isSimulated: true,
                     steps: [ReliefStep(location: .temporary, report: sweep(cancelled: true))],
                     issues: [UsageIssue(pathBytes: Array("/home/u/Library/Caches".utf8), errno: .tooManySymbolicLinkLevels,
                                         message: "it is a link; skipped")])
    }

    static func audit() -> AuditReport {
        AuditReport(findings: [AuditFinding(kind: "largeBackedUpFile", location: .documents, path: RawPath(bytes: latin1Name),
                                            allocatedBytes: 20_000_000, advice: "backed up")],
                    purgeableUnderPressure: [LocationTotals(location: .caches, fileCount: 4, allocatedBytes: 16_384)],
                    issues: issues())
    }

    static let fillProgress = FillProgress(filledBytes: 4096, availableBytes: 1_000_000, targetAvailableBytes: 500_000,
                                           bytesPerSecond: 1e9, remainingSeconds: nil, elapsedSeconds: 0.5)

    static let fillReport = FillReport(folder: "/v/.stowage-fill", method: .allocate, goal: "leaving 500 kB", targetAvailableBytes: 500_000,
                                       availableBytesBefore: 1_000_000, availableBytesAfter: 500_000, totalBytes: 2_000_000,
                                       blockSizeBytes: 4096, filledBytes: 500_000, fileCount: 1, elapsedSeconds: 0.02, ending: .goalReached)

    static let fillStatus = FillStatus(folder: "/v/.stowage-fill", fileCount: 1, allocatedBytes: 500_000, availableBytesBefore: 1_000_000,
                                       availableBytes: 500_000, foreignEntries: ["notes.txt"], isFilling: false)

    static let release = FillReleaseReport(folder: "/v/.stowage-fill", removedFileCount: 1, shrunkFileCount: 0, releasedBytes: 500_000,
                                           availableBytesBefore: 500_000, availableBytesAfter: 1_000_000, remainingBytes: 0)
}
