import Foundation

/// A ``RoomPlan`` checked and resolved against the file system: the folders to cover (without
/// links, none inside another, the mounts inside them added), the room and the drop in bytes.
struct RoomSetup {
    /// The most folders (named ones and mounts inside them) a room covers.
    static let folderLimit = 256

    var folders: [RoomChild.Folder]
    var availableBytes: Int64
    var dropBytes: Int64?

    /// Checks `plan`; nothing is changed.
    ///
    /// - Throws: ``StowageError/Code/invalidArgument`` (no folder, `/`, a negative or too large
    ///   size, a drop not below the room, a negative inode count, too many mounts, a keep folder
    ///   inside a covered folder),
    ///   ``StowageError/Code/notFound``, ``StowageError/Code/wrongKind``,
    ///   ``StowageError/Code/alreadyExists`` (a keep folder with something in it).
    init(plan: RoomPlan) throws {
        func invalid(_ reason: String, path: String? = nil) -> StowageError {
            StowageError(.invalidArgument, operation: .run, path: path, reason: reason)
        }
        guard !plan.folders.isEmpty else { throw invalid("a room needs at least one folder to cover") }
        var named: [String] = []
        for url in plan.folders {
            let given = url.fileSystemPath
            let path: String
            do {
                path = try Sys.resolvedPath(given)
                guard try Sys.stat(path).isFolder else {
                    throw StowageError(.wrongKind, operation: .run, path: given, reason: "a room covers folders; this is not one")
                }
            } catch let error as SystemCallError {
                throw StowageError(error, operation: .run, path: given)
            }
            guard path != "/" else {
                throw invalid("a room cannot cover / itself (the command's own root); name the folders it writes to", path: given)
            }
            named.append(path)
        }
        // A folder inside another is covered by the outer one already.
        named = named.sortedParentsFirst()
        var outer: [String] = []
        for path in named where !outer.contains(where: { path == $0 || path.hasBytePrefix($0 + "/") }) {
            outer.append(path)
        }
        // The mounts inside the folders are covered too: a table that cannot be read is an
        // error, not "no mounts" (which would hide them from the command without a word).
        let mounts: [MountTable.Entry]
        do {
            mounts = try MountTable.entries()
        } catch let error as SystemCallError {
            throw StowageError(error, operation: .run, path: MountTable.description)
        }
        var folders: [RoomChild.Folder] = []
        for path in outer {
            folders.append(try Self.folder(path, isOptional: false))
            for mount in MountTable.mountPoints(below: path, in: mounts) {
                folders.append((try? Self.folder(mount, isOptional: true))  // unreadable: the child skips it too
                               ?? RoomChild.Folder(path: mount, mode: 0o755, owner: 0, group: 0, isOptional: true))
            }
        }
        guard folders.count <= Self.folderLimit else {
            throw invalid("the folders hold \(folders.count - outer.count) mounts; a room covers at most \(Self.folderLimit) folders and mounts")
        }
        self.folders = folders

        let first = outer[0]
        let volumeTotal = { () throws -> Int64 in
            do {
                return try Sys.spaceFigures(atPath: first).total
            } catch let error as SystemCallError {
                throw StowageError(error, operation: .run, path: first)
            }
        }
        availableBytes = try plan.available.bytes(ofVolumeTotal: volumeTotal)
        guard availableBytes >= 0 else { throw invalid("the room cannot be negative (\(availableBytes) bytes)") }
        _ = try RoomPlan.checkedRoom(bytes: availableBytes)
        if plan.fileSystem == .tmpfs {
            let limit = Int64(ProcessInfo.processInfo.physicalMemory / 2)
            guard availableBytes <= limit else {
                throw invalid("a tmpfs room is held in memory and can be at most half of it (\(ByteCount(limit))), "
                              + "as tmpfs's own default; use an ext4 layer for \(ByteCount(availableBytes))")
            }
        }
        if let inodes = plan.availableInodes {
            guard inodes >= 0 else { throw invalid("the inodes to leave cannot be negative (\(inodes))") }
            _ = try RoomPlan.checkedRoom(inodes: inodes)
        }
        if let drop = plan.drop {
            let bytes = try drop.available.bytes(ofVolumeTotal: volumeTotal)
            guard bytes >= 0, bytes < availableBytes else {
                throw invalid("a drop must leave less than the room (\(ByteCount(availableBytes))), not \(ByteCount(bytes))")
            }
            guard drop.delay >= .zero else { throw invalid("a drop's delay cannot be negative") }
            dropBytes = bytes
        }
        if let keep = plan.keepFolder { try Self.checkKeepFolder(keep.fileSystemPath, covered: outer) }
    }

    /// The folder at `path` as the child needs it: its mode and owner for its upper folder.
    ///
    /// For an ordinary user whose folder it is not, the room (a user namespace, where only the
    /// user is mapped) cannot give the upper folder its real owner, so the covered folder shows
    /// as the user's own; its owner bits are then what the user may really do there (`access`),
    /// so that `touch /usr/share/doc/x` fails in the room as it does outside. (A `chmod` of that
    /// one folder still succeeds in the room, as its owner's would; nothing reaches the disk.)
    private static func folder(_ path: String, isOptional: Bool) throws -> RoomChild.Folder {
        do {
            let status = try Sys.stat(path)
            var mode = status.permissions
            if Sys.effectiveUserID != 0 && status.userID != Sys.effectiveUserID {
                mode = (mode & ~0o700) | (Sys.accessBits(path) << 6)
            }
            return RoomChild.Folder(path: path, mode: mode, owner: status.userID, group: status.groupID,
                                    isOptional: isOptional)
        } catch let error as SystemCallError {
            throw StowageError(error, operation: .run, path: path)
        }
    }

    /// The keep folder must be missing or an empty folder, outside every `covered` folder
    /// (resolved): the copy never mixes with, or replaces, what is there, and never writes into
    /// a real folder the room covers.
    private static func checkKeepFolder(_ path: String, covered: [String]) throws {
        // Where the keep folder really is: its nearest existing folder resolved, the rest as given.
        var existing = URL(filePath: path).standardizedFileURL.fileSystemPath
        var rest: [String] = []
        while (try? Container.statusIfPresent(atPath: existing)) == nil, existing != "/" {
            rest.insert(URL(filePath: existing).lastPathComponent, at: 0)
            existing = URL(filePath: existing).deletingLastPathComponent().fileSystemPath
        }
        let base = (try? Sys.resolvedPath(existing)) ?? existing
        let resolved = rest.isEmpty ? base : (base == "/" ? "" : base) + "/" + rest.joined(separator: "/")
        if let folder = covered.first(where: { resolved == $0 || resolved.hasBytePrefix($0 + "/") }) {
            throw StowageError(.invalidArgument, operation: .run, path: path,
                               reason: "the keep folder is in \(folder), which the room covers: the copy would be written into the real "
                                   + "folder; give a folder outside it")
        }
        do {
            guard let status = try Container.statusIfPresent(atPath: path) else { return }
            guard status.isFolder else {
                throw StowageError(.wrongKind, operation: .run, path: path, reason: "the keep folder is not a folder")
            }
            guard try OpenFile.openFolder(atPath: path, followingLinks: false).entryNames().isEmpty else {
                throw StowageError(.alreadyExists, operation: .run, path: path,
                                   reason: "the keep folder has something in it already; give a new or empty folder")
            }
        } catch let error as SystemCallError {
            throw StowageError(error, operation: .run, path: path)
        }
    }

    /// The path of the program `command` names, as bytes: itself when it has a `/`, else the
    /// first executable file of that name in `searchPath` (`PATH`; `/usr/local/bin:/usr/bin:/bin`
    /// when unset), as `execvp` finds it.
    ///
    /// - Throws: ``StowageError/Code/invalidArgument`` for an empty command;
    ///   ``StowageError/Code/notFound`` (system call `execve`) when nothing is found.
    static func executable(for command: [[UInt8]], searching searchPath: [UInt8]?) throws -> [UInt8] {
        guard let name = command.first, !name.isEmpty else {
            throw StowageError(.invalidArgument, operation: .run, reason: "there is no command to run")
        }
        if name.contains(UInt8(ascii: "/")) { return name }
        let folders = (searchPath ?? Array("/usr/local/bin:/usr/bin:/bin".utf8))
            .split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false).map(Array.init)
        if let found = Sys.firstExecutable(named: name, in: folders) { return found }
        let text = String(decoding: name, as: UTF8.self)
        throw StowageError(.notFound, operation: .run, path: text, errno: .noSuchEntry, systemCall: "execve",
                           reason: "'\(text)' is not a program in PATH", pathBytes: name)
    }

    /// The error for a step of the child that failed: what is missing, in words.
    func error(for failure: RoomChild.Failure, layer: RoomLayer, command: [[UInt8]]) -> StowageError {
        let errno = Errno(rawValue: failure.errno)
        let folder = failure.folderIndex.flatMap { folders.indices.contains($0) ? folders[$0].path : nil }
        func unsupported(_ reason: String, path: String? = nil) -> StowageError {
            StowageError(.unsupported, operation: .run, path: path, errno: errno, systemCall: failure.stage.systemCall,
                         reason: reason)
        }
        func failed(path: String?) -> StowageError {
            let call = SystemCallError(errno: errno, call: failure.stage.systemCall)
            let reason = StowageError.Code(errno: errno) == .ioFailure ? nil : StowageError.systemCallReason(call)
            return StowageError(call, operation: .run, path: path, reason: reason ?? "\(failure.stage.activity) failed: \(errno)")
        }
        let refused = [Errno.notPermitted, .permissionDenied].contains(errno)
        switch failure.stage {
        case .userNamespace:
            if errno == .notImplemented {
                return unsupported("this kernel has no user namespaces, which an ordinary user needs for a room; run as root")
            }
            return unsupported("this user may not make a user namespace here (refused by kernel.unprivileged_userns_clone, "
                               + "user.max_user_namespaces, or a security policy such as AppArmor's "
                               + "kernel.apparmor_restrict_unprivileged_userns); run as root, or allow unprivileged user namespaces")
        case .mountNamespace where refused:
            return unsupported("making a mount namespace was refused; run as root")
        case .pidNamespace where refused || errno == .invalidArgument:
            return unsupported("making a PID namespace was refused (or this kernel has none); run as root")
        case .mountProc where refused:
            return unsupported(failure.isUserNamespace
                               ? "mounting /proc for the room's PID namespace in a user namespace was refused "
                                   + "(the host's /proc is partly hidden, as in some containers); run as root"
                               : "mounting /proc for the room's PID namespace was refused; run as root")
        case .idMaps:
            return unsupported("the user namespace's id maps could not be written (/proc/self/uid_map)")
        case .mountLayer where errno == .noDevice:
            return unsupported("this kernel has no \(layer.type) file system")
        case .mountLayer where refused:
            return unsupported(failure.isUserNamespace
                               ? "mounting a \(layer.type) in a user namespace was refused; run as root"
                               : "mounting a \(layer.type) was refused; run as root")
        case .mountOverlay where errno == .noDevice:
            return unsupported("this kernel has no overlay file system (load the overlay module: modprobe overlay)")
        case .mountOverlay where refused:
            return unsupported(failure.isUserNamespace
                               ? "overlay mounts in a user namespace were refused (Linux 5.11 or later allows them); run as root"
                               : "mounting an overlay was refused; run as root", path: folder)
        case .mountOverlay where errno == .invalidArgument:
            return unsupported("overlayfs cannot cover this folder (its file system cannot be an overlay's lower layer, "
                               + "or /proc is not mounted)", path: folder)
        case .openFolder, .workingFolder:
            return failed(path: folder ?? Sys.workingDirectory)
        case .execute:
            return StowageError(SystemCallError(errno: errno, call: "execve"), operation: .run,
                                path: command.first.map { String(decoding: $0, as: UTF8.self) },
                                reason: errno == .noSuchEntry ? "no such program" : nil, pathBytes: command.first)
        default:
            return failed(path: folder)
        }
    }
}

extension RoomChild.Stage {
    /// The system call behind the step.
    var systemCall: String {
        switch self {
        case .mountNamespace, .userNamespace, .pidNamespace: "unshare"
        case .idMaps: "write"
        case .privateMounts, .mountLayer, .mountOverlay, .mountProc: "mount"
        case .start: "fork"
        case .openFolder: "open"
        case .layerFolders: "mkdirat"
        case .parentGone: "read"
        case .workingFolder: "chdir"
        case .execute: "execve"
        case .unmount: "umount2"
        case .lift: "mount"
        case .request: "read"
        }
    }

    /// The step in words, for messages.
    var activity: String {
        switch self {
        case .mountNamespace: "making a mount namespace"
        case .userNamespace: "making a user namespace"
        case .idMaps: "writing the user namespace's id maps"
        case .privateMounts: "making the namespace's mounts private"
        case .openFolder: "opening a folder to cover"
        case .mountLayer: "mounting the room's layer"
        case .layerFolders: "making the layer's folders"
        case .mountOverlay: "mounting an overlay"
        case .parentGone: "waiting for the go-ahead"
        case .workingFolder: "entering the working folder in the room"
        case .execute: "running the command"
        case .pidNamespace: "making a PID namespace"
        case .start: "starting the room's init and the command"
        case .mountProc: "mounting the room's /proc"
        case .unmount: "unmounting the room before the next size"
        case .lift: "lifting the room's limit for the check"
        case .request: "reading the next step of the range"
        }
    }
}
