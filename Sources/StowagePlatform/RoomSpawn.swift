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

/// The thin call surface over `room.c`, the room's child process: what to spawn
/// (``Setup``), the records the child reports (``Record``), the requests of a series
/// (``Request``). What the steps mean, and the order of the conversation, are the library's
/// (`RoomChild` in `Running/`).
package enum RoomSpawn {
    /// A folder to lay the room over.
    package struct Folder {
        package var path: String
        package var mode: UInt32
        package var owner: UInt32
        package var group: UInt32
        /// A mount found below a folder the caller named: left hidden where it cannot be laid over.
        package var isOptional: Bool

        package init(path: String, mode: UInt32, owner: UInt32, group: UInt32, isOptional: Bool) {
            self.path = path
            self.mode = mode
            self.owner = owner
            self.group = group
            self.isOptional = isOptional
        }
    }

    /// What the child is to do.
    package struct Setup {
        package var folders: [Folder]
        /// `tmpfs`, or `ext4` with a loop device as ``layerSource``.
        package var layerType: String
        package var layerSource: String
        package var layerOptions: String?
        /// Start with a user namespace (an ordinary user); otherwise a mount namespace alone is
        /// tried first and a user namespace only where that is refused.
        package var prefersUserNamespace: Bool
        /// The program's path, the arguments, the `NAME=value` entries and the working folder
        /// are bytes, passed on exactly (they need not be UTF-8).
        package var executable: [UInt8]
        package var arguments: [[UInt8]]
        package var environment: [[UInt8]]
        package var workingDirectory: [UInt8]?
        /// Set for a series of rooms; `nil` for one room.
        package var series: Series? = nil

        package init(folders: [Folder], layerType: String, layerSource: String, layerOptions: String?, prefersUserNamespace: Bool,
                     executable: [UInt8], arguments: [[UInt8]], environment: [[UInt8]], workingDirectory: [UInt8]?,
                     series: Series? = nil) {
            self.folders = folders
            self.layerType = layerType
            self.layerSource = layerSource
            self.layerOptions = layerOptions
            self.prefersUserNamespace = prefersUserNamespace
            self.executable = executable
            self.arguments = arguments
            self.environment = environment
            self.workingDirectory = workingDirectory
            self.series = series
        }
    }

    /// What a series of rooms needs besides the command: the check, and the descriptors both
    /// get as their standard input, output and error (this process's must stay open until the
    /// series ends).
    package struct Series {
        package var checkExecutable: [UInt8]
        package var checkArguments: [[UInt8]]
        /// The check's environment; the child adds `STOWAGE_COMMAND_STATUS=<n>` before each check.
        package var checkEnvironment: [[UInt8]]
        package var standardInput: Int32
        package var standardOutput: Int32
        package var standardError: Int32

        package init(checkExecutable: [UInt8], checkArguments: [[UInt8]], checkEnvironment: [[UInt8]],
                     standardInput: Int32, standardOutput: Int32, standardError: Int32) {
            self.checkExecutable = checkExecutable
            self.checkArguments = checkArguments
            self.checkEnvironment = checkEnvironment
            self.standardInput = standardInput
            self.standardOutput = standardOutput
            self.standardError = standardError
        }
    }

    /// One record the child wrote to the report pipe (`cstowage_room_report`).
    package struct Record: Sendable {
        /// What it reports.
        package enum Kind: Sendable {
            /// The room is mounted; ``value`` is the descriptor of the layer's root in the child.
            case ready
            /// Optional folder ``index`` was left hidden; ``error`` says why.
            case skipped
            /// Step ``stage`` failed with ``error`` (for folder ``index``).
            case failed
            /// A series' run ended; ``value`` is its raw wait status.
            case ended
            /// A series' layer was remounted.
            case lifted
            /// A kind this surface does not know.
            case unknown
        }

        package var kind: Kind
        /// The step, as `room.c` numbers them (`CSTOWAGE_ROOM_STAGE_*`).
        package var stage: Int32
        package var error: Int32
        /// The folder concerned, or -1.
        package var index: Int32
        package var value: Int32
        package var isUserNamespace: Bool

        package init(_ record: cstowage_room_report) {
            switch record.kind {
            case CSTOWAGE_ROOM_READY: kind = .ready
            case CSTOWAGE_ROOM_SKIPPED: kind = .skipped
            case CSTOWAGE_ROOM_FAILED: kind = .failed
            case CSTOWAGE_ROOM_ENDED: kind = .ended
            case CSTOWAGE_ROOM_LIFTED: kind = .lifted
            default: kind = .unknown
            }
            stage = record.stage
            error = record.error
            index = record.index
            value = record.value
            isUserNamespace = record.is_user_namespace != 0
        }
    }

    /// What a series asks of the child (`cstowage_room_request`).
    package enum Request: Sendable {
        /// Unmount the room and mount a fresh one (answered by ``Record/Kind/ready``).
        case remake
        /// Run the command (answered by ``Record/Kind/ended``).
        case runCommand
        /// Run the check, `value` being the command's status (answered by ``Record/Kind/ended``).
        case runCheck
        /// Remount the layer (answered by ``Record/Kind/lifted``).
        case lift

        package var operation: Int32 {
            switch self {
            case .remake: CSTOWAGE_ROOM_REMAKE
            case .runCommand: CSTOWAGE_ROOM_RUN_COMMAND
            case .runCheck: CSTOWAGE_ROOM_RUN_CHECK
            case .lift: CSTOWAGE_ROOM_LIFT
            }
        }
    }

    /// A pipe, both ends close-on-exec (`pipe2`).
    package static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        _ = try Sys.retrying("pipe2") { cstowage_pipe(&ends) }
        return (ends[0], ends[1])
    }

    /// Forks the child (`cstowage_room_spawn`), which reports on `reportFD` and waits for its
    /// go-ahead on `goFD`, closing the parent's ends (`parentReportFD`, `parentGoFD`); returns its
    /// process identifier.
    package static func spawn(_ setup: Setup, reportFD: Int32, goFD: Int32, parentReportFD: Int32, parentGoFD: Int32) throws -> Int32 {
        try withSpec(setup, reportFD: reportFD, goFD: goFD, parentReportFD: parentReportFD, parentGoFD: parentGoFD) { spec in
            try Sys.retrying("fork") { withUnsafePointer(to: &spec) { cstowage_room_spawn($0) } }
        }
    }

    /// Reads one report record from `fd`, or `nil` at the end of the pipe.
    package static func readRecord(_ fd: Int32) throws -> Record? {
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
        return Record(record)
    }

    /// Writes the go-ahead (one byte) to `fd`.
    package static func sendGoAhead(_ fd: Int32) throws {
        var byte: UInt8 = 1
        _ = try Sys.retrying("write") { write(fd, &byte, 1) }
    }

    /// Writes `request` with `value` and the layer's mount `options` to `fd`.
    ///
    /// - Throws: `EINVAL` when `options` do not fit the request; `EIO` for a short write.
    package static func send(_ request: Request, value: Int32 = 0, options: String = "", to fd: Int32) throws {
        var record = cstowage_room_request()
        record.operation = request.operation
        record.value = value
        let bytes = Array(options.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: record.options) else {
            throw SystemCallError(errno: .invalidArgument, call: "write")
        }
        withUnsafeMutableBytes(of: &record.options) { buffer in
            buffer.copyBytes(from: bytes)
        }
        let size = MemoryLayout<cstowage_room_request>.size
        let written = try withUnsafeBytes(of: &record) { raw in
            try Sys.retrying("write") { write(fd, raw.baseAddress!, size) }
        }
        guard written == size else { throw SystemCallError(errno: .ioError, call: "write") }
    }

    /// Builds the C description of `setup` (C strings that live until `body` returns) and calls
    /// `body` with it.
    private static func withSpec<T>(_ setup: Setup, reportFD: Int32, goFD: Int32, parentReportFD: Int32, parentGoFD: Int32,
                                    _ body: (inout cstowage_room_spec) throws -> T) throws -> T {
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
    }
}

/// How a process ended.
package enum ProcessEnding: Sendable, Hashable {
    /// It exited with this status.
    case exited(Int32)
    /// This signal ended it.
    case signalled(Signal)

    /// The ending a raw wait status says (`WIFEXITED`, `WIFSIGNALED`); any other status as
    /// `exited(status)`.
    package init(waitStatus status: Int32) {
        var value: Int32 = 0
        switch cstowage_wait_status(status, &value) {
        case 1: self = .exited(value)
        case 2: self = .signalled(Signal(rawValue: value))
        default: self = .exited(status)
        }
    }
}

// Child processes: signals, waiting, forwarding.
extension Sys {
    /// Sends `signal` to the process `pid` (`kill(2)`).
    package static func signal(_ pid: Int32, _ signal: Int32) throws {
        _ = try retrying("kill") { kill(pid, signal) }
    }

    /// Ends the process `pid` at once (`SIGKILL`), best effort: it may have ended already.
    package static func killNow(_ pid: Int32) {
        _ = kill(pid, SIGKILL)
    }

    /// Reaps the child `pid` (`waitpid`): how it ended.
    package static func reap(_ pid: Int32) throws -> ProcessEnding {
        var status: Int32 = 0
        _ = try retrying("waitpid") { cstowage_wait(pid, &status) }
        return ProcessEnding(waitStatus: status)
    }

    /// Reaps the child `pid`, best effort (it is known to end, or to have ended).
    package static func reapIgnoringErrors(_ pid: Int32) {
        var status: Int32 = 0
        _ = cstowage_wait(pid, &status)
    }

    /// Waits for the child `pid` to end without reaping it (`waitid` with `WNOWAIT`).
    package static func waitUntilEnded(_ pid: Int32) throws {
        _ = try retrying("waitid") { cstowage_wait_ended(pid) }
    }

    /// Forwards the signals sent to this process (not those a terminal sends to the whole
    /// process group) to `child`; the latest call wins.
    package static func forwardSignals(to child: Int32) throws {
        try SignalRelay.lock.withLock {
            _ = try retrying("sigaction") { cstowage_forward_signals(child) }
        }
    }

    /// Stops forwarding signals, if they still go to `child` (not another room's command since).
    /// Signals pending still reach `child`: call it before reaping `child`.
    package static func stopForwardingSignals(to child: Int32) {
        SignalRelay.lock.withLock {
            _ = cstowage_forward_signals_stop(child)  // joins a thread and restores saved actions: nothing to fail
        }
    }
}
