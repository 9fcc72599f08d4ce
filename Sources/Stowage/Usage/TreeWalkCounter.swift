#if DEBUG
import Foundation

/// Counts the tree walks started by the current task: a test seam, in debug builds only, for
/// tests that state what an operation costs ("an idle pressure check walks no tree").
///
/// Two kinds are counted: usage scans (``UsageScanner``) and serial walks (``FileTreeWalk``:
/// the removal walk of sweeps and relief, the reclaimable total of ``Container/capacity(of:)``,
/// audits, disk cache indexes). The counter is a task-local value, so tests running in parallel do not count each
/// other's walks; a walk is counted where it starts, in the task that asked for it, even when
/// its folders are then read on other threads.
///
/// ```swift
/// let counter = TreeWalkCounter()
/// TreeWalkCounter.$current.withValue(counter) { _ = UsageScanner().scan([cachesURL]) }
/// #expect(counter.usageScans == 1 && counter.fileTreeWalks == 0)
/// ```
///
/// `@unchecked Sendable`: both counts are read and written only while `lock` is held.
final class TreeWalkCounter: @unchecked Sendable {
    /// The counter of the current task, if a test installed one.
    @TaskLocal static var current: TreeWalkCounter?

    private let lock = NSLock()
    private var scans = 0
    private var walks = 0

    init() {}

    /// Usage scans started (one per ``ScanEngine``, whatever the number of roots).
    var usageScans: Int { lock.withLock { scans } }
    /// Serial walks started (one per `FileTreeWalk.run`).
    var fileTreeWalks: Int { lock.withLock { walks } }
    /// Both kinds.
    var total: Int { lock.withLock { scans + walks } }

    /// Records a usage scan in the current task's counter, if any.
    static func recordUsageScan() {
        guard let counter = current else { return }
        counter.lock.withLock { counter.scans += 1 }
    }

    /// Records a serial walk in the current task's counter, if any.
    static func recordFileTreeWalk() {
        guard let counter = current else { return }
        counter.lock.withLock { counter.walks += 1 }
    }
}
#endif
