import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

/// `PressureWatcher.events`: the checks as an `AsyncSequence`, with simulated capacity.
@Suite("PressureWatcher events", .hangLimit)  // a sequence that never yields fails
struct PressureWatcherEventsTests {
    @Test("the checks arrive as an AsyncSequence: a short check relieves, then the watch goes on")
    func eventsAsAsyncSequence() async throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data(count: 8192), to: "t1", in: .temporary)
        for index in 0..<5 { try store.save(Data(count: 4096), to: "sub/c\(index)", in: .caches) }
        try store.save(Data(count: 4096), to: "precious.doc", in: .documents)
        let watcher = PressureWatcher(container: store.container, thresholdBytes: 4096 + 16_384, interval: .milliseconds(10))
        // Pretend 4 KiB are available: each check finds space short and relieves what it can.
        let outcomes = await SimulatedCapacity.withFigures(available: 4096) { () async -> [PressureWatcher.Events.Element] in
            var outcomes: [PressureWatcher.Events.Element] = []
            for await outcome in watcher.events {
                outcomes.append(outcome)
                if outcomes.count == 3 { break }
            }
            return outcomes
        }
        #expect(outcomes.count == 3)
        let events = try outcomes.map { try $0.get() }
        #expect(events.allSatisfy { $0.availableBytes == 4096 })
        let first = try #require(events[0].relief)
        #expect(first.isSimulated && first.neededBytes == 16_384 && first.isSatisfied)
        #expect(first.steps.map(\.location) == [.temporary, .caches])
        #expect(try store.exists("precious.doc", in: .documents))
        #expect(events.dropFirst().allSatisfy { $0.relief != nil }, "space stays short (simulated), so every check relieves")
    }

    @Test("a failed check is an element of the sequence, and the checks go on")
    func failedCheckDoesNotEndTheSequence() async throws {
        let folder = TestFolder()
        // A container below a link that loops: its volume cannot be measured.
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/loop", withDestinationPath: "loop")
        let container = Container(root: folder.file("loop/container"))
        let watcher = PressureWatcher(container: container, thresholdBytes: 1, interval: .milliseconds(10))
        var outcomes: [PressureWatcher.Events.Element] = []
        for await outcome in watcher.events {
            outcomes.append(outcome)
            if outcomes.count == 3 { break }
        }
        #expect(outcomes.count == 3, "the sequence did not end at the first failure")
        for outcome in outcomes {
            #expect(throws: StowageError.self) { try outcome.get() }
        }
    }

    @Test("the sequence ends when the iterating task is cancelled; run(onEvent:) returns, cancellation being no error")
    func cancellationEndsTheSequence() async throws {
        let folder = TestFolder()
        let watcher = PressureWatcher(container: folder.store().container, thresholdBytes: 1, interval: .seconds(3600))
        let iterating = Task { () async -> Int in
            var count = 0
            for await _ in watcher.events {
                count += 1
                withUnsafeCurrentTask { $0?.cancel() }  // after the first check: the hour-long sleep ends at once
            }
            return count
        }
        #expect(await iterating.value == 1)
        let running = Task {
            await watcher.run(onEvent: { _ in withUnsafeCurrentTask { $0?.cancel() } })
        }
        await running.value
    }

    @Test("a watcher cancelled once its relief has chosen what to remove returns, having removed nothing, and says so in its event")
    func cancelledMidRelief() async throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data(count: 1), to: "bulk/0", in: .temporary)
        let bulk = try store.url(for: "bulk", in: .temporary).path(percentEncoded: false)
        for index in 1..<20_000 { try RawFiles.writeFile(atPath: bulk + "/\(index)", Data(count: 1)) }
        // Pretend 4 KiB are available and ask for far more than the files free: the relief walks and
        // would remove them all. The watcher's task is cancelled from the relief's own thread, once
        // it has chosen its victims and before it removes any (no race with a loaded machine).
        let watcher = PressureWatcher(container: store.container, thresholdBytes: 1 << 40, interval: .seconds(3600))
        let gate = FirstCallGate()
        let probe = TestProbe()
        probe.on(.sweepChosen) { _ in gate.pass() }
        let events = EventLog()
        await SimulatedCapacity.withFigures(available: 4096) {
            await TestProbe.$installed.withValue(probe) {
                let running = Task { await watcher.run(onEvent: { events.append($0) }) }
                gate.cancelAtFirstCall(running)
                await running.value  // returns: the loop ended with its task's cancellation
            }
        }
        let left = (try? FileManager.default.contentsOfDirectory(atPath: bulk).count) ?? 0  // an emptied folder goes too
        #expect(gate.wasReached, "the relief chose its victims")
        // Stopping between removals is the relief's own test (ContainerWorkContractTests, and
        // StorageOverviewTests after 100 removals); here, that the watcher hands its cancellation on.
        #expect(left == 20_000, "the relief stopped before its first removal")
        let relief = try #require(events.all.first?.relief, "one event, with its relief")
        #expect(events.all.count == 1 && relief.wasCancelled)
        #expect(relief.steps.first?.report.removed.isEmpty == true && relief.freedAllocatedBytes == 0)
        print("watcher cancelled mid-relief: \(left) of 20,000 files left")
    }
}

/// The events a watcher reported, from its task.
final class EventLog: @unchecked Sendable {  // `events` is read and written only while `lock` is held
    private let lock = NSLock()
    private var events: [PressureWatcher.Event] = []
    func append(_ event: PressureWatcher.Event) { lock.withLock { events.append(event) } }
    var all: [PressureWatcher.Event] { lock.withLock { events } }
}
