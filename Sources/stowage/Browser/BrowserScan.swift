import Foundation
import Stowage

/// A scan the browser runs in the background: its progress and, once done, its report, read by
/// the browser's loop whenever it draws.
///
/// `@unchecked Sendable`: every mutable field is read and written only under `lock`.
final class BrowserScan: @unchecked Sendable {
    private let lock = NSLock()
    private var entries = 0
    private var bytes: Int64 = 0
    private var outcome: Result<UsageReport, any Error>?
    private var task: Task<Void, Never>?

    /// Starts scanning `roots` with `options`.
    init(_ roots: [URL], options: UsageOptions) {
        let task = Task.detached { [self] in
            do {
                let report = try await UsageScanner(options: options).scan(roots, progressInterval: .milliseconds(100)) { figures in
                    Self.crashForTests()
                    self.lock.withLock { (self.entries, self.bytes) = (figures.items, figures.bytes) }
                }
                lock.withLock { outcome = .success(report) }
            } catch {
                lock.withLock { outcome = .failure(error) }
            }
        }
        lock.withLock { self.task = task }
    }

    /// Entries and allocated bytes counted so far.
    var progress: (entries: Int, bytes: Int64) { lock.withLock { (entries, bytes) } }

    /// The report (or what ended the scan) once it is done, `nil` before; handed over once (the
    /// scan keeps no copy, so that its items are let go of as soon as the browser's tree holds them).
    func take() -> Result<UsageReport, any Error>? {
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
