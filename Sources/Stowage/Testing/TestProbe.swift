#if DEBUG
import Foundation
import StowagePlatform

/// Stowage's one test seam, in debug builds only: what tests observe of an operation (tree
/// walks, durability calls, progress intervals) and what they do at its ``FaultPoint``s.
///
/// A probe is in force for the task that installs it (a task-local value, so tests running in
/// parallel never see each other's operations), or for a whole child process that was given
/// `STOWAGE_TEST_FAULTS` (see ``fromEnvironment``). Work that Stowage moves to threads of its
/// own (the async scans, fills, sweeps and relief, the removal threads) carries the installing
/// task's probe there (``SimulationContext``), so its fault points and counts are the task's too;
/// an action may then run on such a thread, and on two at once (it must be thread-safe).
///
/// ```swift
/// let probe = TestProbe()
/// probe.on(.sweepChosen) { _ in try replaceTheVictim() }
/// let report = try TestProbe.$installed.withValue(probe) { try Sweeper(policy: policy).sweep(cache) }
/// #expect(probe.count(.syncFolder) == 0 && probe.hits(of: .sweepChosen) == 1)
/// ```
///
/// `@unchecked Sendable`: every mutable field is read and written only while `lock` is held;
/// actions run outside it.
final class TestProbe: @unchecked Sendable {
    /// What a probe counts.
    enum Event: Hashable, Sendable {
        /// A usage scan started (one per ``ScanEngine``, whatever the number of roots).
        case usageScan
        /// A usage scan handed a batch of a wide folder's entries over to another worker
        /// (``ScanEngine``'s sharing; counted by the probe in force when the engine was made).
        case usageBatchShared
        /// A serial walk started (one per `FileTreeWalk.run`: removal walks, audits, the
        /// reclaimable total, disk cache indexes).
        case fileTreeWalk
        /// A whole array file checked by an append (``JSONArrayCheck``): one per file that Stowage
        /// did not last write.
        case arrayCheck
        /// `Sys.syncData`: a file's data made durable (`fdatasync`, `F_FULLFSYNC`).
        case syncData
        /// `Sys.syncFolder`: a folder's entries made durable (`fsync` of the folder).
        case syncFolder
        /// `Sys.syncVolume`: a whole volume written back (`syncfs`).
        case syncVolume
    }

    /// One durability call: which, and the device and inode of what it synced.
    struct Sync: Hashable, Sendable {
        var event: Event
        var device: UInt64
        var inode: UInt64
    }

    /// The probe installed for the current task.
    @TaskLocal static var installed: TestProbe?

    /// The probe in force: the task's, else the process's from the environment.
    static var current: TestProbe? { installed ?? fromEnvironment }

    /// The process-wide probe of a child process started with `STOWAGE_TEST_FAULTS`: a comma-separated
    /// list of `point@hit=action`, where `point` is a ``FaultPoint`` name, `hit` counts the
    /// times the process reaches it (from 1), and `action` is `kill` (SIGKILL, as a crash) or
    /// `term` (SIGTERM, as a user stopping the command; the operation goes on). An entry that
    /// does not parse is ignored: the tests that set one check that the process was stopped.
    static let fromEnvironment: TestProbe? = {
        guard let text = Sys.environmentVariable("STOWAGE_TEST_FAULTS"), !text.isEmpty else { return nil }
        let probe = TestProbe()
        for entry in text.split(separator: ",") {
            let parts = entry.split(separator: "=")
            let place = parts.first?.split(separator: "@") ?? []
            guard parts.count == 2, place.count == 2, let point = FaultPoint(named: String(place[0])),
                  let hit = Int(place[1]), hit > 0, ["kill", "term"].contains(parts[1]) else { continue }
            let signal = parts[1] == "kill" ? Sys.killSignal : Sys.terminationSignal
            probe.on(point) { reached in
                if reached == hit { Sys.signalProcess(signal) }
            }
        }
        return probe
    }()

    private let lock = NSLock()
    private var counts: [Event: Int] = [:]
    private var syncs: [Sync] = []
    private var recordedIntervals: [Duration] = []
    private var actions: [FaultPoint: @Sendable (_ hit: Int) throws -> Void] = [:]
    private var reached: [FaultPoint: Int] = [:]

    /// A probe; the first one made has the platform report its durability calls here (to the
    /// probe in force when each is made).
    init() {
        _ = Self.observingDurability
    }

    private static let observingDurability: Void = DurabilityObserver.install { call, descriptor in
        switch call {
        case .syncData: recordSync(.syncData, descriptor: descriptor)
        case .syncFolder: recordSync(.syncFolder, descriptor: descriptor)
        case .syncVolume: recordSync(.syncVolume, descriptor: descriptor)
        }
    }

    // MARK: Fault points

    /// Runs `action` each time an operation of the probe's task reaches `point`, with the
    /// number of times it was reached (1 the first time); an error it throws is thrown there.
    func on(_ point: FaultPoint, _ action: @escaping @Sendable (_ hit: Int) throws -> Void) {
        lock.withLock { actions[point] = action }
    }

    /// How many times `point` was reached.
    func hits(of point: FaultPoint) -> Int { lock.withLock { reached[point, default: 0] } }

    func reach(_ point: FaultPoint) throws {
        let (hit, action) = lock.withLock { () -> (Int, (@Sendable (Int) throws -> Void)?) in
            reached[point, default: 0] += 1
            return (reached[point]!, actions[point])
        }
        try action?(hit)
    }

    // MARK: Counts

    /// How many times `event` happened.
    func count(_ event: Event) -> Int { lock.withLock { counts[event, default: 0] } }

    /// The durability calls, in order.
    var durabilityCalls: [Sync] { lock.withLock { syncs } }

    /// The progress intervals the long-running bridge was given, in order.
    var intervals: [Duration] { lock.withLock { recordedIntervals } }

    /// Counts `event` in the probe in force, if any.
    static func record(_ event: Event) {
        current?.record(event)
    }

    /// Counts `event` in this probe: for work on threads that do not carry the task's probe
    /// and keep the one in force when they were set up.
    func record(_ event: Event) {
        lock.withLock { counts[event, default: 0] += 1 }
    }

    /// Counts a durability call on the open file `descriptor` in the probe in force, if any,
    /// with what it synced.
    static func recordSync(_ event: Event, descriptor: Int32) {
        guard let probe = current else { return }
        let status = try? Sys.fstat(descriptor)
        probe.lock.withLock {
            probe.counts[event, default: 0] += 1
            probe.syncs.append(Sync(event: event, device: status?.device ?? 0, inode: status?.inode ?? 0))
        }
    }

    /// Records the progress interval given to the long-running bridge.
    static func record(interval: Duration) {
        guard let probe = current else { return }
        probe.lock.withLock { probe.recordedIntervals.append(interval) }
    }
}
#endif
