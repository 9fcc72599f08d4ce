import Foundation
import Stowage

/// A scan the browser runs in the background: its progress and, once done, what it found (the
/// tree of names, or a report to compare), read by the browser's loop whenever it draws.
///
/// `@unchecked Sendable`: every mutable field is read and written only under `lock`.
final class BrowserScan: @unchecked Sendable {
    private let lock = NSLock()
    private var entries = 0
    private var bytes: Int64 = 0
    private var outcome: Result<Scanned, any Error>?
    private var task: Task<Void, Never>?

    /// What a scan found.
    enum Scanned {
        /// The tree of names (``UsageScanner/scanNameTree(_:progressInterval:progress:)``): what
        /// the browser shows.
        case names(UsageNameTree)
        /// A report with every item, for the "changed since" mode to compare with a saved one.
        case report(UsageReport)
    }

    /// Starts scanning `roots` with `options`: into a report with every item when `comparing`
    /// (the "changed since" mode compares reports), into the tree of names otherwise; wakes
    /// `wakeUp` each time it counts more (every tenth of a second) and once it has ended.
    init(_ roots: [URL], options: UsageOptions, comparing: Bool = false, wakingUp wakeUp: WakeUpPipe) {
        let task = Task.detached { [self] in
            do {
                let scanner = UsageScanner(options: options)
                let progress: @Sendable (WorkProgress) -> Void = { figures in
                    Self.crashForTests()
                    self.lock.withLock { (self.entries, self.bytes) = (figures.items, figures.bytes) }
                    wakeUp.wakeUp()
                }
                let scanned: Scanned = comparing
                    ? .report(try await scanner.scan(roots, progressInterval: .milliseconds(100), progress: progress))
                    : .names(try await scanner.scanNameTree(roots, progressInterval: .milliseconds(100), progress: progress))
                lock.withLock { outcome = .success(scanned) }
            } catch {
                lock.withLock { outcome = .failure(error) }
            }
            wakeUp.wakeUp()
        }
        lock.withLock { self.task = task }
    }

    /// Entries and allocated bytes counted so far.
    var progress: (entries: Int, bytes: Int64) { lock.withLock { (entries, bytes) } }

    /// What the scan found (or what ended it) once it is done, `nil` before; handed over once (the
    /// scan keeps no copy, so that it is let go of as soon as the browser's tree holds it).
    func take() -> Result<Scanned, any Error>? {
        lock.withLock {
            defer { outcome = nil }
            return outcome
        }
    }

    /// Stops the scan soon (quitting while it runs).
    func cancel() { lock.withLock { task }?.cancel() }

    /// Debug builds: `STOWAGE_TEST_BROWSER_CRASH=scan` ends the process by a Swift runtime trap
    /// on a scanning thread, as a bug in the scan would, so that a test can see the terminal
    /// given back by the crash guard.
    private static func crashForTests() {
        #if DEBUG
        if ProcessInfo.processInfo.environment["STOWAGE_TEST_BROWSER_CRASH"] == "scan" {
            fatalError("STOWAGE_TEST_BROWSER_CRASH=scan: the scan crashes, as asked")
        }
        #endif
    }
}
