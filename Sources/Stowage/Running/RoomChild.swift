#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Stowage's Platform layer supports Darwin, Glibc and Musl systems")
#endif
import CStowageShims
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
    struct Folder {
        var path: String
        var mode: UInt32
        var owner: UInt32
        var group: UInt32
        /// A mount found below a folder the caller named: left hidden where it cannot be laid over.
        var isOptional: Bool
    }

    /// What the child is to do.
    struct Setup {
        var folders: [Folder]
        /// `tmpfs`, or `ext4` with a loop device as ``layerSource``.
        var layerType: String
        var layerSource: String
        var layerOptions: String?
        /// Start with a user namespace (an ordinary user); otherwise a mount namespace alone is
        /// tried first and a user namespace only where that is refused.
        var prefersUserNamespace: Bool
        /// The program's path, the arguments, the `NAME=value` entries and the working folder
        /// are bytes, passed on exactly (they need not be UTF-8).
        var executable: [UInt8]
        var arguments: [[UInt8]]
        var environment: [[UInt8]]
        var workingDirectory: [UInt8]?
        /// Set for a series of rooms (``RoomSeries``); `nil` for one room.
        var series: Series? = nil
    }

    /// What a series of rooms needs besides the command: the check, and the descriptors both
    /// get as their standard input, output and error (this process's must stay open until the
    /// series ends).
    struct Series {
        var checkExecutable: [UInt8]
        var checkArguments: [[UInt8]]
        /// The check's environment; the child adds `STOWAGE_COMMAND_STATUS=<n>` before each check.
        var checkEnvironment: [[UInt8]]
        var standardInput: Int32
        var standardOutput: Int32
        var standardError: Int32
    }

    /// The child's steps, as `cstowage_room_report.stage` numbers them.
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
            _ = systemKill(processIdentifier, SIGKILL)
            var status: Int32 = 0
            _ = cstowage_wait(processIdentifier, &status)
        }
    }

    /// Forks the child and waits until its room is mounted.
    ///
    /// - Throws: ``Failure`` when a step of the child failed (the child is reaped); a
    ///   `SystemCallError` when the pipes, the fork or the opening of the layer failed.
    static func spawn(_ setup: Setup) throws -> RoomChild {
        var report: [Int32] = [-1, -1]
        var go: [Int32] = [-1, -1]
        _ = try Sys.retrying("pipe2") { cstowage_pipe(&report) }
        do {
            _ = try Sys.retrying("pipe2") { cstowage_pipe(&go) }
        } catch {
            report.forEach { try? Sys.close($0) }  // best effort: the pipe error is the one to report
            throw error
        }
        let pid = try withSpec(setup, reportFD: report[1], goFD: go[0], parentReportFD: report[0], parentGoFD: go[1]) { spec in
            try Sys.retrying("fork") { withUnsafePointer(to: &spec) { cstowage_room_spawn($0) } }
        } onFailure: {
            (report + go).forEach { try? Sys.close($0) }  // best effort: the fork error is the one to report
        }
        try? Sys.close(report[1])  // the child's ends: the parent keeps only its own
        try? Sys.close(go[0])

        var skipped: [Skipped] = []
        func reapAndThrow(_ failure: Failure) throws -> Never {
            try? Sys.close(report[0])
            try? Sys.close(go[1])
            var status: Int32 = 0
            _ = cstowage_wait(pid, &status)
            throw failure
        }
        while true {
            guard let record = try readReport(report[0]) else {
                // The child ended without a word (killed, or its parent-death signal).
                try reapAndThrow(Failure(stage: .parentGone, errno: ECHILD, folderIndex: nil, isUserNamespace: false))
            }
            let isUser = record.is_user_namespace != 0
            let stage = Stage(rawValue: record.stage) ?? .execute
            switch record.kind {
            case CSTOWAGE_ROOM_SKIPPED:
                skipped.append(Skipped(folderIndex: Int(record.index), stage: stage, errno: record.error))
            case CSTOWAGE_ROOM_READY:
                let layer: OpenFile
                do {
                    layer = try OpenFile.openFolder(atPath: "/proc/\(pid)/fd/\(record.value)", followingLinks: true)
                } catch let error as SystemCallError {
                    _ = systemKill(pid, SIGKILL)
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
        var byte: UInt8 = 1
        _ = try Sys.retrying("write") { write(goFD, &byte, 1) }
        let record = try Self.readReport(reportFD)
        try? Sys.close(reportFD)
        reportFD = -1
        guard let record else { return }
        var status: Int32 = 0
        _ = cstowage_wait(processIdentifier, &status)
        isReaped = true
        throw Failure(stage: Stage(rawValue: record.stage) ?? .execute, errno: record.error, folderIndex: nil,
                      isUserNamespace: record.is_user_namespace != 0)
    }

    // MARK: A series of rooms

    /// A series: unmounts the room and mounts a fresh one whose layer has `options`; returns
    /// the optional folders left hidden this time. ``layer`` is the fresh layer's root after it.
    ///
    /// - Throws: ``Failure`` when the child could not (it has ended and been reaped); a
    ///   `SystemCallError` when the pipes failed.
    func remake(options: String) throws -> [Skipped] {
        try request(CSTOWAGE_ROOM_REMAKE, options: options)
        var skipped: [Skipped] = []
        while true {
            let record = try nextSeriesRecord()
            switch record.kind {
            case CSTOWAGE_ROOM_SKIPPED:
                skipped.append(Skipped(folderIndex: Int(record.index), stage: Stage(rawValue: record.stage) ?? .mountOverlay,
                                       errno: record.error))
            case CSTOWAGE_ROOM_READY:
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
        try request(check ? CSTOWAGE_ROOM_RUN_CHECK : CSTOWAGE_ROOM_RUN_COMMAND, value: commandStatus)
        var startFailure: Failure?
        while true {
            let record = try nextSeriesRecord()
            switch record.kind {
            case CSTOWAGE_ROOM_FAILED where startFailure == nil:
                // Written by the run (its runner or the program before execve); the run's ending follows.
                startFailure = failure(of: record)
            case CSTOWAGE_ROOM_ENDED:
                if let startFailure { try endSeries(startFailure) }
                var value: Int32 = 0
                switch cstowage_wait_status(record.value, &value) {
                case 1: return .exited(value)
                case 2: return .signalled(Signal(rawValue: value))
                default: return .exited(record.value)
                }
            default:
                try endSeries(failure(of: record))
            }
        }
    }

    /// A series: remounts the layer with `options` (a larger size: the limit lifted).
    func lift(options: String) throws {
        try request(CSTOWAGE_ROOM_LIFT, options: options)
        let record = try nextSeriesRecord()
        guard record.kind == CSTOWAGE_ROOM_LIFTED else { try endSeries(failure(of: record)) }
    }

    /// A series: lets the child go (it exits, and the namespace goes with its mounts) and
    /// reaps it. Calling it again does nothing.
    func finishSeries() {
        reaping.withLock {
            guard !isReaped else { return }
            closePipes()
            var status: Int32 = 0
            _ = cstowage_wait(processIdentifier, &status)
            isReaped = true
        }
    }

    /// Ends the child at once (`SIGKILL`), unless it has been reaped (its number may be another
    /// process's then): its runs end with it (their parent-death signals). Safe from another
    /// thread than the series' own, which then sees the child gone.
    func kill() {
        reaping.withLock {
            guard !isReaped else { return }
            _ = systemKill(processIdentifier, SIGKILL)
        }
    }

    private func request(_ operation: Int32, value: Int32 = 0, options: String = "") throws {
        var request = cstowage_room_request()
        request.operation = operation
        request.value = value
        let bytes = Array(options.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: request.options) else {
            throw SystemCallError(errno: .invalidArgument, call: "write")
        }
        withUnsafeMutableBytes(of: &request.options) { buffer in
            buffer.copyBytes(from: bytes)
        }
        let size = MemoryLayout<cstowage_room_request>.size
        let written = try withUnsafeBytes(of: &request) { raw in
            try Sys.retrying("write") { write(goFD, raw.baseAddress!, size) }
        }
        guard written == size else { throw SystemCallError(errno: .ioError, call: "write") }
    }

    /// The next record of a series, or the child's failure when it ended without one.
    private func nextSeriesRecord() throws -> cstowage_room_report {
        guard let record = try Self.readReport(reportFD) else {
            try endSeries(Failure(stage: .parentGone, errno: ECHILD, folderIndex: nil, isUserNamespace: isUserNamespace))
        }
        return record
    }

    private func failure(of record: cstowage_room_report) -> Failure {
        Failure(stage: Stage(rawValue: record.stage) ?? .request, errno: record.error,
                folderIndex: record.index >= 0 ? Int(record.index) : nil, isUserNamespace: record.is_user_namespace != 0)
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
        _ = try Sys.retrying("kill") { systemKill(processIdentifier, signal) }
    }

    /// Waits for the child to end without reaping it (`waitid` with `WNOWAIT`): until
    /// ``wait()``, its process identifier is still the child's, so signals sent to it go nowhere else.
    func waitUntilEnded() throws {
        _ = try Sys.retrying("waitid") { cstowage_wait_ended(processIdentifier) }
    }

    /// Waits for the child to end and reaps it (`waitpid`): how it ended.
    func wait() throws -> RoomReport.Ending {
        var status: Int32 = 0
        _ = try Sys.retrying("waitpid") { cstowage_wait(processIdentifier, &status) }
        isReaped = true
        var value: Int32 = 0
        switch cstowage_wait_status(status, &value) {
        case 1: return .exited(value)
        case 2: return .signalled(Signal(rawValue: value))
        default: return .exited(status)
        }
    }

    /// Forwards the signals sent to this process (not those a terminal sends to the whole
    /// process group) to `child`; the latest call wins.
    static func forwardSignals(to child: Int32) throws {
        try SignalRelay.lock.withLock {
            _ = try Sys.retrying("sigaction") { cstowage_forward_signals(child) }
        }
    }

    /// Stops forwarding signals, if they still go to `child` (not another room's command since).
    /// Signals pending still reach `child`: call it before reaping `child`.
    static func stopForwardingSignals(to child: Int32) {
        SignalRelay.lock.withLock {
            _ = cstowage_forward_signals_stop(child)  // joins a thread and restores saved actions: nothing to fail
        }
    }

    /// Reads one report record, or `nil` at the end of the pipe.
    private static func readReport(_ fd: Int32) throws -> cstowage_room_report? {
        var record = cstowage_room_report()
        let size = MemoryLayout<cstowage_room_report>.size
        var done = 0
        while done < size {
            let count = try withUnsafeMutableBytes(of: &record) { bytes in
                try Sys.read(fd, bytes.baseAddress! + done, size - done)
            }
            if count == 0 { return nil }
            done += count
        }
        return record
    }

    /// Builds the C description of `setup` (C strings that live until `body` returns) and calls
    /// `body` with it.
    private static func withSpec<T>(_ setup: Setup, reportFD: Int32, goFD: Int32, parentReportFD: Int32, parentGoFD: Int32,
                                    _ body: (inout cstowage_room_spec) throws -> T,
                                    onFailure: () -> Void) throws -> T {
        var owned: [UnsafeMutablePointer<CChar>] = []
        defer { owned.forEach { $0.deallocate() } }
        func copy(_ text: String) -> UnsafeMutablePointer<CChar> { copy(Array(text.utf8)) }
        func copy(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar> {
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            bytes.withUnsafeBytes { UnsafeMutableRawPointer(pointer).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            pointer[bytes.count] = 0
            owned.append(pointer)
            return pointer
        }
        func vector(_ entries: [[UInt8]]) -> [UnsafeMutablePointer<CChar>?] { entries.map { copy($0) } + [nil] }

        let folders = setup.folders.map { folder in
            cstowage_room_folder(path: copy(folder.path), mode: folder.mode, owner: folder.owner, group: folder.group,
                                 is_optional: folder.isOptional ? 1 : 0)
        }
        let arguments = vector(setup.arguments)
        let environment = vector(setup.environment)
        // The check's status entry: a buffer the child writes `STOWAGE_COMMAND_STATUS=<n>` into.
        let statusEntry = setup.series.map { _ in copy([UInt8](repeating: 0, count: 63)) }
        let checkArguments = vector(setup.series?.checkArguments ?? [])
        let checkEnvironment = (setup.series?.checkEnvironment ?? []).map { copy($0) } + (statusEntry.map { [$0] } ?? []) + [nil]
        let checkExecutable = setup.series.map { copy($0.checkExecutable) }
        let userID = Sys.effectiveUserID
        let groupID = getegid()  // with the user id: the one line each map may hold for an ordinary user
        do {
            return try folders.withUnsafeBufferPointer { folderBuffer in
                try arguments.withUnsafeBufferPointer { argumentBuffer in
                    try environment.withUnsafeBufferPointer { environmentBuffer in
                        try checkArguments.withUnsafeBufferPointer { checkArgumentBuffer in
                            try checkEnvironment.withUnsafeBufferPointer { checkEnvironmentBuffer in
                                var spec = cstowage_room_spec(
                                    folders: folderBuffer.baseAddress, folder_count: Int32(folderBuffer.count),
                                    layer_type: copy(setup.layerType), layer_source: copy(setup.layerSource),
                                    layer_options: setup.layerOptions.map { UnsafePointer(copy($0)) },
                                    namespace_mode: setup.prefersUserNamespace ? CSTOWAGE_ROOM_USER_NAMESPACE : CSTOWAGE_ROOM_MOUNT_NAMESPACE,
                                    uid_map: copy("\(userID) \(userID) 1\n"), gid_map: copy("\(groupID) \(groupID) 1\n"),
                                    working_directory: setup.workingDirectory.map { UnsafePointer(copy($0)) },
                                    executable: copy(setup.executable),
                                    arguments: argumentBuffer.baseAddress, environment: environmentBuffer.baseAddress,
                                    parent: getpid(), report_fd: reportFD, go_fd: goFD,
                                    parent_report_fd: parentReportFD, parent_go_fd: parentGoFD,
                                    series: setup.series == nil ? 0 : 1,
                                    check_executable: checkExecutable.map { UnsafePointer($0) },
                                    check_arguments: checkArgumentBuffer.baseAddress,
                                    check_environment: checkEnvironmentBuffer.baseAddress,
                                    check_status_entry: statusEntry,
                                    standard_input: setup.series?.standardInput ?? -1,
                                    standard_output: setup.series?.standardOutput ?? -1,
                                    standard_error: setup.series?.standardError ?? -1)
                                return try body(&spec)
                            }
                        }
                    }
                }
            }
        } catch {
            onFailure()
            throw error
        }
    }
}

extension Sys {
    /// `/dev/null`, open for reading and writing (close-on-exec): what a range's runs get as
    /// standard input, and as output when it is not shown.
    static func openNullDevice() throws -> OpenFile {
        OpenFile(adopting: try open("/dev/null", O_RDWR | O_CLOEXEC))
    }

    /// The size of a memory page (`sysconf(_SC_PAGESIZE)`): tmpfs counts its size in pages.
    static var pageSize: Int64 { Int64(max(4096, cstowage_page_size())) }

    /// Attaches the open file `backing` to a free loop device that detaches itself when its last
    /// user lets go (`LO_FLAGS_AUTOCLEAR`). Returns the open device (the caller closes it once
    /// the device is mounted) and its path.
    static func attachLoopDevice(_ backing: Int32) throws -> (device: OpenFile, path: String) {
        var number: Int32 = 0
        let fd = try retrying("ioctl(LOOP_CONFIGURE)") { cstowage_loop_attach(backing, &number) }
        return (OpenFile(adopting: fd), "/dev/loop\(number)")
    }
}

@inline(__always) private func systemKill(_ pid: Int32, _ signal: Int32) -> Int32 { kill(pid, signal) }

extension Sys {
    /// Whether `path` is a regular file this process may execute (`stat`, then `access(X_OK)`).
    static func isExecutableFile(_ path: [UInt8]) -> Bool {
        RawPath(bytes: path).withCString { cPath in
            // Missing or unreadable: not found, as execvp says.
            guard let status = try? fstatat(AT_FDCWD, cName: cPath, followingLinks: true), status.kind == .file else { return false }
            return access(cPath, X_OK) == 0
        }
    }

    /// The access this process has to `path` as permission bits (`r` 4, `w` 2, `x` 1), by
    /// `access(2)`: what the owner's bits must say of a covered folder that, in a user
    /// namespace, shows as this user's own. (`access` checks the real ids; stowage is never
    /// set-user-ID, so they are the effective ones.)
    static func accessBits(_ path: String) -> UInt32 {
        path.withCString { cPath in
            (access(cPath, R_OK) == 0 ? 4 : 0) | (access(cPath, W_OK) == 0 ? 2 : 0) | (access(cPath, X_OK) == 0 ? 1 : 0)
        }
    }

    /// The first executable file named `name` in `folders`, in order (`""` is the working
    /// folder, as in `PATH`), or `nil`; names and folders are bytes, as `PATH` holds them.
    static func firstExecutable(named name: [UInt8], in folders: [[UInt8]]) -> [UInt8]? {
        folders.lazy.map { ($0.isEmpty ? Array(".".utf8) : $0) + [UInt8(ascii: "/")] + name }.first(where: isExecutableFile)
    }

    /// ``firstExecutable(named:in:)`` for a name and folders given as text.
    static func firstExecutable(named name: String, in folders: [String]) -> String? {
        firstExecutable(named: Array(name.utf8), in: folders.map { Array($0.utf8) }).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `getcwd(3)`: the working folder as bytes, or `nil` when it cannot be named (removed, or
    /// too long).
    static var workingDirectoryBytes: [UInt8]? {
        guard let path = getcwd(nil, 0) else { return nil }
        defer { free(path) }
        return RawPath(cString: path).bytes
    }

    /// ``workingDirectoryBytes`` as text, for messages.
    static var workingDirectory: String? { workingDirectoryBytes.map { String(decoding: $0, as: UTF8.self) } }
}
