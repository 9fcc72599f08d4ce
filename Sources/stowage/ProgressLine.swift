import Foundation
import Stowage

/// What a long-running command is doing, as its progress line shows it.
struct ProgressStatus: Sendable {
    /// What it is doing: `Scanning`, `Removing`, `Filling`, ...
    var activity: String
    /// What it is doing it to: a folder, a location (escaped when drawn; cut first when the line is too wide).
    var subject: String?
    /// Things done so far, and what they are (`entries`, `files`); no count when `nil`.
    var items: Int?
    var noun = Noun.file
    /// Bytes done so far, and the bytes the step will reach when known.
    var bytes: Int64
    var expectedBytes: Int64?
    /// Time since the work began.
    var elapsedSeconds: Double
    /// Time left, when the work can tell.
    var remainingSeconds: Double?
    /// A last, least important figure (a fill's goal).
    var note: String?
    /// Counts start afresh when this changes (a new phase, a new location): the rate is
    /// measured within one step.
    var step: String

    /// The status of `progress` on `subject` (by default the location the figures name); the
    /// activity, unless given, says the phase: `Reading`, `Removing` or `Filling`.
    init(_ progress: WorkProgress, activity: String? = nil, subject: String? = nil, noun: Noun = .file) {
        switch progress.phase {
        case .removing: self.activity = activity ?? "Removing"
        case .filling: self.activity = activity ?? "Filling"
        default: self.activity = activity ?? "Reading"
        }
        let subject = subject ?? progress.location?.displayName
        self.subject = subject
        self.items = progress.items
        self.noun = noun
        bytes = progress.bytes
        expectedBytes = progress.expectedBytes
        elapsedSeconds = progress.elapsedSeconds
        step = progress.phase.name + "/" + (progress.location?.identifier ?? "")
    }

    /// The status of a fill: bytes filled of what the goal needs, and the volume's figures.
    init(_ fill: FillProgress, folder: String, style: ByteCountStyle) {
        activity = "Filling"
        subject = folder
        items = nil
        bytes = fill.filledBytes
        expectedBytes = fill.filledBytes + max(0, fill.availableBytes - fill.targetAvailableBytes)
        elapsedSeconds = fill.elapsedSeconds
        remainingSeconds = fill.remainingSeconds
        note = "\(ByteCount(fill.availableBytes).formatted(style)) available, goal \(ByteCount(fill.targetAvailableBytes).formatted(style))"
        step = "filling"
    }
}

/// The one progress line of every command: on standard error, only when it is a terminal,
/// redrawn in place (`\r`, then erase to the end of the line) at most ten times a second, cut
/// to the terminal's width, and erased when the work ends.
///
/// It appears once the work has run for ``delay`` (half a second; `STOWAGE_PROGRESS_DELAY`, in
/// seconds, changes it: `0` draws from the first figures), so quick commands draw nothing.
/// The width is read at each redraw (`TIOCGWINSZ` on standard error, else `$COLUMNS`, else 80),
/// so a resized terminal is followed; one column is left free, so that no terminal wraps.
///
/// `@unchecked Sendable`: the mutable fields are read and written only under `lock`.
final class ProgressLine: @unchecked Sendable {
    /// How often the library is asked for figures, and the most often the line is redrawn.
    static let interval: Duration = .milliseconds(100)

    /// The environment variable that sets ``delay``, in seconds (at most a year).
    static let delayVariable = "STOWAGE_PROGRESS_DELAY"

    let isEnabled: Bool
    let style: ByteCountStyle
    let delay: Duration
    private let started = ContinuousClock.now
    private let lock = NSLock()
    private var isShown = false
    private var lastDrawn: ContinuousClock.Instant?
    private var lastActivity: String?
    private var stepStart: (step: String, elapsed: Double, bytes: Int64)?
    private var lastElapsed: Double?

    /// A progress line, drawn only when standard error is a terminal.
    init(style: ByteCountStyle = .decimal) {
        isEnabled = Terminal.standardErrorIsTerminal
        self.style = style
        let seconds = (try? ProcessEnvironment.value(of: Self.delayVariable)).flatMap(Double.init) ?? 0.5
        // At most a year, as every duration stowage takes: past Int.max milliseconds the conversion traps.
        delay = .milliseconds(Int((seconds.isFinite ? min(max(0, seconds), AgeArgument.longest) : 0.5) * 1000))
    }

    /// Redraws the line with `status`, unless the work is younger than ``delay`` or the line
    /// was drawn less than ``interval`` ago.
    func show(_ status: ProgressStatus) {
        guard isEnabled else { return }
        let now = ContinuousClock.now
        lock.withLock {
            let rate = rate(of: status)
            guard now - started >= delay else { return }
            // At most ten redraws a second, but a new activity (reading, then removing) at once,
            // so that a short step still shows.
            if let lastDrawn, now - lastDrawn < Self.interval, status.activity == lastActivity { return }
            lastDrawn = now
            lastActivity = status.activity
            isShown = true
            Terminal.standardError.write("\r\u{1B}[K" + Self.render(status, rate: rate, style: style, width: Terminal.standardErrorColumns - 1))
        }
    }

    /// Runs `work`, then erases the line, however the work ends: before its results or its
    /// error are printed.
    func during<Value>(_ work: () async throws -> Value) async rethrows -> Value {
        defer { clear() }
        return try await work()
    }

    /// Erases the line, if it was drawn; call it before anything else is printed.
    func clear() {
        lock.withLock {
            guard isShown else { return }
            isShown = false
            Terminal.standardError.write("\r\u{1B}[K")
        }
    }

    /// Bytes per second within the status's step: since the step's counts started at zero,
    /// which is when the previous step's last figures came (or when the work began).
    private func rate(of status: ProgressStatus) -> Double? {
        if stepStart?.step != status.step {
            stepStart = (status.step, lastElapsed ?? 0, 0)
        }
        lastElapsed = status.elapsedSeconds
        guard let start = stepStart else { return nil }
        let seconds = status.elapsedSeconds - start.elapsed
        return seconds > 0.05 ? Double(status.bytes - start.bytes) / seconds : nil
    }

    // MARK: Rendering

    /// The line for `status` in at most `width` columns: the figures that fit, most important
    /// first; the subject shortened in its middle before it is left out; and a bar, when the
    /// fraction done is known, in the room that is left (8 to 16 columns, taken from the subject
    /// down to 24 columns).
    static func render(_ status: ProgressStatus, rate: Double?, style: ByteCountStyle, width: Int) -> String {
        func size(_ bytes: Int64) -> String { ByteCount(bytes).formatted(style) }
        // (text, rank): parts of higher rank go first when the line is too wide.
        var parts: [(text: String, rank: Int)] = [(status.activity, 0)]
        let fraction = status.expectedBytes.map { $0 > 0 ? min(1, max(0, Double(status.bytes) / Double($0))) : 1 }
        if let fraction { parts.append((String("  \(Int(fraction * 100))%".suffix(4)), 1)) }
        if let items = status.items {
            parts.append((status.noun.counted(items, number: grouped), 1))
        }
        parts.append((size(status.bytes) + (status.expectedBytes.map { " of " + size($0) } ?? ""), 1))
        if let rate { parts.append((ByteCount.formattedRate(bytesPerSecond: rate, style: style), 2)) }
        parts.append((clock(status.elapsedSeconds), 2))
        if let left = status.remainingSeconds { parts.append((clock(left) + " left", 4)) }
        if let note = status.note { parts.append(("(" + note + ")", 5)) }
        let subject = status.subject.map { DisplayPath.escaped($0) } ?? ""
        let separator = "  "

        // The figures (and the subject, if any) that fit.
        var kept = parts
        var figures = ""
        var subjectRoom = 0
        while true {
            figures = kept.map(\.text).joined(separator: separator)
            subjectRoom = subject.isEmpty ? 0 : width - TerminalText.width(of: figures) - separator.count
            // Without a subject, the figures alone must fit; with one, it must get 12 columns (or all it needs).
            if subject.isEmpty ? TerminalText.width(of: figures) <= width : subjectRoom >= min(12, TerminalText.width(of: subject)) {
                break
            }
            subjectRoom = 0
            // No room for the subject: leave out the least important figure, or the subject.
            if let worst = kept.indices.filter({ kept[$0].rank > 3 }).max(by: { kept[$0].rank < kept[$1].rank }) {
                kept.remove(at: worst)
                continue
            }
            if TerminalText.width(of: figures) <= width { break }
            if let worst = kept.indices.filter({ kept[$0].rank > 0 }).max(by: { kept[$0].rank < kept[$1].rank }) {
                kept.remove(at: worst)
                continue
            }
            return TerminalText.prefix(figures, width: width)
        }
        let subjectWidth = min(subjectRoom, TerminalText.width(of: subject))
        var spare = width - TerminalText.width(of: figures) - (subjectWidth > 0 ? separator.count + subjectWidth : 0)
        if spare < 10, subjectWidth > 24 { spare += min(subjectWidth - 24, 10 - spare) }
        var line = figures
        if let fraction, spare >= 10 {
            // ASCII, so that it takes one column a character on every terminal; never full before the end.
            let bar = Bar.render(fraction: fraction, width: min(16, spare - 4), filled: "#", empty: "-", rounding: .down)
            line = kept[0].text + separator + bar + String(figures.dropFirst(kept[0].text.count))
        }
        guard subjectRoom > 0 else { return line }
        let room = width - TerminalText.width(of: line) - separator.count
        return line + separator + TerminalText.middleTruncated(subject, toWidth: room)
    }

    /// `1234567` as `1,234,567`.
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result += "," }
            result.append(digit)
        }
        return (number < 0 ? "-" : "") + result
    }

    /// Seconds as `0:07`, `12:34` or `1:02:03`.
    static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.isFinite ? max(0, seconds) : 0)
        let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
        let two = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(rest))" : "\(minutes):\(two(rest))"
    }
}

/// Text measured in terminal columns: most characters take one, East Asian wide characters and
/// emoji two, combining marks none (they belong to the character before).
enum TerminalText {
    /// The columns `text` takes.
    static func width(of text: String) -> Int {
        // Printable ASCII takes a column a byte: most names and every figure, without the
        // Unicode property lookups of the general case.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        // Printable ASCII with box drawing and block elements (U+2500 to U+259F): the rows of
        // trees and size bars. None of them joins another into one character, so each scalar is
        // a character of one column, counted without breaking the text into characters.
        var scalars = 0
        for scalar in text.unicodeScalars {
            guard (0x20..<0x7F).contains(scalar.value) || (0x2500...0x259F).contains(scalar.value) else {
                return text.reduce(0) { $0 + width(of: $1) }
            }
            scalars += 1
        }
        return scalars
    }

    /// The columns one character (a grapheme cluster) takes.
    static func width(of character: Character) -> Int {
        // One scalar that is neither a control, wide nor an emoji: from U+00A0 up to the first wide
        // range (U+1100; the first emoji shown as such is U+231A), and the box-drawing and block
        // elements (U+2500 to U+259F) of trees and size bars. Measured without property lookups.
        let scalars = character.unicodeScalars
        if let first = scalars.first, scalars.index(after: scalars.startIndex) == scalars.endIndex,
           (0xA0..<0x1100).contains(first.value) || (0x2500...0x259F).contains(first.value) {
            return 1
        }
        return measuredWidth(of: character)
    }

    /// The columns one character takes, from its scalars' Unicode properties: what
    /// ``width(of:)-(Character)`` gives, without its shortcut.
    static func measuredWidth(of character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if character.unicodeScalars.count > 1, character.unicodeScalars.contains(where: { $0.properties.isEmojiPresentation || $0.value == 0xFE0F }) {
            return 2
        }
        let value = first.value
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
        if first.properties.isEmojiPresentation { return 2 }
        let wide: [ClosedRange<UInt32>] = [
            0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD,
        ]
        return wide.contains { $0.contains(value) } ? 2 : 1
    }

    /// The longest start of `text` that fits in `width` columns.
    static func prefix(_ text: String, width: Int) -> String {
        var result = ""
        var used = 0
        for character in text {
            let next = used + self.width(of: character)
            if next > width { break }
            result.append(character)
            used = next
        }
        return result
    }

    /// `text`, or its start and end around `…` when it is wider than `width` columns.
    static func middleTruncated(_ text: String, toWidth width: Int) -> String {
        guard self.width(of: text) > width else { return text }
        guard width > 1 else { return prefix("…", width: width) }
        let tailWidth = (width - 1) / 2
        let head = prefix(text, width: width - 1 - tailWidth)
        let tail = String(prefix(String(text.reversed()), width: tailWidth).reversed())
        return head + "…" + tail
    }
}

extension Terminal {
    /// The columns of the terminal standard error is on (`TIOCGWINSZ`), else `$COLUMNS`, else 80.
    static var standardErrorColumns: Int { columns(of: TerminalDevice.standardError) }

    /// The columns of the terminal standard output is on, else `$COLUMNS`, else 80.
    static var standardOutputColumns: Int { columns(of: TerminalDevice.standardOutput) }

    private static func columns(of descriptor: Int32) -> Int {
        if let size = TerminalDevice.size(of: descriptor) { return size.columns }
        if let text = try? ProcessEnvironment.value(of: "COLUMNS"), let columns = Int(text), columns > 0 { return columns }
        return 80
    }

    /// The rows of the terminal standard output is on (`TIOCGWINSZ`), else `$LINES`, else 24.
    static var standardOutputRows: Int {
        if let rows = TerminalDevice.size(of: TerminalDevice.standardOutput)?.rows, rows > 0 { return rows }
        if let text = try? ProcessEnvironment.value(of: "LINES"), let rows = Int(text), rows > 0 { return rows }
        return 24
    }
}
