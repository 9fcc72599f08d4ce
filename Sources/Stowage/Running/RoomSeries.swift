import Foundation

/// Rooms made one after another over the same folders, by one child that keeps its namespaces
/// (``RoomRangeRun``'s engine): the namespace, the folders' descriptors and the decision which
/// mounts to cover are made once; each room is a fresh layer and fresh overlays, mounted where
/// the last ones were unmounted, so no write of one room is seen in the next.
///
/// Each run (the command, then the check) gets a PID namespace and a mount namespace of its own,
/// copies of the room's: its `/proc` goes with it, and whatever it mounts never reaches the next
/// room. Nothing is deleted between rooms: unmounting a tmpfs frees all it held.
final class RoomSeries {
    private let setup: RoomSetup
    private let child: RoomChild
    private let folderCount: Int
    private let fixedBytes: Int64
    private let fixedInodes: Int64?
    /// The covered folders of the current room and their numbers (`upper/<n>`).
    private(set) var covered: [(path: String, index: Int)] = []
    private var hidden: [String] = []
    /// The room mounted by the spawn, not used yet: the first room needs no remount.
    private var spawned: (bytes: Int64, inodes: Int64?)?
    /// The current room's layer.
    private var layer: RoomLayer
    /// The command and the check as bytes, for messages.
    private let commandText: [[UInt8]]
    private let checkText: [[UInt8]]

    /// Starts the child with a first room of `bytes` and `inodes`.
    ///
    /// - Parameters:
    ///   - output: The descriptors the command and the check get as 0, 1 and 2; this process's
    ///     must stay open until ``finish()``.
    init(setup: RoomSetup, bytes: Int64, inodes: Int64?, command: RoomCommand, check: RoomCommand?,
         output: (input: Int32, output: Int32, error: Int32)) throws {
        if let reason = Sys.roomUnsupportedReason {
            throw StowageError(.unsupported, operation: .run, reason: reason)
        }
        self.setup = setup
        folderCount = setup.folders.count
        commandText = command.arguments
        checkText = check?.arguments ?? [Array("/bin/true".utf8)]
        fixedBytes = bytes
        fixedInodes = inodes
        let environment = try command.environment ?? Sys.inheritedEnvironment()
        if let problem = command.problem(environment: environment) {
            throw StowageError(.invalidArgument, operation: .run, reason: problem)
        }
        let executable = try RoomSetup.executable(for: command.arguments, searching: RoomCommand.searchPath(in: environment))
        // The check: the same environment (its own if it has one), which the child extends with
        // STOWAGE_COMMAND_STATUS before each check.
        let check = check ?? RoomCommand(arguments: [Array("/bin/true".utf8)])
        let checkEnvironment = (check.environment ?? environment).filter { !$0.starts(with: Array("STOWAGE_COMMAND_STATUS=".utf8)) }
        if let problem = check.problem(environment: checkEnvironment) {
            throw StowageError(.invalidArgument, operation: .run, reason: "the check: " + problem)
        }
        let checkExecutable = try RoomSetup.executable(for: check.arguments, searching: RoomCommand.searchPath(in: checkEnvironment))
        layer = try RoomLayer.prepare(.tmpfs, availableBytes: bytes, availableInodes: inodes, folderCount: setup.folders.count)
        do {
            child = try RoomChild.spawn(RoomChild.Setup(
                folders: setup.folders, layerType: layer.type, layerSource: layer.source, layerOptions: layer.options,
                prefersUserNamespace: Sys.effectiveUserID != 0, executable: executable, arguments: command.arguments,
                environment: environment, workingDirectory: Sys.workingDirectoryBytes,
                series: RoomChild.Series(checkExecutable: checkExecutable, checkArguments: check.arguments,
                                         checkEnvironment: checkEnvironment, standardInput: output.input,
                                         standardOutput: output.output, standardError: output.error)))
        } catch let failure as RoomChild.Failure {
            throw setup.error(for: failure, layer: layer, command: command.arguments)
        } catch let error as SystemCallError {
            throw StowageError(error, operation: .run)
        }
        spawned = (bytes, inodes)
        note(skipped: child.skipped)
    }

    deinit { child.kill() }  // abandoned (an error): the child's deinit reaps it

    /// A fresh room of `bytes` (or the series' fixed bytes) and `inodes` (or its fixed inodes),
    /// measured before anything runs in it.
    ///
    /// - Throws: ``StowageError`` when the room could not be made (the series has ended then).
    func room(bytes: Int64? = nil, inodes: Int64? = nil) throws -> Room {
        let bytes = bytes ?? fixedBytes
        let inodes = inodes ?? fixedInodes
        layer = try RoomLayer.prepare(.tmpfs, availableBytes: bytes, availableInodes: inodes, folderCount: folderCount)
        if let first = spawned, first.bytes == bytes, first.inodes == inodes {
            spawned = nil
        } else {
            spawned = nil
            do {
                note(skipped: try child.remake(options: layer.options ?? ""))
            } catch let failure as RoomChild.Failure {
                throw setup.error(for: failure, layer: layer, command: [])
            } catch let error as SystemCallError {
                throw StowageError(error, operation: .run)
            }
        }
        let figures = try layer.size(root: child.layer)
        return Room(fileSystem: RoomPlan.FileSystem.tmpfs.name, folders: covered.map(\.path), hiddenMounts: hidden,
                    availableBytes: figures.available, totalBytes: figures.total, blockSizeBytes: figures.blockSize,
                    availableInodeCount: figures.availableInodes, isUserNamespace: child.isUserNamespace)
    }

    /// Runs the command (or the check, told the command's `commandStatus`) in the current room
    /// until every process of the run has ended.
    func run(check: Bool, commandStatus: Int32 = 0) throws -> RoomReport.Ending {
        do {
            return try child.run(check: check, commandStatus: commandStatus)
        } catch let failure as RoomChild.Failure {
            throw setup.error(for: failure, layer: layer, command: check ? checkText : commandText)
        } catch let error as SystemCallError {
            throw StowageError(error, operation: .run)
        }
    }

    /// Lifts the current room's limit: its layer is remounted at the size tmpfs takes by
    /// default, half the memory, and as many inodes, so the check has room whatever the
    /// command left.
    func liftLimit() throws {
        let page = Sys.pageSize
        let half = Int64(ProcessInfo.processInfo.physicalMemory / 2) / page * page
        var options = "size=\(half)"
        if layer.availableInodes != nil { options += ",nr_inodes=\(max(half / page, 1 << 20))" }
        do {
            try child.lift(options: options)
        } catch let failure as RoomChild.Failure {
            throw setup.error(for: failure, layer: layer, command: [])
        } catch let error as SystemCallError {
            throw StowageError(error, operation: .run)
        }
    }

    /// The current room's layer root, open.
    var layerRoot: OpenFile { child.layer }

    /// Ends the series: the child exits, and the namespace goes with its mounts.
    func finish() { child.finishSeries() }

    /// Ends the child at once, from any thread (the series' own thread then sees it gone).
    func kill() { child.kill() }

    private func note(skipped: [RoomChild.Skipped]) {
        let skippedIndexes = Set(skipped.map(\.folderIndex))
        covered = setup.folders.indices.filter { !skippedIndexes.contains($0) }.map { (path: setup.folders[$0].path, index: $0) }
        hidden = setup.folders.indices.filter { skippedIndexes.contains($0) }.map { setup.folders[$0].path }
    }
}
