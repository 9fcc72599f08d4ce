import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

/// Fills of real volumes mounted by the tests: a tmpfs, and an ext4 image on a loop device
/// (reserved blocks, a journal and delayed allocation, as on a real disk).
@Suite("Filler", .hangLimit)  // an await that never ends fails
struct FillerTests {
    enum VolumeKind: String, CaseIterable, CustomTestStringConvertible {
        case tmpfs, ext4
        var testDescription: String { rawValue }
    }

    static func mount(_ kind: VolumeKind, in folder: TestFolder, megabytes: Int = 64) throws -> ScratchVolume {
        switch kind {
        case .tmpfs: try ScratchVolume.mount(size: "\(megabytes)m", in: folder)
        case .ext4: try ScratchVolume.mountExt4(megabytes: megabytes, in: folder)
        }
    }

    static func figures(_ volume: ScratchVolume) throws -> Sys.SpaceFigures {
        try OpenFile.openFolder(atPath: volume.path, followingLinks: true).spaceFigures()
    }

    /// The available bytes once they reach `expected`, waiting up to 3 s: a process forked
    /// by a test running in parallel holds copies of this process's descriptors until it
    /// calls exec, so space of a just-closed file can come back a moment late.
    static func available(_ volume: ScratchVolume, settlingAt expected: Int64) throws -> Int64 {
        var available = try figures(volume).available
        for _ in 0..<300 where available != expected {
            Thread.sleep(forTimeInterval: 0.01)
            available = try figures(volume).available
        }
        return available
    }

    @Test("each method leaves the goal's available bytes within one block", arguments: VolumeKind.allCases, FillPlan.Method.allCases)
    func leaves(kind: VolumeKind, method: FillPlan.Method) throws {
        let folder = TestFolder()
        let volume = try Self.mount(kind, in: folder)
        let goal: Int64 = 10_000_000
        let report = try Filler(plan: FillPlan(volume: volume.url, goal: .leaving(goal), method: method, chunkSizeBytes: 1 << 20)).fill()
        let after = try Self.figures(volume)
        #expect(report.ending == .goalReached)
        #expect(report.targetAvailableBytes == (goal + after.blockSize - 1) / after.blockSize * after.blockSize)
        #expect(abs(after.available - report.targetAvailableBytes) < after.blockSize,
                "available \(after.available), target \(report.targetAvailableBytes), block \(after.blockSize)")
        #expect(report.availableBytesAfter == after.available)
        #expect(report.filledBytes > 40_000_000)
        let status = try #require(try FillFolder(in: volume.url).status())
        #expect(status.fileCount == report.fileCount && status.fileCount >= 1)
        #expect(status.availableBytesBefore == report.availableBytesBefore)
        #expect(status.foreignEntries.isEmpty && !status.isFilling)
        try FillFolder(in: volume.url).release()
        #expect(try FillFolder(in: volume.url).status() == nil)
        #expect(!FileManager.default.fileExists(atPath: volume.path + "/" + FillFolder.name))
        let released = try Self.available(volume, settlingAt: report.availableBytesBefore)
        #expect(abs(released - report.availableBytesBefore) <= 4 * after.blockSize, "released \(released), before \(report.availableBytesBefore)")
    }

    @Test("leaving nothing fills the last block too (tmpfs allocates a whole range or none of it)", arguments: VolumeKind.allCases)
    func leavesNothing(kind: VolumeKind) throws {
        let folder = TestFolder()
        let volume = try Self.mount(kind, in: folder, megabytes: 16)
        let report = try Filler(plan: FillPlan(volume: volume.url, goal: .leaving(0))).fill()
        #expect(report.ending == .goalReached)
        #expect(try Self.figures(volume).available == 0)
    }

    @Test("a percentage goal, and a second fill that continues the first", arguments: VolumeKind.allCases)
    func percentAndContinuation(kind: VolumeKind) throws {
        let folder = TestFolder()
        let volume = try Self.mount(kind, in: folder)
        let first = try Filler(plan: FillPlan(volume: volume.url, goal: .leavingPercent(50))).fill()
        let total = try Self.figures(volume).total
        #expect(abs(first.availableBytesAfter - total / 2) <= first.blockSizeBytes)
        let second = try Filler(plan: FillPlan(volume: volume.url, goal: .leavingPercent(10))).fill()
        #expect(abs(second.availableBytesAfter - total / 10) <= second.blockSizeBytes)
        #expect(second.fileCount == 0, "the second fill extends the first one's file")
        let status = try #require(try FillFolder(in: volume.url).status())
        #expect(status.availableBytesBefore == first.availableBytesBefore, "the manifest keeps the available bytes before the first fill")
    }

    @Test("consuming takes exactly that many bytes, rounded up to whole blocks", arguments: VolumeKind.allCases)
    func consumes(kind: VolumeKind) throws {
        let folder = TestFolder()
        let volume = try Self.mount(kind, in: folder)
        let before = try Self.figures(volume)
        let report = try Filler(plan: FillPlan(volume: volume.url, goal: .consuming(20_000_001), method: .zeros)).fill()
        let consumed = (20_000_001 + before.blockSize - 1) / before.blockSize * before.blockSize
        #expect(report.targetAvailableBytes == report.availableBytesBefore - consumed)
        #expect(abs(try Self.figures(volume).available - report.targetAvailableBytes) < before.blockSize)
    }

    @Test("another writer during the fill: the fill still stops at the goal, and the writer's file is intact")
    func parallelWriter() throws {
        let folder = TestFolder()
        let volume = try Self.mount(.ext4, in: folder)
        let other = Data((0..<5_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var wrote = false
        let report = try Filler(plan: FillPlan(volume: volume.url, goal: .leaving(8_000_000), chunkSizeBytes: 1 << 20)).fill { _ in
            if !wrote {
                wrote = true
                try? other.write(to: volume.url.appending(path: "other.bin"))
            }
        }
        #expect(wrote)
        let after = try Self.figures(volume)
        #expect(abs(after.available - report.targetAvailableBytes) < after.blockSize)
        #expect(try Data(contentsOf: volume.url.appending(path: "other.bin")) == other)
        try FillFolder(in: volume.url).release()
        #expect(try Data(contentsOf: volume.url.appending(path: "other.bin")) == other, "release leaves other files alone")
    }

    @Test("running out of space on the way is a normal end, and what was filled can be released")
    func outOfSpace() throws {
        let folder = TestFolder()
        // Four inodes: the root, the fill folder, its manifest and one spare for the manifest's
        // atomic rewrite; the first fill file then gets ENOSPC.
        let volume = try ScratchVolume.mount(size: "16m", options: ["nr_inodes=4"], in: folder)
        let report = try Filler(plan: FillPlan(volume: volume.url, goal: .leaving(0))).fill()
        #expect(report.ending == .volumeFull)
        #expect(report.filledBytes == 0)
        let status = try #require(try FillFolder(in: volume.url).status())
        #expect(status.fileCount == 0)
        try FillFolder(in: volume.url).release()
        #expect(try FillFolder(in: volume.url).status() == nil)
    }

    @Test("cancelling an async fill stops it promptly with a consistent manifest")
    func cancellation() async throws {
        let folder = TestFolder()
        let volume = try Self.mount(.tmpfs, in: folder, megabytes: 256)
        let before = try Self.figures(volume).available
        let plan = FillPlan(volume: volume.url, goal: .leaving(0), method: .random, chunkSizeBytes: 64 << 10)
        // The task is cancelled from the filling thread's first progress call, so the fill is
        // cancelled after exactly one chunk however busy the machine is.
        let gate = FirstCallGate()
        let task = Task {
            try await Filler(plan: plan).fill(progressInterval: .zero) { _ in gate.pass() }
        }
        gate.cancelAtFirstCall(task)
        let report = try await task.value
        #expect(gate.wasReached, "progress was reported after the first chunk")
        #expect(report.ending == .cancelled && report.wasCancelled)
        #expect(report.filledBytes == 64 << 10, "one chunk, then the cancellation")
        #expect(report.availableBytesAfter > 0, "stopped before the volume was full")
        let status = try #require(try FillFolder(in: volume.url).status())
        var manifest = stat()
        lstat(volume.path + "/" + FillFolder.name + "/" + FillManifest.fileName, &manifest)
        #expect(status.allocatedBytes + Int64(manifest.st_blocks) * 512 == before - report.availableBytesAfter,
                "the manifest names every byte filled")
        try FillFolder(in: volume.url).release()
        let after = try Self.available(volume, settlingAt: before)
        let left = (try? FileManager.default.subpathsOfDirectory(atPath: volume.path)) ?? []
        #expect(after == before, "before \(before), after \(after), left \(left)")
    }

    @Test("releasing an amount removes whole files from the newest and shrinks one")
    func releaseAmount() throws {
        let folder = TestFolder()
        let volume = try Self.mount(.tmpfs, in: folder)
        let report = try Filler(plan: FillPlan(volume: volume.url, goal: .consuming(30_000_000))).fill()
        let released = try FillFolder(in: volume.url).release(bytes: 5_000_000)
        #expect(released.releasedBytes >= 5_000_000 && released.releasedBytes < 5_000_000 + report.blockSizeBytes)
        #expect(released.availableBytesAfter - released.availableBytesBefore == released.releasedBytes)
        #expect(released.shrunkFileCount == 1 && released.removedFileCount == 0)
        let rest = try FillFolder(in: volume.url).release()
        #expect(rest.removedFileCount == 1 && rest.remainingBytes == 0)
        #expect(try Self.available(volume, settlingAt: report.availableBytesBefore) == report.availableBytesBefore)
    }

    @Test("a fill file that cannot be removed: release fails naming it, forgets only what it removed, and a later release finishes")
    func releaseFailureKeepsTheRestNamed() throws {
        let folder = TestFolder()
        let volume = try Self.mount(.tmpfs, in: folder)
        let report = try Filler(plan: FillPlan(volume: volume.url, goal: .consuming(2_000_000))).fill()
        let fillPath = volume.path + "/" + FillFolder.name
        // Two more fill files, marked as the fill's (a fill continues its newest file, so one fill
        // of this size makes one): the manifest does not name them yet, the release adopts them.
        let id = try #require(try FillReleaseSafetyTests.manifest(in: fillPath).json["id"] as? String)
        let size = 1 << 20  // whole pages: allocated as written
        for name in ["fill-000002", "fill-000003"] {
            try Data(count: size).write(to: URL(filePath: fillPath + "/" + name))
            try FillReleaseSafetyTests.mark(fillPath + "/" + name, with: Array(id.utf8))
        }
        var immutable: ImmutableFile? = try ImmutableFile(fillPath + "/fill-000002")

        // The amount of the two newest: fill-000003 goes, fill-000002 fails, fill-000001 is not chosen.
        let error = #expect(throws: StowageError.self) { try FillFolder(in: volume.url).release(bytes: Int64(2 * size)) }
        #expect(error?.code == .permissionDenied && error?.path == fillPath + "/fill-000002", "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: fillPath + "/fill-000003"), "the other file chosen was given back")
        let named = try #require(try FillReleaseSafetyTests.manifest(in: fillPath).json["files"] as? [[String: Any]])
        #expect(named.compactMap { $0["name"] as? String }.sorted() == ["fill-000001", "fill-000002"],
                "the manifest names the files left, and only them: \(named)")
        #expect(try FillFolder(in: volume.url).status()?.fileCount == 2)

        immutable = nil
        let rest = try FillFolder(in: volume.url).release()
        #expect(rest.removedFileCount == 2 && rest.remainingBytes == 0)
        #expect(!FileManager.default.fileExists(atPath: fillPath))
        #expect(try Self.available(volume, settlingAt: report.availableBytesBefore) == report.availableBytesBefore)
        _ = immutable
    }

    @Test("release never removes what the fill did not make")
    func releaseLeavesForeignFiles() throws {
        let folder = TestFolder()
        let volume = try Self.mount(.tmpfs, in: folder)
        try Filler(plan: FillPlan(volume: volume.url, goal: .consuming(3_000_000))).fill()
        let fillPath = volume.path + "/" + FillFolder.name
        // A stranger's file in the folder, one with a fill file's name, and a fill file
        // replaced by another file under the same name.
        try Data("keep".utf8).write(to: URL(filePath: fillPath + "/notes.txt"))
        try Data("keep".utf8).write(to: URL(filePath: fillPath + "/fill-000099"))
        try FileManager.default.removeItem(atPath: fillPath + "/fill-000001")
        try Data("replacement".utf8).write(to: URL(filePath: fillPath + "/fill-000001"))
        let status = try #require(try FillFolder(in: volume.url).status())
        #expect(status.fileCount == 0)
        #expect(status.foreignEntries == ["fill-000001", "fill-000099", "notes.txt"], "the replaced file is not the fill's")
        try FillFolder(in: volume.url).release()
        #expect(try String(contentsOfFile: fillPath + "/notes.txt", encoding: .utf8) == "keep")
        #expect(try String(contentsOfFile: fillPath + "/fill-000099", encoding: .utf8) == "keep")
        #expect(try String(contentsOfFile: fillPath + "/fill-000001", encoding: .utf8) == "replacement")
    }

    @Test("a damaged manifest is reported by status and rebuilt from the marked files by release")
    func damagedManifest() throws {
        let folder = TestFolder()
        let volume = try Self.mount(.tmpfs, in: folder)
        let report = try Filler(plan: FillPlan(volume: volume.url, goal: .consuming(8_000_000))).fill()
        let manifest = volume.path + "/" + FillFolder.name + "/" + FillManifest.fileName
        try Data("{\"format\": 1, \"files\": [tr".utf8).write(to: URL(filePath: manifest))
        let error = try #require(expectStowageError(.decodingFailed) { _ = try FillFolder(in: volume.url).status() })
        #expect(error.path == manifest)
        try FillFolder(in: volume.url).release()
        #expect(try Self.available(volume, settlingAt: report.availableBytesBefore) == report.availableBytesBefore)
    }

    @Test("a marked fill file the manifest does not name yet (a power loss before it was written back) is still released")
    func adoptsMarkedFiles() throws {
        let folder = TestFolder()
        let volume = try Self.mount(.tmpfs, in: folder)
        let report = try Filler(plan: FillPlan(volume: volume.url, goal: .consuming(6_000_000))).fill()
        let manifestURL = URL(filePath: volume.path + "/" + FillFolder.name + "/" + FillManifest.fileName)
        var manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
        manifest["files"] = []
        try JSONSerialization.data(withJSONObject: manifest).write(to: manifestURL)
        #expect(try FillFolder(in: volume.url).status()?.fileCount == 1)
        try FillFolder(in: volume.url).release()
        #expect(try Self.available(volume, settlingAt: report.availableBytesBefore) == report.availableBytesBefore)
    }

    @Test("holding fills with unnamed files whose space returns when released")
    func hold() throws {
        let folder = TestFolder()
        let volume = try Self.mount(.tmpfs, in: folder)
        let before = try Self.figures(volume).available
        let hold = try Filler(plan: FillPlan(volume: volume.url, goal: .leaving(4_000_000))).hold()
        #expect(hold.isUnnamed)
        #expect(abs(try Self.figures(volume).available - 4_000_000) < 4096)
        #expect(try FileManager.default.contentsOfDirectory(atPath: volume.path).isEmpty, "nothing named is left on the volume")
        try hold.release()
        #expect(try Self.available(volume, settlingAt: before) == before)
    }

    @Test("bad plans are clear errors that change nothing")
    func badPlans() throws {
        let folder = TestFolder()
        let volume = try Self.mount(.tmpfs, in: folder, megabytes: 16)
        let before = try Self.figures(volume).available
        let cases: [(FillPlan, StowageError.Code)] = [
            (FillPlan(volume: volume.url, goal: .leaving(-1)), .invalidArgument),
            (FillPlan(volume: volume.url, goal: .consuming(-5_000_000)), .invalidArgument),
            (FillPlan(volume: volume.url, goal: .leaving(1 << 40)), .invalidArgument),
            (FillPlan(volume: volume.url, goal: .leavingPercent(101)), .invalidArgument),
            (FillPlan(volume: volume.url, goal: .consuming(1 << 40)), .noSpace),
            (FillPlan(volume: volume.url, goal: .leaving(0), chunkSizeBytes: 0), .invalidArgument),
            (FillPlan(volume: volume.url.appending(path: "missing"), goal: .leaving(0)), .notFound),
        ]
        for (plan, code) in cases {
            let error = try #require(expectStowageError(code) { _ = try Filler(plan: plan).fill() })
            #expect(error.path?.hasPrefix(volume.path) == true, "\(error)")
            #expect(!error.description.isEmpty)
        }
        #expect(try Self.available(volume, settlingAt: before) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: volume.path).isEmpty)
        expectStowageError(.invalidArgument) { _ = try FillFolder(in: volume.url).release(bytes: -1) }
    }

    @Test("the volume holding / is refused below the safety floor unless forced, and nothing is written")
    func safetyFloorBytes() throws {
        let folder = TestFolder()
        try requireOnRootVolume(folder.path)
        // A floor above anything the volume has and a goal of one block: even if the refusal
        // failed, one block of the system volume would be taken, not all of it.
        let error = try #require(expectStowageError(.refused) {
            _ = try Filler(plan: FillPlan(volume: folder.url, goal: .consuming(4096), safetyFloorBytes: .max)).fill()
        })
        #expect(error.path == folder.path)
        #expect(error.reason?.contains("safety floor") == true)
        #expect(!folder.exists(FillFolder.name))
    }

    @Test("a system volume is filled below the safety floor only when forced, then exactly (the home folder's volume, in a child)")
    func forcedFillOfASystemVolume() throws {
        // Forcing a fill of the volume holding / would depend on what the other tests write
        // there meanwhile: the volume here is the child process's home folder's (HOME points at
        // a tmpfs of the test's own), which the same rule protects.
        let folder = TestFolder()
        let volume = try Self.mount(.tmpfs, in: folder, megabytes: 32)
        let helper = try builtProduct("stowage-test-helper")
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = volume.path
        let before = try Self.figures(volume)
        let refused = try runProcess(helper, ["fill", volume.path, "8000000", "unforced"], environment: environment)
        #expect(refused.status == 3 && refused.output == "error refused\n", "\(refused.output) \(refused.error)")
        #expect(try Self.figures(volume).available == before.available, "nothing written")
        let forced = try runProcess(helper, ["fill", volume.path, "8000000", "forced"], environment: environment)
        let consumed = (8_000_000 + before.blockSize - 1) / before.blockSize * before.blockSize
        #expect(forced.status == 0 && forced.output.hasPrefix("filled "), "\(forced.output) \(forced.error)")
        #expect(abs(try Self.figures(volume).available - (before.available - consumed)) < before.blockSize)
        try FillFolder(in: volume.url).release()
        #expect(try Self.available(volume, settlingAt: before.available) == before.available)
    }

    @Test("a fill's progress carries its goal: FillProgress reads the target, also when another writer takes the volume below it")
    func progressCarriesTheTarget() async throws {
        let folder = TestFolder()
        let volume = try ScratchVolume.mount(size: "16m", in: folder)
        let targets = TargetLog()
        let intruder = volume.path + "/another-writer.bin"
        let report = try await Filler(plan: FillPlan(volume: volume.url, goal: .leaving(4 << 20), chunkSizeBytes: 1 << 20))
            .fill(progressInterval: .zero) { progress in
                if let figures = FillProgress(progress) { targets.add(figures.targetAvailableBytes) }
                // Another writer takes 12 MiB at the first report: the volume ends below the goal.
                if targets.values.count == 1 {
                    _ = FileManager.default.createFile(atPath: intruder, contents: Data(count: 12 << 20))
                }
            }
        #expect(report.availableBytesAfter < report.targetAvailableBytes, "\(report)")
        #expect(!targets.values.isEmpty)
        #expect(Set(targets.values) == [report.targetAvailableBytes], "\(targets.values) vs \(report.targetAvailableBytes)")
        try FillFolder(in: volume.url).release()
    }
}

/// Targets seen by a progress callback on the filling thread.
///
/// `@unchecked Sendable`: `list` is read and written only under `lock`.
private final class TargetLog: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Int64] = []
    func add(_ value: Int64) { lock.withLock { list.append(value) } }
    var values: [Int64] { lock.withLock { list } }
}
