import Foundation
import Testing
@testable import Stowage

/// The snippets of "Filling a volume on purpose" (FillingAVolume.md), run on a 111 MiB tmpfs mounted in
/// the test's own folder (skipped, saying why, where mounting is refused).
@Suite("Snippets: Filling")
struct FillingAVolumeSnippets {
    static func fill(scratch: URL) throws -> (FillPlan, [String]) {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet FillingAVolume/fill
        let plan = FillPlan(volume: scratch, goal: .leaving(100_000_000))   // any path on the volume
        let report = try Filler(plan: plan).fill()
        print(report.ending, report.availableBytesAfter)   // goalReached 100003840: 100 MB in whole blocks
        // end snippet
        return (plan, printed)
    }

    static func fillAsync(plan: FillPlan) async throws -> FillReport {
        // snippet FillingAVolume/async
        let report = try await Filler(plan: plan).fill { progress in
            if let fill = FillProgress(progress) {
                print(ByteCount(fill.filledBytes).formatted(), "filled,", ByteCount(fill.availableBytes).formatted(), "left")
            }
        }
        if report.wasCancelled { try FillFolder(in: plan.volume).release() }
        // end snippet
        return report
    }

    static func release(scratch: URL) throws -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet FillingAVolume/release
        let fill = FillFolder(in: scratch)
        if let status = try fill.status() {
            print(status.fileCount, ByteCount(status.allocatedBytes).formatted())   // 1 16.4 MB
        }
        try fill.release(bytes: 10_000_000)   // part of it: newest files first, the last one shrunk
        try fill.release()                     // the rest, also after the filling process was killed
        // end snippet
        return printed
    }

    static func hold(scratch: URL, runTheLowStorageTests: () throws -> Void) throws {
        // snippet FillingAVolume/hold
        let hold = try Filler(plan: FillPlan(volume: scratch, goal: .leaving(50_000_000))).hold()
        try runTheLowStorageTests()
        try hold.release()   // or let it go: the space comes back however the process ends
        // end snippet
    }

    @Test("a fill leaves exactly the goal in whole blocks; status, a partial release and a full one give it back")
    func fillAndRelease() async throws {
        let folder = TestFolder("snippet-fill")
        let volume = try ScratchVolume.mount(size: "111m", in: folder)
        let before = try VolumeCapacity.forVolume(containing: volume.url).availableBytes
        let (plan, printed) = try Self.fill(scratch: volume.url)
        #expect(printed == ["goalReached 100003840"])
        #expect(try Self.release(scratch: volume.url) == ["1 16.4 MB"])
        #expect(try VolumeCapacity.forVolume(containing: volume.url).availableBytes == before)

        let report = try await Self.fillAsync(plan: plan)
        #expect(report.ending == .goalReached && report.availableBytesAfter == 100_003_840)
        try FillFolder(in: volume.url).release()
    }

    @Test("a hold leaves the goal while the tests run, and gives everything back")
    func hold() throws {
        let folder = TestFolder("snippet-hold")
        let volume = try ScratchVolume.mount(size: "111m", in: folder)
        let before = try VolumeCapacity.forVolume(containing: volume.url).availableBytes
        var during: Int64 = 0
        try Self.hold(scratch: volume.url) {
            during = try VolumeCapacity.forVolume(containing: volume.url).availableBytes
        }
        #expect(during == 50_003_968)
        #expect(try VolumeCapacity.forVolume(containing: volume.url).availableBytes == before)
    }
}
