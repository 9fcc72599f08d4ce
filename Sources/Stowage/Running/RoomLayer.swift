import Foundation

/// A room's writable layer: the file system the child mounts (a tmpfs, or ext4 in an unnamed
/// image on a loop device), and, once mounted, the private adjustments that make `statvfs`
/// inside report the room exactly.
///
/// The layer's root holds `upper/<n>` and `work/<n>` for the overlay of folder `n`, and, out of
/// the command's sight, the fill folder (``FillFolder/name``) that takes what is above the room
/// (ext4's slack, a drop) and `.stowage-inodes`, whose empty files take the inodes above an
/// inode limit.
final class RoomLayer {
    /// The name of the folder whose empty files take the inodes above the limit.
    static let inodeFolderName = ".stowage-inodes"

    let fileSystem: RoomPlan.FileSystem
    /// What the child mounts: `mount(source, folder, type, 0, options)`.
    let type: String
    let source: String
    let options: String?
    /// The room, in bytes, and the inodes to leave, if limited.
    let availableBytes: Int64
    let availableInodes: Int64?
    /// The loop device holding the ext4 image, open until the child has mounted it (closing it
    /// earlier would detach it: ``Sys/attachLoopDevice(_:)`` sets `LO_FLAGS_AUTOCLEAR`).
    private var loopDevice: OpenFile?

    private init(fileSystem: RoomPlan.FileSystem, type: String, source: String, options: String?,
                 availableBytes: Int64, availableInodes: Int64?, loopDevice: OpenFile?) {
        self.fileSystem = fileSystem
        self.type = type
        self.source = source
        self.options = options
        self.availableBytes = availableBytes
        self.availableInodes = availableInodes
        self.loopDevice = loopDevice
    }

    /// Inodes the layer needs besides the command's: its root, `upper`, `work`, the overlays'
    /// folders (about 4 each), the fill folder and its files, the inode folder.
    static func inodeMargin(folderCount: Int) -> Int64 { 32 + 4 * Int64(folderCount) }

    /// Prepares the layer for a room of `availableBytes` over `folderCount` folders.
    ///
    /// - Throws: ``StowageError/Code/unsupported`` for ext4 without root or without
    ///   `mkfs.ext4`; ``StowageError/Code/noSpace`` when the temporary folder cannot hold the
    ///   ext4 image.
    static func prepare(_ fileSystem: RoomPlan.FileSystem, availableBytes: Int64, availableInodes: Int64?,
                        folderCount: Int) throws -> RoomLayer {
        let margin = inodeMargin(folderCount: folderCount)
        if fileSystem == .ext4 {
            return try prepareExt4(availableBytes: availableBytes, availableInodes: availableInodes, margin: margin)
        }
        // A tmpfs of the room rounded up to a page (its size unit), at least one page: size=0
        // would mean no limit. The page above a room of 0 is taken by the fill once mounted.
        let page = Sys.pageSize
        let size = max(page, (availableBytes + page - 1) / page * page)
        var options = "size=\(size),mode=0700"
        if let availableInodes { options += ",nr_inodes=\(availableInodes + margin)" }
        return RoomLayer(fileSystem: fileSystem, type: "tmpfs", source: "stowage-room", options: options,
                         availableBytes: availableBytes, availableInodes: availableInodes, loopDevice: nil)
    }

    /// An ext4 image big enough for the room and ext4's own metadata (journal, inode tables,
    /// group descriptors: about 1/8 of the room and 64 MiB at most sizes), as an unnamed file
    /// in the temporary folder, reserved whole (so the host cannot run out under the layer),
    /// on a loop device that detaches itself, made into ext4 without reserved blocks.
    private static func prepareExt4(availableBytes: Int64, availableInodes: Int64?, margin: Int64) throws -> RoomLayer {
        guard Sys.effectiveUserID == 0 else {
            throw StowageError(.unsupported, operation: .run,
                               reason: "an ext4 layer needs root: loop devices and ext4 cannot be mounted by an ordinary user, "
                                   + "not even in a user namespace; use the tmpfs layer")
        }
        guard let mkfs = ExternalTool.find("mkfs.ext4") else {
            throw StowageError(.unsupported, operation: .run,
                               reason: "an ext4 layer needs mkfs.ext4 (the e2fsprogs package), which is not installed")
        }
        let mebibyte: Int64 = 1 << 20
        let inodeBytes = (availableInodes ?? 0) * 256
        let wanted = availableBytes + availableBytes / 8 + 64 * mebibyte + inodeBytes
        let imageSize = (wanted + mebibyte - 1) / mebibyte * mebibyte
        let temporary = Container.temporaryBase(environment: try ProcessEnvironment.values(of: ["TMPDIR"]))
        let image: OpenFile
        do {
            let folder = try OpenFile.openFolder(atPath: temporary, followingLinks: true)
            image = OpenFile(adopting: try Sys.openUnnamedFile(in: folder.descriptor))
        } catch Errno.unnamedFilesUnsupported {
            throw StowageError(.unsupported, operation: .run, path: temporary,
                               reason: "the ext4 layer's image is an unnamed file (O_TMPFILE), which this file system cannot make; "
                                   + "set TMPDIR to a folder on ext4, xfs, btrfs or tmpfs")
        } catch let error as SystemCallError {
            throw StowageError(error, operation: .run, path: temporary)
        }
        do {
            try Sys.allocate(image.descriptor, offset: 0, length: imageSize)
        } catch Errno.noSpace {
            let available = (try? image.spaceFigures().available) ?? 0
            throw StowageError(.noSpace, operation: .run, path: temporary,
                               reason: "the ext4 layer's image needs \(ByteCount(imageSize)) in the temporary folder",
                               neededBytes: imageSize, availableBytes: available)
        } catch let error as SystemCallError {
            throw StowageError(error, operation: .run, path: temporary)
        }
        let loop: (device: OpenFile, path: String)
        do {
            loop = try Sys.attachLoopDevice(image.descriptor)
        } catch let error as SystemCallError {
            throw StowageError(.unsupported, operation: .run, path: "/dev/loop-control", errno: error.errno, systemCall: error.call,
                               reason: "no loop device could be attached for the ext4 layer (\(error.errno))")
        }
        var arguments = ["-q", "-F", "-b", "4096", "-m", "0", "-E", "nodiscard,lazy_itable_init=1,lazy_journal_init=1"]
        if let availableInodes { arguments += ["-N", "\(availableInodes + margin)"] }
        let result: (status: Int32, errorOutput: String)
        do {
            result = try mkfs.run(arguments + [loop.path])
        } catch {
            throw StowageError(.ioFailure, operation: .run, path: mkfs.path, underlying: error,
                               reason: "mkfs.ext4 could not be started")
        }
        guard result.status == 0 else {
            throw StowageError(.ioFailure, operation: .run, path: loop.path,
                               reason: "mkfs.ext4 failed with status \(result.status): \(result.errorOutput)")
        }
        return RoomLayer(fileSystem: .ext4, type: "ext4", source: loop.path, options: nil,
                         availableBytes: availableBytes, availableInodes: availableInodes, loopDevice: loop.device)
    }

    /// Lets go of the loop device once the child has mounted it: from now on the mount alone
    /// holds it, and the device detaches itself when the mount goes.
    func mounted() {
        loopDevice = nil
    }

    /// Brings the mounted layer, whose root is `root`, to the room: fills what is above the room
    /// (ext4's slack, the page above a room of 0 bytes) with ``Filler``, then takes the inodes
    /// above the limit with empty files. Both out of the command's sight.
    ///
    /// On ext4 a folder takes a block, and a long one more: the inode folder is made before the
    /// fill, and whatever its files took of the room after it is given back from the fill.
    ///
    /// - Returns: The layer's figures afterwards.
    /// - Throws: ``StowageError/Code/noSpace`` when the layer could not hold the room (never
    ///   expected: the layer is sized for it).
    func size(root: OpenFile) throws -> Sys.SpaceFigures {
        let volume = Self.url(of: root)
        do {
            if fileSystem == .tmpfs, let figures = try exactWithoutFill(root: root) { return figures }
            if availableInodes != nil { try root.createFolder(Self.inodeFolderName, mode: .ownerOnlyFolder) }
            try Filler(plan: FillPlan(volume: volume, goal: .leaving(availableBytes))).fill()
            if let availableInodes { try takeInodes(above: availableInodes, root: root) }
            var figures = try root.spaceFigures()
            let target = (availableBytes + figures.blockSize - 1) / figures.blockSize * figures.blockSize
            let fill = FillFolder(in: volume)
            if figures.available < target, try fill.status() != nil {
                try fill.release(bytes: target - figures.available)
                figures = try root.spaceFigures()
            }
            guard figures.available >= target, figures.available <= target + figures.blockSize else {
                throw StowageError(.noSpace, operation: .run,
                                   reason: "the \(fileSystem) layer holds \(ByteCount(figures.available)), not the room asked for",
                                   neededBytes: target, availableBytes: figures.available)
            }
            return figures
        } catch let error as SystemCallError {
            throw StowageError(error, operation: .run, path: "the room's layer")
        }
    }

    /// A fresh tmpfs layer is the room already when the room is at least a page (its size
    /// unit): its folders take no blocks, so nothing needs filling, nor the fill's settling (a
    /// wait, for file systems that free blocks late). The inodes above a limit are taken as
    /// ever. Returns `nil` where the figures say otherwise (a room of 0, which is a page above).
    private func exactWithoutFill(root: OpenFile) throws -> Sys.SpaceFigures? {
        let figures = try root.spaceFigures()
        let target = (availableBytes + figures.blockSize - 1) / figures.blockSize * figures.blockSize
        guard figures.available == target else { return nil }
        guard let availableInodes else { return figures }
        try root.createFolder(Self.inodeFolderName, mode: .ownerOnlyFolder)
        try takeInodes(above: availableInodes, root: root)
        let after = try root.spaceFigures()
        guard after.available == target else {
            throw StowageError(.noSpace, operation: .run,
                               reason: "the \(fileSystem) layer holds \(ByteCount(after.available)), not the room asked for",
                               neededBytes: target, availableBytes: after.available)
        }
        return after
    }

    /// Fills the mounted layer privately until `available` bytes remain: a drop.
    static func drop(root: OpenFile, to available: Int64) throws -> FillReport {
        try Filler(plan: FillPlan(volume: url(of: root), goal: .leaving(available))).fill()
    }

    /// Creates empty files in ``inodeFolderName`` (made already) until `count` inodes remain
    /// available.
    private func takeInodes(above count: Int64, root: OpenFile) throws {
        let folder = try root.openFolder(Self.inodeFolderName)
        var next = 0
        while true {
            let free = try root.spaceFigures().availableInodes
            if free == count { return }
            guard free > count else {
                throw StowageError(.noSpace, operation: .run,
                                   reason: "the \(fileSystem) layer has \(free) inodes left, fewer than the \(count) asked for")
            }
            for _ in 0..<(free - count) {
                try folder.open(String(next), flags: Sys.writeCreateExclusive, mode: .ownerOnlyFile).close()
                next += 1
            }
        }
    }

    /// The layer's root as a path this process can use: its descriptor in `/proc/self/fd`.
    static func url(of root: OpenFile) -> URL {
        URL(filePath: "/proc/self/fd/\(root.descriptor)", directoryHint: .isDirectory)
    }
}
