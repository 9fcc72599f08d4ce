import ArgumentParser
import Foundation
import Stowage

struct InfoCommand: ParsableCommand, StowageSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show how much room the volume holding a path has.",
        discussion: """
            Total, used, available, available for important usage (available plus what the \
            container could reclaim from its caches and tmp) and for opportunistic usage \
            (available minus a headroom of min(15%, 4 GiB)). Without PATH, the volume of the \
            container's Documents. STOWAGE_SIMULATED_AVAILABLE and STOWAGE_SIMULATED_TOTAL \
            (sizes such as 200MB) simulate the figures. With --all, every mounted volume in a \
            table, as df and duf list them: local, network and in-memory (tmpfs) volumes; the \
            kernel's pseudo file systems (proc, sysfs, cgroup, ...) and read-only images \
            (squashfs) left out; a file system mounted at several places (bind mounts) once.
            """
    )

    @ParentCommand var parent: StowageCommand

    @Argument(help: "Any path on the volume (default: the container's Documents).", completion: .file(),
              transform: PathArgument.init(parsing:))
    var path: PathArgument?

    @Flag(help: "Every mounted volume, as df and duf list them (pseudo file systems left out, bind mounts once).")
    var all = false

    @OptionGroup var container: ContainerOptions
    @OptionGroup var units: UnitOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        try refuseRootOptionsNotTaken()
        if all && path != nil { throw ValidationError("Give a PATH or --all, not both.") }
        try container.refuse(beside: all ? "--all" : path != nil ? "a PATH" : nil, standingFor: all ? "one container's volume" : "the container's Documents")
    }

    mutating func run() throws {
        if all {
            let style = units.style
            return try output.run {
                let mounted = try VolumeCapacity.mountedVolumes()
                for issue in mounted.issues { Terminal.standardError.problem(issue) }
                let width = Terminal.standardOutputIsTerminal ? Terminal.standardOutputColumns : nil
                // As `df`: the volumes that could be measured, then a failure status if any could not.
                return Rendered(json: mounted.volumes.map(MountedVolumeJSON.init),
                                exitStatus: mounted.issues.isEmpty ? ExitStatus.success : ExitStatus.failure) {
                    MountedVolumesView(volumes: mounted.volumes, style: style, width: width).render()
                }
            }
        }
        try output.run {
            let capacity: VolumeCapacity
            if let path {
                capacity = try VolumeCapacity.forVolume(containing: path.url())
            } else {
                capacity = try self.container.resolve().capacity(of: .documents)
            }
            let style = units.style
            return Rendered(json: capacity) { CapacityView(capacity: capacity, style: style).render() }
        }
    }
}

/// `--si` (decimal, the default) or `--iec` (binary) units.
struct UnitOptions: ParsableArguments {
    /// `CustomStringConvertible`: swift-argument-parser names each case with `String(describing:)`
    /// at every start, which for a type without it asks the runtime four times which printing
    /// protocols the type conforms to, each question a scan of the binary's 6,195 conformance
    /// records.
    enum Units: String, EnumerableFlag, CustomStringConvertible {
        case si, iec

        var description: String { rawValue }

        static func help(for value: Units) -> ArgumentHelp? {
            switch value {
            case .si: "Decimal units: kB, MB, GB = 1000^n (the default, as df -H)."
            case .iec: "Binary units: KiB, MiB, GiB = 1024^n (as df -h)."
            }
        }
    }

    @Flag var units: Units = .si

    var style: ByteCountStyle { units == .si ? .decimal : .binary }
}

/// The capacity figures for people: a usage bar and aligned figures.
struct CapacityView {
    var capacity: VolumeCapacity
    var style: ByteCountStyle

    func render() -> String {
        func size(_ bytes: Int64) -> String { ByteCount(bytes).formatted(style) }
        var volume = "Volume of \(DisplayPath.escaped(capacity.path))"
        if let mountPoint = capacity.mountPoint {
            volume += ": mounted at \(DisplayPath.escaped(mountPoint))"
            if let type = capacity.fileSystemType { volume += " (\(DisplayPath.escaped(type)))" }
        }
        var lines = [volume]
        if capacity.isSimulated {
            lines.append("SIMULATED figures (\(SimulatedCapacity.availableVariable) or the SimulatedCapacity API)")
        }
        let (fraction, percent) = Self.usedShare(of: capacity)
        lines.append(Bar.render(fraction: fraction, width: 40) + "  \(percent)% used")
        lines.append("")
        let headroom = VolumeCapacity.headroom(forTotal: capacity.totalBytes)
        let rows: [(String, Int64, String)] = [
            ("Total", capacity.totalBytes, ""),
            ("Used", capacity.usedBytes, ""),
            ("Available", capacity.availableBytes, ""),
            ("Important", capacity.availableForImportantUsageBytes,
             "available + \(size(capacity.reclaimableBytes)) that relief could free"),
            ("Opportunistic", capacity.availableForOpportunisticUsageBytes, "available - \(size(headroom)) headroom"),
            ("Free", capacity.freeBytes, "including blocks reserved for root"),
        ]
        let width = rows.map { size($0.1).count }.max() ?? 0
        for (label, bytes, note) in rows {
            let figure = String(repeating: " ", count: width - size(bytes).count) + size(bytes)
            let line = label.padding(toLength: 14, withPad: " ", startingAt: 0) + figure + (note.isEmpty ? "" : "   " + note)
            lines.append(line)
        }
        lines.append("Block size".padding(toLength: 14, withPad: " ", startingAt: 0) + "\(capacity.blockSizeBytes) B")
        if let total = capacity.totalInodeCount, let available = capacity.availableInodeCount {
            // Running out of file nodes is "no space left on device" too, whatever the bytes say.
            lines.append("Inodes".padding(toLength: 14, withPad: " ", startingAt: 0)
                + "\(available) available of \(total)"
                + (available < total / 100 ? "   fewer than 1% left: new files will fail" : ""))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The share of the volume in use as `df` computes "Use%": of the space a user can have
    /// (used + available), so the blocks reserved for root do not make a full volume look 95%
    /// used; the percentage rounded up, as `df` rounds.
    static func usedShare(of capacity: VolumeCapacity) -> (fraction: Double, percent: Int64) {
        var (used, available) = (max(0, capacity.usedBytes), max(0, capacity.availableBytes))
        // Simulated figures reach 8 EiB: halved, their sum fits, and no percentage changes.
        if used.addingReportingOverflow(available).overflow { (used, available) = (used / 2, available / 2) }
        let usable = used + available
        guard usable > 0 else { return (0, 0) }
        return (Double(used) / Double(usable), percentRoundedUp(used, of: usable))
    }

    /// `part` as a percentage of `whole` (more than 0, and at least `part`), rounded up as `df`
    /// rounds Use%, without overflow for any `Int64`.
    static func percentRoundedUp(_ part: Int64, of whole: Int64) -> Int64 {
        let (quotient, remainder) = whole.dividingFullWidth(part.multipliedFullWidth(by: 100))
        return quotient + (remainder > 0 ? 1 : 0)
    }
}

/// Proportional bars drawn with block characters (or others: the progress line's are ASCII).
enum Bar {
    static func render(fraction: Double, width: Int, filled mark: Character = "█", empty: Character = "░",
                       rounding: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> String {
        let clamped = min(1, max(0, fraction.isFinite ? fraction : 0))
        let filled = Int((clamped * Double(width)).rounded(rounding))
        return "[" + String(repeating: mark, count: filled) + String(repeating: empty, count: width - filled) + "]"
    }
}
