import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

/// Fills and releases on file systems that count writes and removals late: XFS (speculative
/// preallocation past the end of a growing file, blocks of removed files freed by a background
/// worker) and btrfs (written data counted once written back), on loop volumes; and the rule
/// that a fill claims its goal only on a settled figure within one block above it.
@Suite("Fill settling", .hangLimit)
struct FillSettlingTests {
    /// The volume's available bytes once they stay put: written back, then read every 300 ms
    /// until two readings agree (at most 10 s). Independent of ``SettledFigures``, which it checks.
    static func settledAvailable(_ volume: ScratchVolume) throws -> Int64 {
        let folder = try OpenFile.openFolder(atPath: volume.path, followingLinks: true)
        var last: Int64 = -1
        for _ in 0..<34 {
            try folder.syncVolume()
            let available = try folder.spaceFigures().available
            if available == last { return available }
            last = available
            Thread.sleep(forTimeInterval: 0.3)
        }
        Issue.record("the available bytes of \(volume.path) never settled (last \(last))")
        return last
    }

    /// Whether `available` is within one block above the report's target.
    static func isAtGoal(_ available: Int64, _ report: FillReport) -> Bool {
        available >= report.targetAvailableBytes && available < report.targetAvailableBytes + report.blockSizeBytes
    }

    // MARK: The definition of settled

    /// Readings given one by one, and the pauses asked for between them.
    final class ScriptedVolume {
        var readings: [Int64]
        var pauses: [Duration] = []
        init(_ readings: [Int64]) { self.readings = readings }

        func measure() throws -> SettledFigures {
            try SettledFigures.measure(pause: { self.pauses.append($0) }, reading: next)
        }

        /// Measures as a release does, polling until `expected`; `polls` counts the polls.
        func measure(reaching expected: Int64) throws -> SettledFigures {
            try SettledFigures.measure(reaching: expected, pause: { self.pauses.append($0) }, poll: {
                self.polls += 1
                return try self.next()
            }, reading: next)
        }
        var polls = 0

        private func next() throws -> Sys.SpaceFigures {
            let available = readings.count > 1 ? readings.removeFirst() : readings[0]
            return Sys.SpaceFigures(blockSize: 4096, total: 1 << 30, available: available, free: available)
        }
    }

    @Test("a release waits for the figure it gave back: a still figure below it does not settle it")
    func reachingWaitsForTheRelease() throws {
        // The volume has not begun counting the release (XFS's background worker not run yet):
        // settling alone would take 100, the figure of before the release.
        let volume = ScriptedVolume([100, 100, 100, 150, 150, 150])
        let settled = try volume.measure(reaching: 150)
        #expect(settled.available == 150 && settled.isSettled && volume.polls == 4)
        #expect(volume.pauses == Array(repeating: SettledFigures.pollPause, count: 3) + [.milliseconds(20)])
        #expect(try ScriptedVolume([100, 100, 100, 150]).measure().available == 100, "what settling alone gives")
    }

    @Test("the figure reached at the last poll still counts; one never reached ends the polls at 400 (2 s), then settles")
    func reachingIsBounded() throws {
        let atLast = ScriptedVolume(Array(repeating: 100, count: SettledFigures.maximumPolls - 1) + [150])
        #expect(try atLast.measure(reaching: 150).available == 150 && atLast.polls == SettledFigures.maximumPolls)
        let never = ScriptedVolume([100])  // another writer took what was given back
        let settled = try never.measure(reaching: 150)
        #expect(settled.available == 100 && settled.isSettled && never.polls == SettledFigures.maximumPolls)
        #expect(never.pauses.filter { $0 == SettledFigures.pollPause }.count == SettledFigures.maximumPolls - 1)
        #expect(SettledFigures.pollPause * SettledFigures.maximumPolls == .seconds(2))
    }

    @Test("settled: two readings 20 ms apart that agree; never one reading alone")
    func settlesOnTwoReadings() throws {
        let volume = ScriptedVolume([500])
        let settled = try volume.measure()
        #expect(settled == SettledFigures(figures: Sys.SpaceFigures(blockSize: 4096, total: 1 << 30, available: 500, free: 500),
                                          isSettled: true, readings: 2))
        #expect(volume.pauses == [.milliseconds(20)])
    }

    @Test("while the figure moves the pause doubles, and the first two readings that agree settle it")
    func settlesOnceStill() throws {
        let volume = ScriptedVolume([100, 200, 300, 300, 999])
        let settled = try volume.measure()
        #expect(settled.available == 300 && settled.isSettled && settled.readings == 4)
        #expect(volume.pauses == [.milliseconds(20), .milliseconds(40), .milliseconds(80)])
    }

    @Test("a figure that never settles: seven readings, 1.26 s of pauses, the last reading, not settled")
    func boundedWhenMoving() throws {
        let volume = ScriptedVolume([1, 2, 3, 4, 5, 6, 7, 8, 9])
        let settled = try volume.measure()
        #expect(settled.available == 7 && !settled.isSettled && settled.readings == 7)
        #expect(volume.pauses == [20, 40, 80, 160, 320, 640].map { Duration.milliseconds($0) })
    }

    // MARK: XFS

    @Test("a fill on XFS lands within one block of the goal, and claims it only where the settled figure agrees",
          .long("a 400 MB XFS volume filled once per fill method"), arguments: FillPlan.Method.allCases)
    func fillOnXFS(method: FillPlan.Method) throws {
        let folder = TestFolder()
        let volume = try ScratchVolume.mountXFS(megabytes: 400, in: folder.url)
        let report = try Filler(plan: FillPlan(volume: volume.url, goal: .leaving(100_000_000), method: method)).fill()
        let after = try Self.settledAvailable(volume)
        #expect(report.targetAvailableBytes == 100_003_840)
        #expect(report.availableBytesAfter == after, "reported \(report.availableBytesAfter), settled \(after)")
        #expect(Self.isAtGoal(after, report), "available \(after), target \(report.targetAvailableBytes)")
        #expect(report.ending == .goalReached)
        try FillFolder(in: volume.url).release()
    }

    @Test("a release on XFS reports the available bytes once XFS has freed the fill's blocks")
    func releaseOnXFS() throws {
        let folder = TestFolder()
        let volume = try ScratchVolume.mountXFS(megabytes: 400, in: folder.url)
        let fill = try Filler(plan: FillPlan(volume: volume.url, goal: .leaving(100_000_000), method: .zeros)).fill()
        let part = try FillFolder(in: volume.url).release(bytes: 50_000_000)
        #expect(part.availableBytesAfter == (try Self.settledAvailable(volume)))
        #expect(part.availableBytesAfter >= fill.availableBytesAfter + 50_000_000, "\(part)")
        let rest = try FillFolder(in: volume.url).release()
        let after = try Self.settledAvailable(volume)
        #expect(rest.availableBytesAfter == after, "reported \(rest.availableBytesAfter), settled \(after)")
        #expect(after == fill.availableBytesBefore, "the fill's space back, to the byte")
    }

    @Test("a hold released on XFS returns once the volume counts the space it gave back")
    func holdOnXFS() throws {
        let folder = TestFolder()
        let volume = try ScratchVolume.mountXFS(megabytes: 400, in: folder.url)
        let hold = try Filler(plan: FillPlan(volume: volume.url, goal: .leaving(100_000_000), method: .zeros)).hold()
        #expect(hold.isUnnamed && hold.report.ending == .goalReached && hold.report.availableBytesAfter == 100_003_840, "\(hold.report)")
        try hold.release()
        let now = try OpenFile.openFolder(atPath: volume.path, followingLinks: true).spaceFigures().available
        #expect(now == hold.report.availableBytesBefore, "available \(now) right after the release")
    }

    // MARK: btrfs

    @Test("two fills at once on btrfs never claim the goal unless the volume is at it", .long("two fills at once of a btrfs volume"))
    func concurrentFillsOnBtrfs() async throws {
        let folder = TestFolder()
        let volume = try ScratchVolume.mountBtrfs(megabytes: 256, in: folder.url)
        for round in 1...2 {
            let plans = ["a", "b"].map { name in
                let url = volume.url.appending(path: name, directoryHint: .isDirectory)
                try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
                return FillPlan(volume: url, goal: .leaving(30_000_000), method: .zeros)
            }
            async let first = Filler(plan: plans[0]).fill(progressInterval: WorkProgress.defaultInterval, progress: nil)
            async let second = Filler(plan: plans[1]).fill(progressInterval: WorkProgress.defaultInterval, progress: nil)
            let reports = try await [first, second]
            let after = try Self.settledAvailable(volume)
            for report in reports where report.ending == .goalReached {
                #expect(Self.isAtGoal(report.availableBytesAfter, report), "round \(round): \(report)")
            }
            if reports.allSatisfy({ $0.ending == .goalReached }) {
                #expect(Self.isAtGoal(after, reports[0]), "round \(round): both claim the goal, available \(after)")
            }
            for plan in plans { try FillFolder(in: plan.volume).release() }
        }
    }

    // MARK: Another writer

    @Test("another writer takes the volume below the goal and the fill has nothing left to give back: goalMissed")
    func goalMissedWhenNothingToGiveBack() throws {
        let folder = TestFolder()
        let volume = try ScratchVolume.mount(size: "64m", in: folder.url)
        var wrote = false
        let report = try Filler(plan: FillPlan(volume: volume.url, goal: .leaving(30_000_000), method: .zeros,
                                               chunkSizeBytes: 1 << 20)).fill { _ in
            if !wrote {  // after the first chunk: 40 MB of a 64 MB volume taken by someone else
                wrote = true
                try? Data(count: 40_000_000).write(to: volume.url.appending(path: "other.bin"))
            }
        }
        #expect(wrote)
        let after = try Self.settledAvailable(volume)
        #expect(report.ending == .goalMissed)
        #expect(report.availableBytesAfter == after && after < report.targetAvailableBytes, "\(report)")
        #expect(report.filledBytes == 0, "the fill gave back everything it had filled")
    }
}
