import Foundation

/// The child process of a room: forked by the C shim `cstowage_room_spawn`, which makes a
/// private mount namespace (and a user namespace where the caller is not root) and a PID
/// namespace, mounts the layer and the overlays, reports, and waits for the go-ahead. Then it
/// forks the PID namespace's init (PID 1), which mounts the namespace's own `/proc` and forks
/// the command (PID 2) with descriptors 0, 1 and 2 only. Signals sent to the child go on to init
/// and from init to the command (a namespace's init ignores those it has no handler for, so the
/// command must not be it); init reaps every process of the namespace and reports how the
/// command ended; the child then ends the same way (exit status, or the same signal without a
/// core dump), once every process of the room has ended. Each of the two has `SIGKILL` as its
/// parent-death signal, and when init ends the kernel ends every process left in its namespace:
/// if this process dies, even by `SIGKILL`, nothing of the room runs on.
///
/// The child of a multithreaded Swift process may make only async-signal-safe calls, so
/// everything it needs (paths, options, the command line) is prepared here first, and all that
/// needs Swift (sizing the layer, filling it, copying it) happens in this process afterwards,
/// through the layer's root, which ``layer`` holds open.
final class RoomChild {
    /// A folder to lay the room over.
    typealias Folder = RoomSpawn.Folder
    /// What the child is to do.
    typealias Setup = RoomSpawn.Setup
    /// What a series of rooms needs besides the command.
    typealias Series = RoomSpawn.Series

    /// The child's steps, as `room.c` numbers them (`CSTOWAGE_ROOM_STAGE_*`).
    enum Stage: Int32, Sendable {
        case mountNamespace = 1, userNamespace, idMaps, privateMounts, openFolder, mountLayer, layerFolders, mountOverlay
        case parentGone, workingFolder, execute
        case pidNamespace, start, mountProc
        case unmount, lift, request
    }

    /// A step of the child failed; the child has ended and been waited for.
    struct Failure: Error, Sendable {
        var stage: Stage
        var errno: Int32
        /// The folder the step concerned, when it concerned one.
        var folderIndex: Int?
        var isUserNamespace: Bool
    }

    /// An optional folder left hidden, with the step that failed for it.
    struct Skipped: Sendable {
        var folderIndex: Int
        var stage: Stage
        var errno: Int32
    }

    /// The child's process identifier.
    let processIdentifier: Int32
    /// Whether the child made a user namespace.
    let isUserNamespace: Bool
    /// Optional folders left hidden.
    let skipped: [Skipped]
    /// The layer's root, opened through `/proc/<pid>/fd/<n>` while the child waited: it keeps
    /// the layer alive (for a last copy) after the namespace is gone, until it is closed. In a
    /// series, the latest room's (``remake(options:)`` replaces it).
    private(set) var layer: OpenFile

    private var reportFD: Int32
    private var goFD: Int32
    private var isReaped = false
    /// In a series, ``kill()`` may come from another thread: it and the reaping take turns.
    private let reaping = NSLock()

    private init(processIdentifier: Int32, isUserNamespace: Bool, skipped: [Skipped], layer: OpenFile,
                 reportFD: Int32, goFD: Int32) {
        self.processIdentifier = processIdentifier
        self.isUserNamespace = isUserNamespace
        self.skipped = skipped
        self.layer = layer
        self.reportFD = reportFD
        self.goFD = goFD
    }

    deinit {
        if reportFD >= 0 { try? Sys.close(reportFD) }  // best effort: nothing is left to report
        if goFD >= 0 { try? Sys.close(goFD) }
        if !isReaped {
            // Never started, or abandoned by its owner: end it and reap it, so no process is left.
            Sys.killNow(processIdentifier)
            Sys.reapIgnoringErrors(processIdentifier)
        }
    }

    /// Forks the child and waits until its room is mounted.
    ///
    /// - Throws: ``Failure`` when a step of the child failed (the child is reaped); a
    ///   `SystemCallError` when the pipes, the fork or the opening of the layer failed.
    static func spawn(_ setup: Setup) throws -> RoomChild {
        let reportPipe = try RoomSpawn.pipe()
        let goPipe: (read: Int32, write: Int32)
        do {
            goPipe = try RoomSpawn.pipe()
        } catch {
            [reportPipe.read, reportPipe.write].forEach { try? Sys.close($0) }  // best effort: the pipe error is the one to report
            throw error
        }
        let report = [reportPipe.read, reportPipe.write]
        let go = [goPipe.read, goPipe.write]
        let pid: Int32
        do {
            pid = try RoomSpawn.spawn(setup, reportFD: report[1], goFD: go[0], parentReportFD: report[0], parentGoFD: go[1])
        } catch {
            (report + go).forEach { try? Sys.close($0) }  // best effort: the fork error is the one to report
            throw error
        }
        try? Sys.close(report[1])  // the child's ends: the parent keeps only its own
        try? Sys.close(go[0])

        var skipped: [Skipped] = []
        func reapAndThrow(_ failure: Failure) throws -> Never {
            try? Sys.close(report[0])
            try? Sys.close(go[1])
            Sys.reapIgnoringErrors(pid)
            throw failure
        }
        while true {
            guard let record = try RoomSpawn.readRecord(report[0]) else {
                // The child ended without a word (killed, or its parent-death signal).
                try reapAndThrow(Failure(stage: .parentGone, errno: Errno.noChildProcess.rawValue, folderIndex: nil, isUserNamespace: false))
            }
            let isUser = record.isUserNamespace
            let stage = Stage(rawValue: record.stage) ?? .execute
            switch record.kind {
            case .skipped:
                skipped.append(Skipped(folderIndex: Int(record.index), stage: stage, errno: record.error))
            case .ready:
                let layer: OpenFile
                do {
                    layer = try OpenFile.openFolder(atPath: "/proc/\(pid)/fd/\(record.value)", followingLinks: true)
                } catch let error as SystemCallError {
                    Sys.killNow(pid)
                    try reapAndThrow(Failure(stage: .mountLayer, errno: error.errno.rawValue, folderIndex: nil, isUserNamespace: isUser))
                }
                return RoomChild(processIdentifier: pid, isUserNamespace: isUser, skipped: skipped, layer: layer,
                                 reportFD: report[0], goFD: go[1])
            default:
                try reapAndThrow(Failure(stage: stage, errno: record.error,
                                         folderIndex: record.index >= 0 ? Int(record.index) : nil, isUserNamespace: isUser))
            }
        }
    }

    /// Lets the child run the command, and waits until it has (the report pipe closes on
    /// `execve`: the child and init have closed their ends by then).
    ///
    /// - Throws: ``Failure`` when the working folder or the command could not be entered or
    ///   run (the child is reaped).
    func start() throws {
        defer {
            try? Sys.close(goFD)  // best effort: the child has read its go-ahead or is gone
            goFD = -1
        }
        try RoomSpawn.sendGoAhead(goFD)
        let record = try RoomSpawn.readRecord(reportFD)
        try? Sys.close(reportFD)
        reportFD = -1
        guard let record else { return }
        Sys.reapIgnoringErrors(processIdentifier)
        isReaped = true
        throw Failure(stage: Stage(rawValue: record.stage) ?? .execute, errno: record.error, folderIndex: nil,
                      isUserNamespace: record.isUserNamespace)
    }

    // MARK: A series of rooms

    /// A series: unmounts the room and mounts a fresh one whose layer has `options`; returns
    /// the optional folders left hidden this time. ``layer`` is the fresh layer's root after it.
    ///
    /// - Throws: ``Failure`` when the child could not (it has ended and been reaped); a
    ///   `SystemCallError` when the pipes failed.
    func remake(options: String) throws -> [Skipped] {
        try RoomSpawn.send(.remake, options: options, to: goFD)
        var skipped: [Skipped] = []
        while true {
            let record = try nextSeriesRecord()
            switch record.kind {
            case .skipped:
                skipped.append(Skipped(folderIndex: Int(record.index), stage: Stage(rawValue: record.stage) ?? .mountOverlay,
                                       errno: record.error))
            case .ready:
                do {
                    layer = try OpenFile.openFolder(atPath: "/proc/\(processIdentifier)/fd/\(record.value)", followingLinks: true)
                } catch let error as SystemCallError {
                    try endSeries(Failure(stage: .mountLayer, errno: error.errno.rawValue, folderIndex: nil,
                                          isUserNamespace: isUserNamespace))
                }
                return skipped
            default:
                try endSeries(failure(of: record))
            }
        }
    }

    /// A series: runs the command (or the check, whose environment then says the command's
    /// `status`) in the room and waits until every process of the run has ended.
    ///
    /// - Throws: ``Failure`` when the run could not start (the working folder, `execve`); the
    ///   child has ended then.
    func run(check: Bool, commandStatus: Int32 = 0) throws -> RoomReport.Ending {
        try RoomSpawn.send(check ? .runCheck : .runCommand, value: commandStatus, to: goFD)
        var startFailure: Failure?
        while true {
            let record = try nextSeriesRecord()
            switch record.kind {
            case .failed where startFailure == nil:
                // Written by the run (its runner or the program before execve); the run's ending follows.
                startFailure = failure(of: record)
            case .ended:
                if let startFailure { try endSeries(startFailure) }
                return RoomReport.Ending(ProcessEnding(waitStatus: record.value))
            default:
                try endSeries(failure(of: record))
            }
        }
    }

    /// A series: remounts the layer with `options` (a larger size: the limit lifted).
    func lift(options: String) throws {
        try RoomSpawn.send(.lift, options: options, to: goFD)
        let record = try nextSeriesRecord()
        guard record.kind == .lifted else { try endSeries(failure(of: record)) }
    }

    /// A series: lets the child go (it exits, and the namespace goes with its mounts) and
    /// reaps it. Calling it again does nothing.
    func finishSeries() {
        reaping.withLock {
            guard !isReaped else { return }
            closePipes()
            Sys.reapIgnoringErrors(processIdentifier)
            isReaped = true
        }
    }

    /// Ends the child at once (`SIGKILL`), unless it has been reaped (its number may be another
    /// process's then): its runs end with it (their parent-death signals). Safe from another
    /// thread than the series' own, which then sees the child gone.
    func kill() {
        reaping.withLock {
            guard !isReaped else { return }
            Sys.killNow(processIdentifier)
        }
    }

    /// The next record of a series, or the child's failure when it ended without one.
    private func nextSeriesRecord() throws -> RoomSpawn.Record {
        guard let record = try RoomSpawn.readRecord(reportFD) else {
            try endSeries(Failure(stage: .parentGone, errno: Errno.noChildProcess.rawValue, folderIndex: nil, isUserNamespace: isUserNamespace))
        }
        return record
    }

    private func failure(of record: RoomSpawn.Record) -> Failure {
        Failure(stage: Stage(rawValue: record.stage) ?? .request, errno: record.error,
                folderIndex: record.index >= 0 ? Int(record.index) : nil, isUserNamespace: record.isUserNamespace)
    }

    /// Ends the series after a failure: the child is killed (it may be waiting still) and reaped.
    private func endSeries(_ failure: Failure) throws -> Never {
        kill()
        finishSeries()
        throw failure
    }

    private func closePipes() {
        if reportFD >= 0 { try? Sys.close(reportFD) }  // best effort: nothing is left to report
        if goFD >= 0 { try? Sys.close(goFD) }
        reportFD = -1
        goFD = -1
    }

    /// Sends `signal` to the child; `ESRCH` once it has been reaped (its number may be another
    /// process's by then). Callers serialise it with ``wait()``.
    func send(_ signal: Int32) throws {
        guard !isReaped else { throw SystemCallError(errno: .noSuchProcess, call: "kill") }
        try Sys.signal(processIdentifier, signal)
    }

    /// Waits for the child to end without reaping it (`waitid` with `WNOWAIT`): until
    /// ``wait()``, its process identifier is still the child's, so signals sent to it go nowhere else.
    func waitUntilEnded() throws {
        try Sys.waitUntilEnded(processIdentifier)
    }

    /// Waits for the child to end and reaps it (`waitpid`): how it ended.
    func wait() throws -> RoomReport.Ending {
        let ending = try Sys.reap(processIdentifier)
        isReaped = true
        return RoomReport.Ending(ending)
    }

    /// Forwards the signals sent to this process (not those a terminal sends to the whole
    /// process group) to `child`; the latest call wins.
    static func forwardSignals(to child: Int32) throws {
        try Sys.forwardSignals(to: child)
    }

    /// Stops forwarding signals, if they still go to `child` (not another room's command since).
    /// Signals pending still reach `child`: call it before reaping `child`.
    static func stopForwardingSignals(to child: Int32) {
        Sys.stopForwardingSignals(to: child)
    }

}
