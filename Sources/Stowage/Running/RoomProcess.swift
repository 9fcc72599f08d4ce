import Foundation

/// A command running in a room: a private mount namespace in which chosen folders have exactly
/// the room's bytes available, with real `ENOSPC` from the kernel, while the host is untouched.
///
/// ```swift
/// let plan = RoomPlan(available: .bytes(5_000_000), over: [URL(filePath: "/home/me/project")])
/// let process = try RoomProcess.start(plan, command: ["swift", "test"])
/// let report = try process.wait()
/// if case .exited(let status) = report.ending { print("tests exited with \(status)") }
/// ```
///
/// How it works: a child process (forked by a small C function that makes only
/// async-signal-safe calls) makes a mount namespace, and a user namespace too when this process
/// is not root, marks every mount private so nothing reaches the host, mounts the layer (a
/// tmpfs, or ext4 in an image on a loop device) and an overlay over each folder with its upper
/// folder in the layer, and waits. This process then reaches the layer through
/// `/proc/<child>/fd`, brings it to the room exactly (``Filler`` takes what is above it, empty
/// files the inodes above a limit), measures it, and lets the child run the command.
///
/// - Reads see the real files; writes land in the layer. Modifying a real file copies it
///   into the layer first, whole: its size counts against the room (opening it for writing is
///   enough; truncating it on open is not, and costs no bytes). Creating anything, copying one
///   up, and removing a real item (a whiteout) each take an inode; the folders above a copied
///   item are copied too (an inode each, no bytes on tmpfs).
/// - Renaming a real folder fails with `EXDEV` (overlayfs without `redirect_dir`); `mv` then
///   copies, and so must other programs.
/// - Nothing is mounted on the host, and nothing is written there but the ext4 layer's unnamed
///   image. The command runs as PID 2 of a PID namespace of its own, under a small init that
///   relays signals to it; it sees only the room's processes (`/proc` is the namespace's) and
///   gets descriptors 0, 1 and 2 only; the room's own processes hold none of this process's
///   others (a file closed and removed here frees its space at once). When the command ends, every process it left running
///   ends too, before `wait()` returns; the namespace, its mounts and the layer go with them.
///   If this process dies first, even by `SIGKILL`, the room's child and its init get `SIGKILL`
///   (their parent-death signal), and the kernel ends every process of the namespace.
///
/// - Important: Keep the `RoomProcess` until `wait()` returns: releasing it earlier ends the
///   command with `SIGKILL` (so no command runs on in a room nobody manages).
/// - Important: The command's processes run as the same user as this one. In a user namespace
///   (an ordinary user), only files whose owner and group are the user's can be modified in
///   the room (copy-up of others' files fails with `EOVERFLOW`); reading is unaffected.
public final class RoomProcess: @unchecked Sendable {
    /// The process that stands for the command in this process's PID namespace: the room's
    /// child, which relays every signal sent to it but `SIGSTOP` to the command (`SIGKILL` ends
    /// the whole room at once), and ends as the command did. (The command itself is PID 2 of the
    /// room's own PID namespace.)
    public let processIdentifier: Int32
    /// The room as made, measured before the command started.
    public let room: Room

    private let plan: RoomPlan
    private let child: RoomChild
    private let coveredFolders: [(path: String, index: Int)]
    private let dropBytes: Int64?
    private let forwardsSignals: Bool
    // `@unchecked Sendable`: the fields below are read and written only under `lock`; `child`
    // is used by one waiter (`wait` runs once, under `waiting`) and by `send`, which only reads
    // its process identifier.
    private let lock = NSLock()
    private let waiting = NSLock()
    private let ended = DispatchSemaphore(value: 0)
    private let dropFinished = DispatchSemaphore(value: 0)
    private var dropOutcome: Result<RoomDrop, StowageError>?
    private var report: RoomReport?

    private init(plan: RoomPlan, child: RoomChild, room: Room, coveredFolders: [(path: String, index: Int)],
                 dropBytes: Int64?, forwardsSignals: Bool) {
        self.plan = plan
        self.child = child
        self.room = room
        self.coveredFolders = coveredFolders
        self.dropBytes = dropBytes
        self.forwardsSignals = forwardsSignals
        processIdentifier = child.processIdentifier
    }

    /// Released without `wait()`: the child ends with its room (`RoomChild`'s deinit, SIGKILL),
    /// so forwarding to it stops first, before its number can be another process's.
    deinit {
        if forwardsSignals, report == nil { RoomChild.stopForwardingSignals(to: processIdentifier) }
    }

    /// Makes the room of `plan` and starts `command`, given as text, in it: the same as
    /// ``start(_:command:forwardsSignals:)`` with `RoomCommand(command, environment: environment)`.
    ///
    /// - Parameters:
    ///   - plan: The room: how much, over which folders, on what layer.
    ///   - command: The program and its arguments.
    ///   - environment: The command's environment; `nil` passes this process's on, byte for byte.
    ///   - forwardsSignals: See ``start(_:command:forwardsSignals:)``.
    /// - Returns: The running command, whose room is measured already.
    /// - Throws: As ``start(_:command:forwardsSignals:)``.
    public static func start(_ plan: RoomPlan, command: [String], environment: [String: String]? = nil,
                             forwardsSignals: Bool = false) throws -> RoomProcess {
        try start(plan, command: RoomCommand(command, environment: environment), forwardsSignals: forwardsSignals)
    }

    /// Makes the room of `plan` and starts `command` in it.
    ///
    /// - Parameters:
    ///   - plan: The room: how much, over which folders, on what layer.
    ///   - command: The program, its arguments and its environment, as bytes (see
    ///     ``RoomCommand``); a program without a `/` is looked up in the environment's `PATH`.
    ///   - forwardsSignals: Whether `SIGINT`, `SIGTERM`, `SIGHUP`, `SIGQUIT`, `SIGUSR1` and
    ///     `SIGUSR2` sent to this process (by `kill`, not by a terminal, whose signals reach the
    ///     command directly) go to the command instead of ending this process, until `wait()`
    ///     returns. One room at a time per process forwards; the latest wins.
    /// - Returns: The running command, whose room is measured already.
    /// - Throws: ``StowageError/Code/unsupported`` saying what is missing where a room cannot be
    ///   made (Apple platforms; no user namespaces for an ordinary user; no overlayfs; ext4
    ///   without root); ``StowageError/Code/invalidArgument`` for a bad plan, an empty command,
    ///   or a NUL byte in the command or its environment; ``StowageError/Code/notFound``,
    ///   ``StowageError/Code/wrongKind`` for a folder that is not there or not a folder;
    ///   ``StowageError/Code/notFound`` (system call `execve`) for a command that is not found, ``StowageError/Code/permissionDenied`` for one that cannot
    ///   be run. Nothing is left behind when it throws.
    public static func start(_ plan: RoomPlan, command: RoomCommand, forwardsSignals: Bool = false) throws -> RoomProcess {
        if let reason = Sys.roomUnsupportedReason {
            throw StowageError(.unsupported, operation: .run, reason: reason)
        }
        let setup = try RoomSetup(plan: plan)
        let environment = try command.environment ?? Sys.inheritedEnvironment()
        if let problem = command.problem(environment: environment) {
            throw StowageError(.invalidArgument, operation: .run, reason: problem)
        }
        let executable = try RoomSetup.executable(for: command.arguments, searching: RoomCommand.searchPath(in: environment))
        let layer = try RoomLayer.prepare(plan.fileSystem, availableBytes: setup.availableBytes,
                                          availableInodes: plan.availableInodes, folderCount: setup.folders.count)
        let child: RoomChild
        do {
            child = try RoomChild.spawn(RoomChild.Setup(
                folders: setup.folders, layerType: layer.type, layerSource: layer.source, layerOptions: layer.options,
                prefersUserNamespace: Sys.effectiveUserID != 0, executable: executable, arguments: command.arguments,
                environment: environment, workingDirectory: Sys.workingDirectoryBytes))
        } catch let failure as RoomChild.Failure {
            throw setup.error(for: failure, layer: layer, command: command.arguments)
        } catch let error as SystemCallError {
            throw StowageError(error, operation: .run)
        }
        layer.mounted()
        let figures = try layer.size(root: child.layer)  // a failure ends the child (its deinit) with its room
        let skipped = Set(child.skipped.map(\.folderIndex))
        let covered = setup.folders.indices.filter { !skipped.contains($0) }.map { (path: setup.folders[$0].path, index: $0) }
        let room = Room(fileSystem: plan.fileSystem.name,
                        folders: covered.map(\.path),
                        hiddenMounts: setup.folders.indices.filter { skipped.contains($0) }.map { setup.folders[$0].path },
                        availableBytes: figures.available, totalBytes: figures.total, blockSizeBytes: figures.blockSize,
                        availableInodeCount: figures.availableInodes, isUserNamespace: child.isUserNamespace)
        do {
            // Before the command runs, so no signal is missed; a room whose signals would not
            // reach the command is not started (the child ends with its room, in its deinit).
            if forwardsSignals { try RoomChild.forwardSignals(to: child.processIdentifier) }
            try child.start()
        } catch let failure as RoomChild.Failure {
            if forwardsSignals { RoomChild.stopForwardingSignals(to: child.processIdentifier) }
            throw setup.error(for: failure, layer: layer, command: command.arguments)
        } catch let error as SystemCallError {
            if forwardsSignals { RoomChild.stopForwardingSignals(to: child.processIdentifier) }
            throw StowageError(error, operation: .run)
        }
        let process = RoomProcess(plan: plan, child: child, room: room, coveredFolders: covered,
                                  dropBytes: setup.dropBytes, forwardsSignals: forwardsSignals)
        process.scheduleDrop()
        return process
    }

    /// Sends `signal` (such as `Signal.terminate`) to the command.
    ///
    /// - Throws: ``StowageError/Code/notFound`` when the command has ended and been waited for.
    public func send(_ signal: Signal) throws {
        do {
            try lock.withLock {
                guard report == nil else { throw SystemCallError(errno: .noSuchProcess, call: "kill") }
                try child.send(signal.rawValue)
            }
        } catch let error as SystemCallError {
            throw StowageError(error, operation: .run)
        }
    }

    /// Waits for the command to end, as the synchronous `wait()` does, on a thread of its own: the caller's
    /// actor (the main actor of an app, a server's event loop) is never blocked.
    ///
    /// Cancelling the task asks the command to stop (`Signal.terminate`, as ``send(_:)``), and the
    /// wait goes on to its end, so the report says how it ended and the layer is let go; a command
    /// that ignores the signal is waited for all the same.
    ///
    /// ```swift
    /// let room = try RoomProcess.start(plan, command: ["xcrun", "simctl", "..."])
    /// let report = try await room.wait()
    /// ```
    public func wait() async throws -> RoomReport {
        try await LongRunningWork.run(progressInterval: WorkProgress.defaultInterval, progress: nil,
                                      cancel: { [self] in try? send(.terminate) }) { _ in try self.wait() }
    }

    /// Waits for the command to end; then waits for a drop under way, copies the command's
    /// writes to the keep folder when the plan has one, and lets the layer go. Calling it again
    /// returns the same report.
    ///
    /// - Returns: How the command ended, the drop, and what was kept. A failed drop or copy is
    ///   in the report (``RoomReport/dropError``, ``RoomReport/keepError``), not thrown: the
    ///   command ran.
    /// - Throws: ``StowageError/Code/ioFailure`` only when the command could not be waited for.
    public func wait() throws -> RoomReport {
        waiting.lock()
        defer { waiting.unlock() }
        if let finished = lock.withLock({ report }) { return finished }
        let ending: RoomReport.Ending
        do {
            try child.waitUntilEnded()
            // Stopped while the child is ended but not reaped, so that neither a forwarded signal
            // nor send(_:) can reach another process that took its number.
            if forwardsSignals { RoomChild.stopForwardingSignals(to: child.processIdentifier) }
            ending = try lock.withLock { try child.wait() }
        } catch let error as SystemCallError {
            if forwardsSignals { RoomChild.stopForwardingSignals(to: child.processIdentifier) }
            throw StowageError(error, operation: .run)
        }
        ended.signal()
        if dropBytes != nil { dropFinished.wait() }
        let (drop, dropError): (RoomDrop?, StowageError?)
        switch lock.withLock({ dropOutcome }) {
        case .success(let made)?: (drop, dropError) = (made, nil)
        case .failure(let error)?: (drop, dropError) = (nil, error)
        case nil: (drop, dropError) = (nil, nil)
        }
        let (kept, keepError) = plan.keepFolder.map {
            RoomKeeper(layer: child.layer, folders: coveredFolders).copyReporting(to: $0)
        } ?? (nil, nil)
        let result = RoomReport(room: room, ending: ending, drop: drop, dropError: dropError, kept: kept, keepError: keepError)
        lock.withLock { report = result }
        return result
    }

    /// Starts the drop's timer: after the delay the layer is filled down to the drop's target,
    /// unless the command has ended by then.
    private func scheduleDrop() {
        guard let dropBytes, let delay = plan.drop?.delay else { return }
        let thread = Thread { [self] in
            let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
            if ended.wait(timeout: .now() + seconds) == .timedOut {
                let outcome: Result<RoomDrop, StowageError>
                let date = Date()
                do {
                    let fill = try RoomLayer.drop(root: child.layer, to: dropBytes)
                    outcome = .success(RoomDrop(date: date, availableBytesBefore: fill.availableBytesBefore,
                                                availableBytesAfter: fill.availableBytesAfter))
                } catch let error as StowageError {
                    outcome = .failure(error)
                } catch {
                    outcome = .failure(StowageError(.ioFailure, operation: .run, underlying: error, reason: "the drop failed"))
                }
                lock.withLock { dropOutcome = outcome }
            }
            dropFinished.signal()
        }
        thread.name = "Stowage room drop"
        thread.start()
    }
}
