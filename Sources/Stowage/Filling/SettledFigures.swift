import Foundation

/// A volume's figures once they have stopped moving: what a fill aims by, and the available
/// bytes a fill and a release report.
///
/// A file system may count a write or a removal in `statvfs` some time after the call returned.
/// Delayed allocation reserves more than the data needs until the data is written back; ext4
/// returns freed blocks when the transaction that freed them commits; XFS frees a removed
/// file's blocks from a background worker (inode inactivation), a few milliseconds later, and
/// `syncfs` does not wait for it. One reading right after writing or removing was off by up to
/// 228 MB on a 400 MB XFS volume.
///
/// **Settled** means: two readings of the volume's available and free bytes, each taken right
/// after writing the volume back (`syncfs(2)` on Linux; Apple platforms have no `syncfs`, and
/// there it is an `fsync(2)` of the folder measured, never run on Apple hardware: the readings
/// agreeing is what settles), agree exactly, the second taken at least ``firstPause`` after the
/// first. While they differ the next pause doubles (20, 40, 80, 160, 320, 640 ms), so the
/// waiting is bounded: at most ``maximumReadings`` readings and 1.26 s of pauses. Past that
/// bound the last reading is the figure, with ``isSettled`` false: the volume is still moving
/// (another writer), and a fill never claims its goal on such a figure.
///
/// A figure the file system holds back for a file still open is not settled by waiting: XFS
/// reserves blocks past the end of a file that grows by writing (speculative preallocation)
/// until the file is closed or trimmed, so ``FillEngine`` trims its file to its size before it
/// settles.
struct SettledFigures: Equatable {
    /// The last reading.
    var figures: Sys.SpaceFigures
    /// Whether the last two readings agreed.
    var isSettled: Bool
    /// How many readings were taken.
    var readings: Int

    /// The volume's available bytes in the last reading.
    var available: Int64 { figures.available }

    /// The pause between the first two readings; it doubles after every reading that moved.
    static let firstPause: Duration = .milliseconds(20)
    /// The most readings taken: six pauses, 1.26 s in all.
    static let maximumReadings = 7

    /// The pause between two polls of ``measure(reaching:pause:poll:reading:)``.
    static let pollPause: Duration = .milliseconds(5)
    /// The most polls of ``measure(reaching:pause:poll:reading:)``: 2 s of pauses.
    static let maximumPolls = 400

    /// The settled figures of the volume holding the open folder `volume`.
    static func of(_ volume: OpenFile) throws -> SettledFigures {
        try measure(pause: sleep, reading: {
            try volume.syncVolume()
            return try volume.spaceFigures()
        })
    }

    /// The settled figures of the volume holding the open folder `volume`, once it counts at
    /// least `expected` available bytes (what a release or a hold's end gave back), or 2 s
    /// passed (another writer took some of it): then as ``of(_:)``.
    static func of(_ volume: OpenFile, reaching expected: Int64) throws -> SettledFigures {
        try volume.syncVolume()
        return try measure(reaching: expected, pause: sleep, poll: { try volume.spaceFigures() }, reading: {
            try volume.syncVolume()
            return try volume.spaceFigures()
        })
    }

    /// Polls with `poll` (a bare reading), pausing ``pollPause`` between two, until the available
    /// bytes reach `expected` or ``maximumPolls`` polls were taken; then settles as
    /// ``measure(pause:reading:)``.
    ///
    /// Settling alone cannot tell a figure that stays put because nothing is left to count from
    /// one that stays put because the file system has not begun counting yet: XFS frees a removed
    /// file's blocks from a background worker, which a loaded machine may run later than the
    /// first two readings (seen as a release reporting less than it gave back). The figure a
    /// removal must reach settles that.
    static func measure(reaching expected: Int64, pause: (Duration) -> Void, poll: () throws -> Sys.SpaceFigures,
                        reading: () throws -> Sys.SpaceFigures) throws -> SettledFigures {
        var polls = 1
        while try poll().available < expected, polls < maximumPolls {
            pause(pollPause)
            polls += 1
        }
        return try measure(pause: pause, reading: reading)
    }

    private static func sleep(_ duration: Duration) {
        let parts = duration.components
        Thread.sleep(forTimeInterval: Double(parts.seconds) + Double(parts.attoseconds) / 1e18)
    }

    /// Takes readings with `reading` (which writes the volume back, then measures it), pausing
    /// with `pause` between two, until two agree or ``maximumReadings`` were taken.
    static func measure(pause: (Duration) -> Void, reading: () throws -> Sys.SpaceFigures) throws -> SettledFigures {
        var last = try reading()
        var wait = firstPause
        for count in 2...maximumReadings {
            pause(wait)
            let next = try reading()
            if next.available == last.available && next.free == last.free {
                return SettledFigures(figures: next, isSettled: true, readings: count)
            }
            last = next
            wait *= 2
        }
        return SettledFigures(figures: last, isSettled: false, readings: maximumReadings)
    }
}
