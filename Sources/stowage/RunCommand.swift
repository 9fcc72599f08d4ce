import ArgumentParser
import Foundation
import Stowage

/// `stowage run`: a command meets a full disk, exactly, without the real disk being filled.
struct RunCommand: ParsableCommand, StowageSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a command with exactly this much room in its folders, with real ENOSPC, those folders untouched.",
        discussion: """
            The command runs in a private mount namespace where the folders (--over; by default \
            the app's locations with --app or --root, else your home folder and the temporary \
            folder) are covered by an overlay whose writable layer holds exactly the room: it \
            reads the real files, its writes land in the layer until write(2) fails with ENOSPC, \
            and statvfs/df inside report the room. Modifying a real file copies it into the layer \
            whole first, which counts against the room. Nothing is mounted on the host and the \
            covered folders are never written; what the command wrote there is gone when it ends \
            (see --keep), also if stowage is killed. Writes to any other folder (not covered) \
            reach the real disk, as without stowage. A root command can undo the room's mounts \
            (umount): the room contains mistakes, not an adversary.

            Needs root, or an ordinary user where the kernel allows unprivileged user namespaces; \
            --fs ext4 needs root. Linux only (elsewhere: simulated capacity, STOWAGE_SIMULATED_AVAILABLE).

            Exit status: the command's own; a signal that ends it ends stowage the same way. \
            SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 sent to stowage go to the command. \
            125 when stowage fails (the room cannot be made, a drop or the copy for --keep failed), \
            126 when the command cannot be run, 127 when it is not found, 64 for a usage error.

            A range of rooms (--available LOW..HIGH, or --inodes LOW..HIGH): for each size, from LOW \
            to HIGH (both included) in steps of --step (default: one 4 KiB block, or one inode; a \
            step that is not a whole number of blocks is rounded up, with a note; ends are rounded \
            up to a block), a fresh room over the same folders, the command run in it until it \
            ends, then --check run by /bin/sh in that same room, seeing what the command left, \
            with the room's limit lifted. A line per room: its size, the command's status, the \
            check's. The real folders never change. The command and the check get /dev/null as \
            input; their output is discarded (--show-output: to standard error). One namespace \
            serves the whole range: each room costs a remount and its processes. tmpfs only, no \
            --drop-to. --keep copies what the room of the first failed check holds (a new or \
            empty folder outside the covered ones). At most 100,000 rooms. \
            --find-minimum: the smallest room in which the command succeeds and the check passes, \
            by bisection to one block over a range of any length (0..1GB: about 22 of its \
            244,142 rooms), confirmed by running that size again and one block below ("needs at \
            least 102.4 kB free"); the rooms it did not run are assumed to fail below and succeed \
            above (a need that is not monotonic is not seen: run every size for that), and it \
            says so. Exit status of a range: 0 every check passed (--find-minimum: found and \
            confirmed), 1 a check failed (the sizes listed; --find-minimum: not confirmed, or \
            the command succeeded in the largest room and only the check failed), 3 the command \
            succeeded in no room (--find-minimum: not even in the largest), 125 stowage failed, \
            130 interrupted (SIGINT or SIGTERM: the rooms end, nothing is left), 64 usage.
            """
    )

    @ParentCommand var parent: StowageCommand
    static let refusedRootOptions: [RootOption: String] = [
        .groups: groupsElsewhere,
        .json: "it prints its command's own output; over a range of rooms, --json-lines prints a line of JSON per room.",
    ]

    @Option(parsing: .unconditional,
            help: ArgumentHelp("The room: 5MB, 0, or 1% of the real volume; or a range of rooms, LOW..HIGH (0..2MB), each end included.",
                               valueName: "size"),
            transform: RoomAmountArgument.init(parsing:))
    var available: RoomAmountArgument

    @Option(name: .customLong("over"), help: ArgumentHelp("A folder whose writes share the room (repeatable).", valueName: "path"),
            completion: .directory, transform: PathArgument.init(parsing:))
    var folders: [PathArgument] = []

    @OptionGroup var container: ContainerOptions
    @OptionGroup var units: UnitOptions

    @Option(name: .customLong("fs"), help: "The layer's file system: tmpfs (instant, in memory) or ext4 (an image; root only).")
    var fileSystem: RoomPlan.FileSystem = .tmpfs

    @Option(name: .customLong("drop-to"), parsing: .unconditional,
            help: ArgumentHelp("After --after, space drops to this while the command runs.", valueName: "size"),
            transform: RoomSizeArgument.init(parsing:))
    var dropTo: RoomSizeArgument?

    @Option(parsing: .unconditional, help: ArgumentHelp("How long after the command starts the drop happens: 2s, 0.5s, 1m (at most 365d).",
                                                        valueName: "duration"))
    var after: AgeArgument?

    @Option(parsing: .unconditional,
            help: ArgumentHelp("The layer has exactly this many free inodes; or a range, LOW..HIGH (0..100).", valueName: "count"))
    var inodes: String?

    @Option(parsing: .unconditional,
            help: ArgumentHelp("A range's step: a size (4KB; rounded up to whole 4 KiB blocks, with a note), or inodes. "
                               + "Default: one block, or one inode.", valueName: "step"))
    var step: String?

    @Option(help: ArgumentHelp("A range: after the command, run this shell command in the same room, its limit lifted "
                               + "(STOWAGE_COMMAND_STATUS holds the command's status); it passes when it exits 0.",
                               valueName: "shell-command"))
    var check: String?

    @Flag(name: .customLong("find-minimum"),
          help: "A range of any length: find the smallest room in which the command succeeds (and the check passes), by bisection to one block.")
    var findMinimum = false

    @Flag(name: .customLong("json-lines"), help: "A range: print each room, then a summary, as one line of JSON.")
    var jsonLines = false

    @Flag(name: .customLong("show-output"),
          help: "A range: send the command's and the check's output to standard error (by default it is discarded).")
    var showOutput = false

    @Option(help: ArgumentHelp("Copy what the command wrote here afterwards (a new or empty folder, outside the covered ones); with a range, "
                               + "what the room of the first failed check holds.", valueName: "dir"),
            completion: .directory, transform: PathArgument.init(parsing:))
    var keep: PathArgument?

    @Argument(parsing: .postTerminator, help: ArgumentHelp("The command and its arguments, after --.", valueName: "command"))
    var command: [String] = []

    func validate() throws {
        try refuseRootOptionsNotTaken()
        if command.isEmpty { throw ValidationError("Give the command to run after --, as in: stowage run --available 5MB -- make test") }
        if (dropTo == nil) != (after == nil) { throw ValidationError("--drop-to and --after go together.") }
        _ = try inodeLimit()
        try validateRange()
        if let after, after.seconds > AgeArgument.longest { throw ValidationError("--after must be at most 365d (one year).") }
        try container.refuse(beside: folders.isEmpty ? nil : "--over", standingFor: "the app's locations")
    }

    mutating func run() throws {
        if let range = try range() {
            try RunRange(options: self, range: range).run()
            return
        }
        let report: RoomReport
        do {
            // The command line and the environment go on byte for byte (Architecture article: bytes at every boundary).
            let process = try RoomProcess.start(try plan(), command: RoomCommand(arguments: try RawCommandLine.trailing(command)),
                                                forwardsSignals: true)
            for mount in process.room.hiddenMounts {
                Terminal.standardError.problem("note: the mount at \(mount) cannot be covered; in the room the command sees the folder beneath it")
            }
            report = try process.wait()
        } catch let error as StowageError {
            Terminal.standardError.problem(error)
            throw ExitCode(RunExitStatus.status(for: error, keepFolder: keepPath))
        }
        var failed = false
        if let error = report.dropError {
            Terminal.standardError.problem(error)
            failed = true
        } else if let drop = dropTo, report.drop == nil {
            Terminal.standardError.problem("note: the command ended before the drop to \(drop.size) (after \(after?.defaultValueDescription ?? ""))")
        }
        if let kept = report.kept { Self.tell(kept, from: "the command wrote", style: units.style) }
        if let error = report.keepError {
            Terminal.standardError.problem(error)
            failed = true
        }
        if failed { throw ExitCode(RunExitStatus.failure) }
        switch report.ending {
        case .exited(let status):
            if status != 0 { throw ExitCode(status) }
        case .signalled(let signal):
            signal.endThisProcess()
        }
    }

    /// What `--keep` copied, on standard error, the same for one room and a range: the files and
    /// the bytes they take on disk (a sparse file counts the blocks it holds, not its length), the
    /// real items the command removed, and each item not copied with the reason.
    static func tell(_ kept: KeptWrites, from origin: String, style: ByteCountStyle) {
        Terminal.standardError.problem("kept \(Noun.file.counted(kept.fileCount)) (\(ByteCount(kept.allocatedBytes).formatted(style)) on disk) "
                                       + "\(origin) in \(kept.folder)"
                                       + (kept.removedPaths.isEmpty ? "" : "; it removed \(Noun("real item").counted(kept.removedPaths.count)): "
                                          + kept.removedPaths.joined(separator: ", ")))
        for path in kept.skippedPaths {
            Terminal.standardError.problem("not kept: \(path): a device, socket or FIFO, which is not copied")
        }
        for item in kept.notCopied {
            Terminal.standardError.write("stowage: not kept: \(DisplayPath.escaped(bytes: item.pathBytes)): \(DisplayPath.escaped(item.reason))\n")
        }
    }

    /// The keep folder's path as the plan gives it (and the library's errors name it): absolute,
    /// without a trailing slash.
    var keepPath: String? {
        keep.map {
            var path = $0.url(directoryHint: .isDirectory).absoluteURL.path(percentEncoded: false)
            while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
            return path
        }
    }

    /// The plan the options describe (with a range: its folders, the fixed size, the keep folder).
    func plan() throws -> RoomPlan {
        var folders = self.folders.map { $0.url(directoryHint: .isDirectory).absoluteURL }
        if folders.isEmpty {
            let app = container.app != nil || container.root != nil ? try container.resolve() : nil
            folders = try RoomPlan.defaultFolders(for: app)
        }
        let drop = dropTo.map { RoomPlan.Drop(to: $0.size, after: .milliseconds(Int64(((after?.seconds ?? 0) * 1000).rounded()))) }
        return RoomPlan(available: available.size ?? .bytes(0), over: folders, fileSystem: fileSystem, availableInodes: try inodeLimit(),
                        drop: drop,
                        keepingWritesIn: keepPath.map { URL(filePath: $0, directoryHint: .isDirectory) })
    }
}

/// `--available`: a room's size (`5MB`, `0`, `1%` of the real volume), or a range of rooms
/// (`0..2MB`), parsed with `--step` once all options are known.
struct RoomAmountArgument: Sendable {
    /// The size, or `nil` for a range.
    var size: RoomPlan.Size?
    /// The range as written, or `nil` for one size.
    var rangeText: String?

    init(parsing argument: String) throws {
        if RoomRange.isRange(argument) {
            rangeText = argument
        } else {
            size = try RoomSizeArgument(parsing: argument).size
        }
    }
}

/// A room's size on the command line: `5MB`, `0`, or `1%` of the real volume.
struct RoomSizeArgument: Sendable {
    var size: RoomPlan.Size

    init(parsing argument: String) throws {
        do {
            size = try RoomPlan.Size(parsing: argument)
        } catch let error as StowageError {
            throw ValidationError(error.reason ?? error.description)
        }
    }
}

/// `run`'s own exit statuses, as `env`, `timeout` and `chroot` use them: the command's status
/// passes through, so stowage's failures need numbers a command rarely uses.
enum RunExitStatus {
    /// stowage failed: the room could not be made, a drop or the copy for --keep failed.
    static let failure: Int32 = 125
    /// The command was found but could not be run.
    static let cannotRun: Int32 = 126
    /// The command was not found.
    static let notFound: Int32 = 127

    static func status(for error: StowageError, keepFolder: String? = nil) -> Int32 {
        // A value the user gave that cannot be used (a drop above the room, a room over /): 64.
        if ExitStatus.status(for: error) == ExitStatus.usage { return ExitStatus.usage }
        // The keep folder refused before anything ran (something in it, or not a folder): 64 too.
        if let keepFolder, error.path == keepFolder, error.errno == nil, error.code == .alreadyExists || error.code == .wrongKind {
            return ExitStatus.usage
        }
        switch error.commandStartFailure {
        case .notFound?: return notFound
        case .cannotRun?: return cannotRun
        case nil: return failure
        }
    }
}

extension RoomPlan.FileSystem: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }

    public static var allValueStrings: [String] { all.map(\.name) }

    public static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }

    public var defaultValueDescription: String { name }
}
