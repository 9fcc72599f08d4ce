/// A mounted file system with its capacity: one row of `df` or `duf`.
///
/// ``VolumeCapacity/mountedVolumes()`` lists them: every file system that holds files, once,
/// whatever the number of places it is mounted at.
public struct MountedVolume: Sendable, Hashable {
    /// What kind of storage a volume is, by its file system type; a struct, so kinds can be added.
    public struct Kind: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The kind's name: `local`, `network` or `memory`.
        public let name: String
        private let rank: Int

        private init(_ name: String, rank: Int) {
            self.name = name
            self.rank = rank
        }

        /// A disk or partition of this machine (ext4, xfs, btrfs, apfs, an overlay, ...).
        public static let local = Kind("local", rank: 0)
        /// A file system served by another machine (NFS, SMB, 9p, Ceph, sshfs, ...).
        public static let network = Kind("network", rank: 1)
        /// A file system in memory (tmpfs, devtmpfs): gone at shutdown, and it fills up as disks do.
        public static let memory = Kind("memory", rank: 2)

        /// The kind of a file system of type `type` (as mountinfo or `statfs` names it).
        public init(fileSystemType type: String) {
            if Self.memoryTypes.contains(type) {
                self = .memory
            } else if Self.networkTypes.contains(type) {
                self = .network
            } else {
                self = .local
            }
        }

        /// Local volumes first, then network ones, then those in memory.
        public static func < (left: Kind, right: Kind) -> Bool { left.rank < right.rank }

        /// The name.
        public var description: String { name }

        static let memoryTypes: Set<String> = ["tmpfs", "devtmpfs", "ramfs"]
        static let networkTypes: Set<String> = [
            "nfs", "nfs4", "cifs", "smb3", "smbfs", "ncpfs", "afs", "9p", "ceph", "glusterfs", "fuse.glusterfs", "lustre",
            "gpfs", "davfs", "webdav", "afpfs", "fuse.sshfs", "sshfs", "fuse.rclone", "fuse.s3fs",
        ]
    }

    /// Where it is mounted (of several places, the first mounted that shows the whole file
    /// system, else the first mounted), as text: U+FFFD for bytes that are not UTF-8 (see
    /// ``mountPointBytes``).
    public var mountPoint: String
    /// Where it is mounted, exactly as the system has it: bytes, which need not be UTF-8 on
    /// Linux (a volume mounted at such a name is measured and listed all the same).
    public var mountPointBytes: [UInt8]
    /// The other places the same file system is mounted (bind mounts), in the order mounted, as
    /// text (U+FFFD for bytes that are not UTF-8: they name places, and are not measured).
    public var otherMountPoints: [String]
    /// What is mounted: a device (`/dev/sda1`), a server's export (`server:/export`), or a name
    /// (`tmpfs`).
    public var source: String
    /// The file system type (`ext4`, `tmpfs`, `nfs4`, `apfs`, ...).
    public var fileSystemType: String
    /// Local, network or memory.
    public var kind: Kind
    /// Its figures, as ``VolumeCapacity/forVolume(containing:)`` gives them for the mount point.
    public var capacity: VolumeCapacity
}

/// What ``VolumeCapacity/mountedVolumes()`` found: the volumes, and the mounts it could not measure.
public struct MountedVolumes: Sendable, Hashable {
    /// Every volume, local ones first, then network ones, then those in memory; by mount point
    /// within each kind.
    public var volumes: [MountedVolume]
    /// Mounts that could not be measured (no permission, a network server that went away), each
    /// with the mount point and the system's error: left out of ``volumes``, never fatal.
    public var issues: [UsageIssue]
}

extension VolumeCapacity {
    /// The file system types ``mountedVolumes()`` never lists: the kernel's views of processes,
    /// devices and settings (`proc`, `sysfs`, `cgroup2`, `devpts`, ...), which hold no files of
    /// anyone's, and read-only images (`squashfs`, `erofs`: snaps and the like, always full).
    public static let pseudoFileSystemTypes: Set<String> = [
        "proc", "sysfs", "cgroup", "cgroup2", "devpts", "debugfs", "tracefs", "securityfs", "pstore", "bpf", "mqueue",
        "configfs", "fusectl", "binfmt_misc", "autofs", "hugetlbfs", "nsfs", "efivarfs", "rpc_pipefs", "selinuxfs",
        "rootfs", "devfs", "squashfs", "erofs",
    ]

    /// Every mounted volume with its capacity, as `df` and `duf` list them, and the mounts that
    /// could not be measured: a ``MountedVolumes`` value (``MountedVolumes/volumes`` and
    /// ``MountedVolumes/issues``), not an array, so that a mount that fails to answer is reported
    /// beside the others instead of failing the whole list.
    ///
    /// The mount table is read through the system (on Linux `/proc/self/mountinfo`, so the
    /// mounts of this process's namespace; on Apple platforms `getmntinfo`), then:
    /// - file systems of a type in ``pseudoFileSystemTypes`` are left out, and so is any with no
    ///   blocks at all (as `df` leaves them out): they hold no one's files;
    /// - a mount hidden by a later mount on the same mount point is left out (only the last can
    ///   be reached);
    /// - bind mounts of one file system (the same device) are one volume, listed at the first
    ///   mount showing the whole file system (else the first mount), the others in
    ///   ``MountedVolume/otherMountPoints``;
    /// - tmpfs and the like are listed, as ``MountedVolume/Kind/memory``: they fill up as disks do;
    /// - a mount that is gone by the time it is measured (unmounted since the table was read: its
    ///   mount point missing, or on another device) is not listed, and is no issue.
    ///
    /// Each volume is measured with `statvfs` at its mount point (figures as
    /// ``forVolume(containing:)``; simulated figures when ``SimulatedCapacity`` is on).
    ///
    /// ```swift
    /// for volume in try VolumeCapacity.mountedVolumes().volumes {
    ///     print(volume.mountPoint, ByteCount(volume.capacity.availableBytes).formatted())
    /// }
    /// ```
    ///
    /// - Throws: ``StowageError`` naming the mount table when it cannot be read (Linux without
    ///   `/proc`); ``StowageError/Code/invalidArgument`` when a simulated-capacity variable is
    ///   malformed. A mount that cannot be measured is an issue in the result, not an error.
    public static func mountedVolumes() throws -> MountedVolumes {
        let entries: [MountTable.Entry]
        do {
            entries = try MountTable.entries()
        } catch let error as SystemCallError {
            throw StowageError(error, operation: .measureCapacity, path: MountTable.description)
        }
        try FaultPoint.mountsRead.reach()
        let simulated = try SimulatedCapacity.current()
        var volumes: [MountedVolume] = []
        var issues: [UsageIssue] = []
        for group in volumeGroups(of: entries) {
            let mount = group[0]
            let statistics: VolumeStatistics
            do {
                statistics = try VolumeStatistics.of(mount: mount)
            } catch Errno.noSuchEntry {
                continue  // unmounted, and its mount point removed, since the table was read
            } catch {
                issues.append(UsageIssue(pathBytes: mount.mountPointPath.bytes, error: error))  // its bytes: pathBase64 where not UTF-8
                continue
            }
            // Unmounted since the table was read, its mount point left: what was measured is the
            // volume below, which is listed on its own.
            guard statistics.device == mount.device else { continue }
            guard statistics.total > 0 else { continue }
            volumes.append(MountedVolume(
                mountPoint: mount.mountPoint, mountPointBytes: mount.mountPointPath.bytes,
                otherMountPoints: group.dropFirst().map(\.mountPoint), source: mount.source,
                fileSystemType: mount.type, kind: MountedVolume.Kind(fileSystemType: mount.type),
                capacity: VolumeCapacity(statistics: statistics, path: mount.mountPoint, reclaimable: 0, simulated: simulated)))
        }
        volumes.sort { ($0.kind, RawPath(bytes: $0.mountPointBytes)) < ($1.kind, RawPath(bytes: $1.mountPointBytes)) }
        return MountedVolumes(volumes: volumes, issues: issues)
    }

    /// The mounts of `entries` that hold files, grouped by device, each group led by the mount
    /// that names the volume (see ``mountedVolumes()``), groups in the order of their first mount.
    static func volumeGroups(of entries: [MountTable.Entry]) -> [[MountTable.Entry]] {
        var reachable: [MountTable.Entry] = []
        var positionOfPoint: [RawPath: Int] = [:]  // by bytes: two names not UTF-8 may read the same as text
        for entry in entries where !pseudoFileSystemTypes.contains(entry.type) {
            if let position = positionOfPoint[entry.mountPointPath] {
                reachable[position] = entry  // mounted over: only the last mount is reachable
            } else {
                positionOfPoint[entry.mountPointPath] = reachable.count
                reachable.append(entry)
            }
        }
        var groups: [[MountTable.Entry]] = []
        var groupOfDevice: [UInt64: Int] = [:]
        for entry in reachable {
            if let index = groupOfDevice[entry.device] {
                groups[index].append(entry)
            } else {
                groupOfDevice[entry.device] = groups.count
                groups.append([entry])
            }
        }
        return groups.map { group in
            let leader = group.firstIndex { $0.root == "/" } ?? 0
            return [group[leader]] + group.enumerated().filter { $0.offset != leader }.map(\.element)
        }
    }
}
