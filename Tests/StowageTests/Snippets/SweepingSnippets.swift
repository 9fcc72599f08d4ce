import Foundation
import Testing
@testable import Stowage

/// The snippets of "Sweeping caches and relieving pressure" (Sweeping.md), run on containers
/// in the test's own folder; relief and the watcher measure simulated figures of their own task.
@Suite("Snippets: Sweeping", .timeLimit(.minutes(10)))  // a watcher that never printed would run on
struct SweepingSnippets {
    static func sweep(thumbnails: URL) throws -> ([String], SweepReport) {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet Sweeping/sweep
        let sweeper = Sweeper(policy: SweepPolicy(maximumAllocatedBytes: 200_000_000, maximumFileAge: .seconds(30 * 24 * 3600)))
        let preview = try sweeper.sweep(thumbnails, dryRun: true)
        for file in preview.removed { print(file.reason, file.path) }   // age old.png
        let report = try sweeper.sweep(thumbnails)   // removes what the preview listed
        print(report.removed.count, ByteCount(report.freedAllocatedBytes).formatted())
        // end snippet
        return (printed, report)
    }

    static func lastSweep(thumbnails: URL) throws -> Bool {
        // snippet Sweeping/last-sweep
        let last = try Sweeper.lastSweep(of: thumbnails)
        let isDue = last.map { Date().timeIntervalSince($0.date) > 3600 } ?? true   // at most one sweep an hour
        // end snippet
        return isDue
    }

    static func markers(store: Store) throws -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet Sweeping/markers
        try store.mark("avatar.png", in: .caches, .pinned)                       // survives "Clear cache"
        try store.mark("maps/europe.pack", in: .applicationSupport, .purgeable)  // may go under pressure
        print(try store.markers(of: "avatar.png", in: .caches).contains(.pinned))   // true
        // end snippet
        return printed
    }

    static func relieve(container: Container, showLowStorageAlert: () -> Void) throws -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet Sweeping/relieve
        let report = try container.relieve(toAvailableBytes: 2_000_000_000)
        for step in report.steps {
            print(step.location.identifier, step.report.removed.count, ByteCount(step.report.freedAllocatedBytes).formatted())
        }
        if !report.isSatisfied { showLowStorageAlert() }
        // end snippet
        return printed
    }

    static func watch(container: Container, output: @escaping @Sendable (String) -> Void) async {
        func print(_ items: Any...) { output(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet Sweeping/watch
        let watcher = PressureWatcher(container: container, thresholdBytes: 1_000_000_000, interval: .seconds(60))
        for await outcome in watcher.events {
            switch outcome {
            case .success(let event) where event.relief != nil: print(event)   // it freed something
            case .success: break                                                // enough space: one statvfs
            case .failure(let error): print("check failed:", error)            // the watch goes on
            }
        }
        // end snippet
    }

    static func audit(container: Container) throws -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet Sweeping/audit
        let audit = try container.audit(minimumBytes: 10_000_000)
        for finding in audit.findings { print(finding.kind, finding.location.identifier, finding.path) }
        for totals in audit.purgeableUnderPressure {
            print(totals.location.identifier, ByteCount(totals.allocatedBytes).formatted())
        }
        // end snippet
        return printed
    }

    /// Sets the access and modification times of `path` to `date`.
    static func setTimes(_ path: String, _ date: Date) {
        let seconds = Int(date.timeIntervalSince1970)
        var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    }

    @Test("the sweep's preview names the file past the age limit, the sweep removes it and records itself")
    func sweep() throws {
        let folder = TestFolder("snippet-sweep")
        try folder.write("old", to: "thumbnails/old.png")
        try folder.write("new", to: "thumbnails/new.png")
        Self.setTimes(folder.file("thumbnails/old.png").path(percentEncoded: false), Date().addingTimeInterval(-40 * 24 * 3600))
        #expect(try Self.lastSweep(thumbnails: folder.file("thumbnails")))
        let (printed, report) = try Self.sweep(thumbnails: folder.file("thumbnails"))
        #expect(printed == ["age old.png", "1 4.1 kB"])
        #expect(report.removed.map(\.path) == ["old.png"] && folder.exists("thumbnails/new.png"))
        #expect(try !Self.lastSweep(thumbnails: folder.file("thumbnails")))
    }

    @Test("markers are set and read back")
    func markers() throws {
        let folder = TestFolder("snippet-markers")
        let store = folder.store()
        try store.save(Data("a".utf8), to: "avatar.png", in: .caches)
        try store.save(Data("m".utf8), to: "maps/europe.pack", in: .applicationSupport)
        #expect(try Self.markers(store: store) == ["true"])
        #expect(try store.markers(of: "maps/europe.pack", in: .applicationSupport) == [.purgeable])
        try store.clear(.caches)
        #expect(try store.exists("avatar.png", in: .caches))
    }

    @Test("relief frees tmp first and stops once the target is met; short of it, the alert is shown")
    func relieve() throws {
        let folder = TestFolder("snippet-relieve")
        let store = folder.store()
        try store.save(Data(count: 8000), to: "scratch", in: .temporary)
        try store.save(Data(count: 8000), to: "cached", in: .caches)
        var alerts = 0
        let printed = try SimulatedCapacity.withFigures(available: 1_999_995_000, total: 10_000_000_000) {
            try Self.relieve(container: store.container) { alerts += 1 }
        }
        #expect(printed == ["temporary 1 8.2 kB"])
        #expect(alerts == 0)
        #expect(try store.exists("cached", in: .caches) && !store.exists("scratch", in: .temporary))
        _ = try SimulatedCapacity.withFigures(available: 1_000_000_000, total: 10_000_000_000) {
            try Self.relieve(container: store.container) { alerts += 1 }
        }
        #expect(alerts == 1)
        #expect(try !store.exists("cached", in: .caches))
    }

    @Test("the watcher relieves at its first check when space is short, and the loop ends when its task is cancelled")
    func watch() async throws {
        let folder = TestFolder("snippet-watch")
        let store = folder.store()
        try store.save(Data(count: 8000), to: "cached", in: .caches)
        let printed = Printed()
        let container = store.container
        // The task is cancelled from the first line printed, in the watcher's own task: the loop
        // then ends, however late a loaded machine runs anything (a second check, an interval later,
        // never comes).
        let gate = FirstCallGate()
        let task = Task {
            await SimulatedCapacity.withFigures(available: 999_000_000, total: 10_000_000_000) {
                await Self.watch(container: container, output: { line in
                    printed.append(line)
                    gate.pass()
                })
            }
        }
        gate.cancelAtFirstCall(task)
        await task.value
        #expect(printed.lines.count == 1, "\(printed.lines)")
        #expect(try !store.exists("cached", in: .caches), "\(printed.lines)")
    }

    @Test("the audit finds a large backed-up file and a pin in Caches, and totals what pressure would free")
    func audit() throws {
        let folder = TestFolder("snippet-audit")
        let store = folder.store()
        try store.save(Data(count: 11_000_000), to: "video.mov", in: .documents)
        try store.save(Data(count: 100), to: "avatar.png", in: .caches)
        try store.mark("avatar.png", in: .caches, .pinned)
        try store.save(Data(count: 5000), to: "feed.json", in: .caches)
        let printed = try Self.audit(container: store.container)
        #expect(printed.contains("largeBackedUpFile documents video.mov"), "\(printed)")
        #expect(printed.contains("pinnedInCaches caches avatar.png"), "\(printed)")
        #expect(printed.contains { $0.hasPrefix("caches ") }, "\(printed)")
    }
}

/// Lines printed from another task, in order.
///
/// `@unchecked Sendable`: `storage` is read and written only while `lock` is held.
final class Printed: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    var lines: [String] { lock.withLock { storage } }
    func append(_ line: String) { lock.withLock { storage.append(line) } }
}
