import Dispatch
import Foundation

/// The one removal walk: every operation that deletes (``Sweeper``, pressure relief, `clear`,
/// ``Store/remove(_:from:)``, ``DiskCache`` limits, removals and ``DiskCache/removeAll()``)
/// chooses its victims here and removes them here, under one safety policy (a fill's release
/// chooses its files from its manifest, and removes them here). It is made only by ``Removal``,
/// the entry point every caller goes through:
///
/// - the root is opened by the caller without following a link (see ``Container``'s folders);
///   below it nothing is reached through a link, and no other mount is entered (a bind mount
///   included); each mount point met is reported and left alone;
/// - names are bytes (``RawPath``) from `readdir` to `unlinkat`, so every name can be removed;
/// - pins are honoured on files and on folders (a pinned folder, and all under it, is left);
/// - Stowage's in-flight items (temporary files of atomic writes, append journals) younger than
///   the grace period are never removed, but a held temporary file whose writer is gone (its
///   `flock` free: see ``TemporaryItem/heldPrefix``); its records are never removed by a sweep;
/// - each victim is re-checked (device, inode, modification time) just before its `unlinkat`;
/// - only folders the operation itself emptied are removed (`clear` also removes the empty
///   folders it was asked to clear);
/// - nothing is written before space is freed (``Sweeper`` writes its record afterwards, and a
///   failure to write it is an issue in the report, not a failure).
///
/// Selection is two walks, through file descriptors: the first totals the files (only for size
/// and count limits, and not when the caller knows the totals), the second offers each to a
/// ``VictimHeap`` that keeps only the files that must go; the pins of those are read then, and
/// only when some of them are pinned is the second walk made once more, reading as it goes the
/// pins of the files it keeps. Memory grows with the victims and the number of folders, never
/// with all the files.
///
/// `@unchecked Sendable`: only ``remove(_:)`` runs threads, and they read nothing but the
/// immutable root; what they find goes into their own outcomes, merged after they finish.
final class SweepEngine: @unchecked Sendable {
    /// What the operation is for: its selection rule.
    enum Goal {
        /// Keep the policy's limits.
        case limits
        /// Free at least this many allocated bytes (pressure relief), from what the relief rule
        /// allows: any file, or only files marked purgeable (locations never purged otherwise).
        case free(Int64, purgeableOnly: Bool)
        /// Remove everything: of a location or cache (`clear`, ``DiskCache/removeAll()``: pins,
        /// Stowage's records and writes in progress stay), or of a tree named for removal
        /// (``Store/remove(_:from:)``, Stowage's own staging folders: all of it goes).
        case everything(Scope)
    }

    /// What "everything" takes.
    enum Scope {
        /// A location's or a cache's contents: pins honoured; Stowage's records, append journals,
        /// a `CACHEDIR.TAG` in the root and writes in progress kept.
        case contents
        /// A whole tree named for removal: every entry, pins not honoured.
        case wholeTree
        /// One entry directly in the root, named by a person (the usage browser's delete), and
        /// everything in it, by the rules of `contents`: the root's other entries are not looked at.
        case entry(RawPath)
    }

    struct Candidate {
        var path: RawPath
        var folder: RawPath
        var kind: FileStatus.Kind
        var device: UInt64
        var inode: UInt64
        var linkCount: UInt64
        var logical: Int64
        var allocated: Int64
        var access: Double
        var modification: Double
        var reason: SweepReason
        /// Whether removing it frees its blocks: not for a hard link whose data another name,
        /// not removed, keeps (set by ``SweepEngine/select()``).
        var freesSpace = true

        var freedAllocated: Int64 { freesSpace ? allocated : 0 }
        var freedLogical: Int64 { freesSpace ? logical : 0 }
    }

    struct Selection {
        var victims: [Candidate]
        var keptFiles: Int
        var keptAllocated: Int64
        var pinned: Int
    }

    let rootPath: String
    let root: OpenFile
    let policy: SweepPolicy
    let goal: Goal
    let now: Double
    /// The totals of the files a limits walk would count, when the caller knows them exactly (a
    /// ``DiskCache``'s index): the walk that totals them is then left out.
    let knownTotals: (files: Int, allocatedBytes: Int64)?
    /// A file counted but never chosen by the size or count limits (see ``Removal/Selection/limits(_:measured:sparing:)``).
    let spared: RawPath?
    var issues: [UsageIssue] = []
    /// Entries per folder, to predict which folders the operation empties.
    var entriesPerFolder: [RawPath: Int] = [:]

    init(rootPath: String, root: OpenFile, policy: SweepPolicy, goal: Goal, now: Date,
         knownTotals: (files: Int, allocatedBytes: Int64)? = nil, spared: RawPath? = nil) {
        self.rootPath = rootPath
        self.root = root
        self.policy = policy
        self.goal = goal
        self.now = now.timeIntervalSince1970
        self.knownTotals = knownTotals
        self.spared = spared
    }

    var removesEverything: Bool {
        if case .everything = goal { return true }
        return false
    }

    private var removesWholeTree: Bool {
        if case .everything(.wholeTree) = goal { return true }
        return false
    }

    /// Whether the last ``remove(_:progress:shouldStop:)`` was stopped before trying every victim.
    var stoppedEarly = false

    /// Folders met (their inodes), so that only the very folder predicted empty is removed.
    var folderInodes: [RawPath: UInt64] = [:]

    /// Whether `entry` is protected by a pin. A marker that cannot be read (no permission to
    /// read the file's attributes) counts as a pin: the entry is kept and reported, and the
    /// walk goes on with the rest of its folder.
    func isPinned(_ entry: FileTreeWalk.Entry) -> Bool {
        guard !removesWholeTree else { return false }
        do {
            return try entry.carries(.pinned)
        } catch {
            return pinUnreadable(entry.path, error)
        }
    }

    /// Notes that the pin of the file at `path` could not be read, and answers that it counts as one.
    private func pinUnreadable(_ path: RawPath, _ error: any Error) -> Bool {
        issues.append(UsageIssue(pathBytes: absolutePath(path), errno: (error as? SystemCallError)?.errno,
                                 message: "its pin could not be read (\(UsageIssue(path: "", error: error).message)); kept"))
        return true
    }

    /// Whether the file `victim`, chosen by a walk that read no pin for it, is pinned: read by its
    /// absolute path as the walk reads pins, or through its folder, opened again, when the path
    /// does not lead to it. As for entries, a marker that cannot be read counts as a pin.
    func isPinned(_ victim: Candidate) -> Bool {
        let name = victim.path.parentAndName.name
        do {
            if rootPath.hasBytePrefix("/"), let answer = FileTreeWalk.carries(.pinned, at: victim.path, below: RawPath(rootPath)) {
                return answer
            }
            let folder = try open(folder: victim.folder)
            return try ExtendedAttributes.has(Marker.pinned.attribute, value: Marker.setValue, entry: name, inFolder: folder.descriptor)
        } catch Errno.noSuchEntry {
            return false  // gone with its folder since the walk: nothing to keep, and its removal passes over it
        } catch {
            return pinUnreadable(victim.path, error)
        }
    }

    /// The root's mount, read once (``rootMount()``): every folder the removal opens again is
    /// checked against it, from several threads.
    private var rootMountRead: MountIdentity?
    private let rootMountLock = NSLock()

    /// The mount of the root, read at the first call (the root stays open, so it cannot change).
    func rootMount() throws -> MountIdentity {
        try rootMountLock.withLock {
            if let rootMountRead { return rootMountRead }
            let identity = try root.mountIdentity()
            rootMountRead = identity
            return identity
        }
    }

    /// Whether the root, or a folder above it, is pinned: read once, by ``rootIsUnderPin()``.
    private var rootPin: Bool?

    /// Whether the root folder itself, or a folder above it on the root's mount, is pinned. A
    /// pin protects everything under it, wherever a walk starts: a sweep of `pinned/sub` once
    /// removed what `pinned/` protects, since pins were looked for only from the root down.
    ///
    /// Climbs by descriptors (`..` of the folder open, never a path rebuilt from text), reading
    /// each folder's marker, up to the top of the root's mount (a folder above it on another
    /// mount is another file system's business) or `/`. A folder above that this user may pass
    /// through but not open (a 0711 folder of someone else's) has its marker read by name; as for
    /// entries, a marker that cannot be read counts as a pin: an issue says which, and nothing is
    /// removed. A folder a policy hides (`EPERM`: an app sandbox's container folders) ends the
    /// climb. Read once per engine.
    private func rootIsUnderPin() -> Bool {
        if let rootPin { return rootPin }
        let answer = climbForPin()
        rootPin = answer
        return answer
    }

    private func climbForPin() -> Bool {
        var folder = root
        var path = rootPath
        do {
            var mount = try root.mountIdentity()
            for _ in 0..<4096 {  // deeper than any path can be (PATH_MAX / 2)
                do {
                    if try ExtendedAttributes.value(Marker.pinned.attribute, of: folder.descriptor) == Marker.setValue { return true }
                } catch Errno.attributesUnsupported {
                    // No attributes on this file system: nothing here is pinned.
                }
                let status = try folder.status()
                let parent: OpenFile
                do {
                    parent = try folder.openFolder(RawPath(".."))
                } catch Errno.permissionDenied {
                    // A folder above that this user may pass through but not read (a 0711 folder
                    // of another user's): its pin is asked for by name, without opening it, and
                    // one that cannot be read counts as a pin.
                    return pinOfUnreadableParent(of: folder, path: path)
                } catch Errno.notPermitted {
                    // Not the permission bits but a policy (an app sandbox's container folders):
                    // what is above is not this process's to see. The climb ends here.
                    return false
                }
                let parentStatus = try parent.status()
                let isSlash = parentStatus.inode == status.inode && parentStatus.device == status.device
                if try isSlash || !parent.mountIdentity().isSameMount(as: mount) {
                    // The top of the root's mount. When it is a bind mount of a sub-folder, the
                    // folders above that sub-folder are seen through another mount of its file
                    // system, where the climb goes on.
                    guard let (view, viewPath) = fullerView(of: folder, status: status, mount: mount) else { return false }
                    (folder, path, mount) = (view, viewPath, try view.mountIdentity())
                    continue
                }
                folder = parent
                path = URL(filePath: path).deletingLastPathComponent().fileSystemPath
            }
            return false
        } catch {
            issues.append(UsageIssue(path: path, errno: (error as? SystemCallError)?.errno,
                                     message: "a pin on it or a folder above it could not be read "
                                        + "(\(UsageIssue(path: "", error: error).message)); nothing below it removed"))
            return true
        }
    }

    /// The folder `folder`, the top of a bind mount of a sub-folder, as another mount of its file
    /// system shows it (see ``MountTable/fullerViews(ofMount:)``), with its path there: opened
    /// by that path and accepted only if it is the very folder (same device and inode). Best
    /// effort: `nil` when no other mount shows it, or none of the paths leads to it.
    private func fullerView(of folder: OpenFile, status: FileStatus, mount: MountIdentity) -> (OpenFile, String)? {
        guard let mountID = mount.mountID else { return nil }
        for path in MountTable.fullerViews(ofMount: mountID) {
            guard let view = try? OpenFile.openFolder(atPath: path, followingLinks: false), let seen = try? view.status(),
                  seen.device == status.device, seen.inode == status.inode,
                  let identity = try? view.mountIdentity(), identity.mountID != mountID else { continue }
            return (view, path)
        }
        return nil
    }

    /// Whether the folder above `folder` (at `path`), which this user may not open, is pinned:
    /// its marker read by name (`getxattr` through `/proc/self/fd`, which needs no descriptor of
    /// it). A marker that cannot be read (`user.` attributes need read permission) counts as a pin,
    /// reported as an issue naming that folder. A readable marker that is not set ends the climb:
    /// nothing above a folder that cannot be opened can be seen.
    private func pinOfUnreadableParent(of folder: OpenFile, path: String) -> Bool {
        let parentPath = URL(filePath: path).deletingLastPathComponent().fileSystemPath
        do {
            return try ExtendedAttributes.value(Marker.pinned.attribute, entry: "..", inFolder: folder.descriptor) == Marker.setValue
        } catch {
            issues.append(UsageIssue(path: parentPath, errno: (error as? SystemCallError)?.errno,
                                     message: "its pin could not be read (\(UsageIssue(path: "", error: error).message)); "
                                        + "counted as a pin: nothing below it removed"))
            return true
        }
    }

    /// Told the files examined or removed so far and their allocated bytes, on the thread
    /// doing the work (several threads while removing, one call at a time is the caller's
    /// business); returns `false` to stop the work.
    typealias Progress = (_ files: Int, _ allocatedBytes: Int64) -> Bool

    // MARK: The walk

    /// Whether `entry` is a held temporary file (``TemporaryItem/heldPrefix``) whose writer is
    /// gone: its exclusive lock can be taken (a living writer takes it before its first byte and
    /// keeps it until the file is renamed into place or removed). An empty one may be a moment
    /// old, not locked yet, and waits for the grace period; so does anything that cannot be
    /// opened or locked.
    static func writerIsGone(_ entry: FileTreeWalk.Entry) -> Bool {
        entry.status.kind == .file && writerIsGone(entry.name, in: entry.parentDescriptor)
    }

    /// ``writerIsGone(_:)`` of the entry `name` of the folder open as `parent`: looked at
    /// through the descriptor the probe opens (a file, not empty, its lock free).
    static func writerIsGone(_ name: RawPath, in parent: Int32) -> Bool {
        guard name.hasPrefix(TemporaryItem.heldPrefix),
              let descriptor = try? Sys.openat(parent, name, Sys.readOnly | Sys.noFollow | Sys.nonBlocking | Sys.noControllingTerminal)
        else { return false }
        let file = OpenFile(adopting: descriptor)
        guard let status = try? file.status(), status.kind == .file, status.size > 0 else { return false }
        return (try? file.tryLock(exclusive: true)) ?? false  // released when `file` closes
    }

    enum EntryKind { case ordinary, leftover, pinnedFolder }

    /// Calls `body` for every entry the goal may consider, with its kind: files (and, when
    /// removing everything, links and other non-folders) as `ordinary`; Stowage's leftover
    /// temporary items older than the grace period as `leftover` (files or folders); pinned
    /// folders (not entered) as `pinnedFolder`. Never offered, except for a whole tree named for
    /// removal: Stowage's other items (records, journals, fill folders), young temporary items,
    /// `CACHEDIR.TAG` files (but for clearing, nested ones). Links (except when removing
    /// everything) and other mounts are never offered. With `recording` set (the selecting walk,
    /// which every operation makes), the entries of each folder and the folders not entered are
    /// recorded, so each is reported once.
    func walk(recording: Bool, _ body: (FileTreeWalk.Entry, EntryKind) throws -> Void) throws {
        let everything = removesEverything
        let wholeTree = removesWholeTree
        let underPin = !wholeTree && rootIsUnderPin()
        var onlyEntry: RawPath?
        if case .everything(.entry(let name)) = goal { onlyEntry = name }
        try FileTreeWalk(root: root, rootPath: rootPath).run({ entry in
            if let onlyEntry, entry.folder.isEmpty, entry.name != onlyEntry { return false }
            if underPin {
                // The whole walk is below a pin: every entry is kept, and counted as pinned.
                if !entry.name.hasPrefix(RelativePath.reservedPrefix) { try body(entry, .pinnedFolder) }
                return false
            }
            if !wholeTree {
                // The folder where a cache's sets stage their bytes is walked as any folder, so
                // that what killed writers left in it is reclaimed.
                if entry.name.hasPrefix(RelativePath.reservedPrefix)
                    && !(entry.status.kind == .folder && entry.name.equals(TemporaryItem.stagingFolder)) {
                    if entry.name.hasPrefix(TemporaryItem.prefix),
                       now - entry.status.modificationTime >= policy.leftoverMinimumAgeSeconds || Self.writerIsGone(entry) {
                        try body(entry, .leftover)
                    }
                    return false
                }
                if entry.name.equals(CacheDirectoryTag.name) && !(everything && !entry.folder.isEmpty) { return false }
            }
            switch entry.status.kind {
            case .folder:
                if recording { self.folderInodes[entry.path] = entry.status.inode }
                if isPinned(entry) {
                    try body(entry, .pinnedFolder)
                    return false
                }
                return true
            case .file:
                try body(entry, .ordinary)
            case .symbolicLink, .other:
                if everything { try body(entry, .ordinary) }  // the link itself; never followed
            }
            return false
        }, folderDone: { folder, entries in
            if recording { self.entriesPerFolder[folder] = entries }
        }, problem: { folder, problem in
            if recording { self.issues.append(UsageIssue(pathBytes: self.absolutePath(folder), problem: problem)) }
        })
    }

}
