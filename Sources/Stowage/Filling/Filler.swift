import Foundation

/// Fills a volume on purpose, exactly: until `statvfs` reports the goal's available bytes,
/// within one block, to test what software does when storage runs out.
///
/// The filler measures the volume before every chunk (through `fstatvfs`, which is cheap), so
/// block rounding, file-system metadata, reserved blocks and other processes writing at the
/// same time cannot make it miss: it stops at the goal, and it ends by correcting any
/// overshoot. Where the figure says the goal is reached it settles it first (written back and
/// measured again until two readings agree, at most seven readings and 1.26 s of pauses): a
/// file system may count writes and removals late (XFS by hundreds of megabytes). The report's
/// ending is `.goalReached` only when the settled figure it reports is within one block above
/// the goal. Running out of space on the way (`ENOSPC`) is a normal end, not an error. Memory
/// stays at one chunk, whatever the size filled.
///
/// Fill files live in a ``FillFolder`` with a manifest, so ``FillFolder/release(bytes:)``
/// gives the space back exactly, even after this process was killed. ``hold(progress:)``
/// instead fills with unnamed files that the system reclaims when they are closed, however the
/// process ends.
///
/// Simulated capacity (``SimulatedCapacity``) does not apply here: a fill is real. A simulated
/// volume of the `StowageTesting` library does: inside one, a fill writes real files and fills
/// that volume to the goal, and its release gives the space back to it.
public struct Filler: Sendable {
    /// What to fill, down to what, and how.
    public var plan: FillPlan

    /// A filler for `plan`.
    public init(plan: FillPlan) { self.plan = plan }

    /// Fills the volume, leaving the files in the fill folder until released.
    ///
    /// - Parameter progress: Called after every chunk with the figures so far.
    /// - Returns: What was filled and the volume's available bytes before and after.
    /// - Throws: ``StowageError/Code/invalidArgument`` for a goal the volume cannot meet or a
    ///   bad chunk size; ``StowageError/Code/refused`` below the safety floor of a system
    ///   volume; ``StowageError/Code/busy`` while another fill runs in the same folder;
    ///   ``StowageError/Code/notFound`` for a path that does not exist. Nothing is written
    ///   when the plan is refused.
    @discardableResult
    public func fill(progress: ((FillProgress) -> Void)? = nil) throws -> FillReport {
        try FillEngine(plan: plan, unnamed: false).run(progress: progress)
    }

    /// Fills the volume on a thread of its own, reporting progress; cancelling the task stops
    /// the fill within one chunk and returns what was filled, with ``FillReport/ending``
    /// `.cancelled` (``FillReport/wasCancelled``). The files written stay, named in the
    /// manifest, until ``FillFolder/release(bytes:)`` gives the space back.
    ///
    /// This is a long-running call under the one contract of scans, fills and sweeps (see
    /// ``WorkProgress`` and "Long-running work" in the README): cancellation is not an error,
    /// progress comes from the filling thread, throttled to `progressInterval`.
    ///
    /// ```swift
    /// let report = try await Filler(plan: plan).fill { progress in
    ///     print("\(ByteCount(progress.bytes).formatted()) filled, \(Int((progress.fractionCompleted ?? 0) * 100))%")
    /// }
    /// if report.wasCancelled { try FillFolder(in: plan.volume).release() }
    /// ```
    ///
    /// - Parameters:
    ///   - progressInterval: The least time between two progress reports.
    ///   - progress: Called on the filling thread (never on a task of the cooperative pool)
    ///     with the fill files and bytes filled so far (``WorkProgress/Phase/filling``), the
    ///     bytes filled at the goal (``WorkProgress/expectedBytes``) and the volume's available
    ///     bytes: after the first chunk, then at most once per interval, and once more with the
    ///     report's figures. ``FillProgress/init(_:)`` turns it into the fill's own figures.
    ///     Keep it short: the next chunk waits for it. Cancelling the task from inside it stops
    ///     the fill before the next chunk.
    /// - Returns: What was filled, also when cancelled.
    /// - Throws: as ``fill(progress:)``; cancellation is not an error.
    public func fill(progressInterval: Duration = WorkProgress.defaultInterval,
                     progress: (@Sendable (WorkProgress) -> Void)? = nil) async throws -> FillReport {
        let engine = try FillEngine(plan: plan, unnamed: false)
        return try await engine.runOnThread(progressInterval: progressInterval, progress: progress)
    }

    /// Fills the volume with unnamed files (`O_TMPFILE`) held open by the returned hold:
    /// the space comes back when the hold is released or deallocated, or when the process
    /// ends in any way, even `SIGKILL`. On a file system without unnamed files the hold uses
    /// named files in the fill folder instead (``FillHold/isUnnamed`` is then `false`), which
    /// a killed process leaves for ``FillFolder/release(bytes:)``.
    public func hold(progress: ((FillProgress) -> Void)? = nil) throws -> FillHold {
        let engine = try FillEngine(plan: plan, unnamed: true)
        let report = try engine.run(progress: progress)
        return FillHold(report: report, files: engine.heldFiles, folder: engine.usesNames ? FillFolder(in: plan.volume) : nil)
    }
}

/// The space held by ``Filler/hold(progress:)``, given back by ``release()`` or when the hold
/// is deallocated.
///
/// A class, not a value: the hold owns open files, and copies must not release twice.
public final class FillHold: @unchecked Sendable {
    /// What the fill did.
    public let report: FillReport
    /// Whether the space is held by unnamed files, which the system reclaims however the
    /// process ends.
    public var isUnnamed: Bool { folder == nil }

    private let lock = NSLock()
    private var files: [OpenFile]
    private let folder: FillFolder?

    init(report: FillReport, files: [OpenFile], folder: FillFolder?) {
        self.report = report
        self.files = files
        self.folder = folder
    }

    deinit { _ = try? release() }  // best effort: an implicit release has nobody to tell

    /// Gives the space back (closing the unnamed files, or releasing the named ones), and
    /// returns once the volume's figures count it: once they count what the files held (at most
    /// 2 s: another writer may take some of it meanwhile), then settled, as a fill's are (XFS
    /// frees a closed unnamed file's blocks from a background worker, a moment later).
    /// Releasing twice does nothing.
    @discardableResult
    public func release() throws -> FillReleaseReport? {
        let closing: [OpenFile] = lock.withLock {
            defer { files = [] }
            return files
        }
        var reaching: Int64?
        if folder == nil, let first = closing.first {
            // What closing gives back, to wait for: the available bytes now and the blocks the files hold.
            reaching = try? closing.reduce(first.spaceFigures().available) { try $0 + $1.status().allocatedSize }
        }
        for file in closing { try? file.close() }  // closing an unnamed file frees it; a close error changes nothing
        guard let folder else {
            if !closing.isEmpty {
                do {
                    let volume = try OpenFile.openFolder(atPath: report.folder, followingLinks: true)
                    _ = try reaching.map { try SettledFigures.of(volume, reaching: $0) } ?? SettledFigures.of(volume)
                } catch let error as SystemCallError {
                    throw StowageError(error, operation: .release, path: report.folder)
                }
            }
            return nil
        }
        return try folder.release()
    }
}

/// Figures reported while filling: by the synchronous ``Filler/fill(progress:)`` and
/// ``Filler/hold(progress:)``, and, through ``init(_:)``, from the ``WorkProgress`` of the
/// `async` fill.
public struct FillProgress: Sendable, Hashable, Codable {
    /// Bytes written or allocated so far by this fill.
    public var filledBytes: Int64
    /// The volume's available bytes now.
    public var availableBytes: Int64
    /// The available bytes the fill stops at.
    public var targetAvailableBytes: Int64
    /// Bytes filled per second so far.
    public var bytesPerSecond: Double
    /// Seconds until the goal at the current rate, when there is a rate (`null` in JSON until then).
    @NullWhenAbsent public var remainingSeconds: Double?
    /// Seconds since filling began.
    public var elapsedSeconds: Double
}

extension FillProgress {
    /// The fill's figures in a ``WorkProgress`` that the `async` `Filler/fill(progressInterval:progress:)`
    /// reported, or `nil` for progress of other work (which has no available bytes or goal).
    ///
    /// ```swift
    /// let report = try await Filler(plan: plan).fill { progress in
    ///     if let figures = FillProgress(progress) { print("goal: \(figures.targetAvailableBytes) available") }
    /// }
    /// ```
    public init?(_ progress: WorkProgress) {
        guard progress.phase == .filling, let available = progress.availableBytes,
              let target = progress.targetAvailableBytes else {
            return nil
        }
        let rate = progress.bytesPerSecond
        self.init(filledBytes: progress.bytes, availableBytes: available, targetAvailableBytes: target, bytesPerSecond: rate,
                  remainingSeconds: rate > 0 ? Double(max(0, available - target)) / rate : nil,
                  elapsedSeconds: progress.elapsedSeconds)
    }
}

/// What a fill did.
public struct FillReport: Sendable, Hashable, Codable {
    /// Why filling ended.
    public enum Ending: String, Sendable, Hashable, Codable {
        /// The goal was reached.
        case goalReached
        /// The volume ran out of space first (`ENOSPC`, for example below the goal as root
        /// cannot see reserved blocks, or another writer took the rest).
        case volumeFull
        /// The fill was cancelled; what was filled stays, in the manifest.
        case cancelled
        /// The volume was already at or below the goal: nothing was written.
        case alreadyAtGoal
        /// The fill ended near the goal, but the volume's settled figure is not within one block
        /// above it: another writer took or gave back space meanwhile (and the fill's current
        /// file had nothing left to give back), or the figure did not settle within eight
        /// rounds of settling and correcting. ``FillReport/availableBytesAfter`` says where it ended.
        case goalMissed
    }

    /// The fill folder (for unnamed files, the folder whose volume was filled).
    public var folder: String
    /// How the space was taken.
    public var method: FillPlan.Method
    /// The goal, as text (`leaving 500 MB`).
    public var goal: String
    /// The available bytes aimed at.
    public var targetAvailableBytes: Int64
    /// The volume's available bytes before the fill.
    public var availableBytesBefore: Int64
    /// The volume's available bytes after the fill.
    public var availableBytesAfter: Int64
    /// The volume's total bytes.
    public var totalBytes: Int64
    /// The volume's block size (`f_frsize`): the precision of the goal.
    public var blockSizeBytes: Int64
    /// Bytes written or allocated by this fill.
    public var filledBytes: Int64
    /// Files this fill created (a fill also extends the last file of an earlier one).
    public var fileCount: Int
    /// How long it took, in seconds.
    public var elapsedSeconds: Double
    /// Why it ended.
    public var ending: Ending

    /// Whether the fill was cancelled (``ending`` is `.cancelled`): what was filled until then
    /// stays, in the manifest, for ``FillFolder/release(bytes:)``.
    ///
    /// ```swift
    /// let report = try await Filler(plan: plan).fill()
    /// if report.wasCancelled { try FillFolder(in: plan.volume).release() }
    /// ```
    public var wasCancelled: Bool { ending == .cancelled }

    /// How far the available bytes ended from the target (positive: above it).
    public var missedByBytes: Int64 { availableBytesAfter - targetAvailableBytes }
}

// MARK: Earlier spellings, kept for one release

extension FillReport {
    /// ``missedByBytes``, in its earlier spelling.
    @available(*, deprecated, renamed: "missedByBytes")
    public var missedBy: Int64 { missedByBytes }
}
