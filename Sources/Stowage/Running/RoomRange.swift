import Foundation

/// Rooms of many sizes, from one end to the other: what ``RoomRangeRun`` makes one after
/// another, over the same folders, to find every point where running out of space breaks a
/// command.
///
/// A range varies the room's bytes (``Quantity/bytes``) or its free inodes
/// (``Quantity/inodes``). Both ends are rooms of the range (inclusive). Bytes are whole blocks
/// of the room's layer (a tmpfs page, 4 KiB): each end is rounded up to a block, as a single
/// room's size is, and a step that is not a whole number of blocks is rounded up to one
/// (``Rooms/isStepRounded`` says so). The rooms are the low end, then one step more each time,
/// and the high end last, even when the last step is shorter.
///
/// ```swift
/// let range = try RoomRange(parsing: "0..2MB", quantity: .bytes, step: "4KB")
/// let rooms = try range.rooms(blockSize: 4096)
/// print(rooms.sizes.count, rooms.step, rooms.isStepRounded)  // 490 4096 true
/// ```
public struct RoomRange: Sendable, Hashable, CustomStringConvertible {
    /// What a range varies.
    public struct Quantity: Sendable, Hashable, CustomStringConvertible {
        /// `bytes` or `inodes`.
        public let name: String

        /// The bytes available in the room.
        public static let bytes = Quantity(name: "bytes")
        /// The free inodes of the room's layer (the bytes stay as the plan says).
        public static let inodes = Quantity(name: "inodes")

        private init(name: String) { self.name = name }

        /// The name.
        public var description: String { name }
    }

    /// The rooms of a range, resolved against the layer's block size.
    public struct Rooms: Sendable, Hashable {
        /// Every room's size, in bytes or inodes, smallest first; both ends included.
        public var sizes: [Int64]
        /// The step between two rooms, in bytes (a whole number of blocks) or inodes.
        public var step: Int64
        /// The precision of the sizes: a block, in bytes, or one inode.
        public var unit: Int64
        /// Whether the step given was not a whole number of blocks, and was rounded up to one.
        public var isStepRounded: Bool
    }

    /// The two ends of a range resolved against the layer's block size, and its precision: all a
    /// search by bisection (``RoomRangeRun/findMinimum(_:)``) needs, however many rooms lie between.
    public struct Ends: Sendable, Hashable {
        /// The smallest room, in bytes (a whole block) or inodes.
        public var low: Int64
        /// The largest room, in bytes (a whole block) or inodes.
        public var high: Int64
        /// The precision of the sizes: a block, in bytes, or one inode.
        public var unit: Int64
    }

    /// The most rooms a run over every size may hold (``rooms(blockSize:)``); a search by
    /// bisection (``ends(blockSize:)``) takes a range of any length.
    public static let roomLimit = 100_000

    /// What the range varies.
    public var quantity: Quantity
    /// The low end, in bytes or inodes, as given.
    public var lowerBound: Int64
    /// The high end, in bytes or inodes, as given.
    public var upperBound: Int64
    /// The step as given, or `nil` for one block (bytes) or one inode.
    public var step: Int64?

    /// A range of rooms from `bytes.lowerBound` to `bytes.upperBound` bytes.
    public init(bytes: ClosedRange<Int64>, step: Int64? = nil) {
        self.init(quantity: .bytes, bounds: bytes, step: step)
    }

    /// A range of rooms with from `inodes.lowerBound` to `inodes.upperBound` free inodes.
    public init(inodes: ClosedRange<Int64>, step: Int64? = nil) {
        self.init(quantity: .inodes, bounds: inodes, step: step)
    }

    private init(quantity: Quantity, bounds: ClosedRange<Int64>, step: Int64?) {
        self.quantity = quantity
        lowerBound = bounds.lowerBound
        upperBound = bounds.upperBound
        self.step = step
    }

    /// Whether `text` is written as a range (`LOW..HIGH`) rather than one size.
    public static func isRange(_ text: String) -> Bool { text.contains("..") }

    /// A range written `LOW..HIGH`: sizes (`0..2MB`, `1.5MB..2MiB`) for bytes, whole numbers
    /// (`0..100`) for inodes; the step likewise (`4KB`, `1`), or `nil`.
    ///
    /// - Throws: ``StowageError/Code/invalidArgument`` saying what is wrong: not `LOW..HIGH`
    ///   (three dots or more included: `0...1MB` is not `0..0.1MB`), an end missing, an end or
    ///   step that is not a size (or count), a percentage, the low end above the high end, an end
    ///   above ``RoomPlan/largestAvailableBytes`` (or ``RoomPlan/largestAvailableInodes``), a step
    ///   of 0. (Ends too close together, and a step larger than the range, are refused by
    ///   ``rooms(blockSize:)``, once blocks are known.)
    public init(parsing text: String, quantity: Quantity, step: String? = nil) throws {
        guard !text.contains("...") else {
            throw Self.invalid("'\(text)' has more than two dots between its ends: give LOW..HIGH, as in 0..2MB")
        }
        let parts = text.split(separator: "..", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 else {
            throw Self.invalid("'\(text)' is not a range: give LOW..HIGH, as in 0..2MB")
        }
        guard !parts[0].trimmingCharacters(in: .whitespaces).isEmpty, !parts[1].trimmingCharacters(in: .whitespaces).isEmpty else {
            throw Self.invalid("'\(text)' lacks an end: a range needs both, LOW..HIGH, as in 0..2MB")
        }
        let low = try Self.value(parts[0], quantity, what: "low end of '\(text)'")
        let high = try Self.value(parts[1], quantity, what: "high end of '\(text)'")
        try Self.checkLargest(high, quantity, what: "high end of '\(text)'")
        guard low <= high else {
            throw Self.invalid("the range '\(text)' goes down: its low end is above its high end (give LOW..HIGH)")
        }
        self.init(quantity: quantity, bounds: low...high, step: try step.map { try Self.value($0, quantity, what: "step") })
        if self.step == 0 { throw Self.invalid("the step cannot be 0") }
    }

    /// The rooms of the range on a layer of `blockSize` bytes (ignored for inodes).
    ///
    /// - Throws: ``StowageError/Code/invalidArgument`` for a negative end or step, a low end
    ///   above the high end, a high end above the largest room (``RoomPlan/largestAvailableBytes``
    ///   or ``RoomPlan/largestAvailableInodes``) or that cannot be rounded up to a block, ends
    ///   that make one room once rounded to blocks, a step of 0 or larger than the range, or
    ///   more than ``roomLimit`` rooms.
    public func rooms(blockSize: Int64) throws -> Rooms {
        let ends = try ends(blockSize: blockSize)
        let (low, high, unit) = (ends.low, ends.high, ends.unit)
        let noun = quantity == .bytes ? "bytes" : "inodes"
        if let step, step <= 0 { throw Self.invalid("the step must be more than 0, not \(step)") }
        // A step that rounds up past Int64.max is larger than any range too.
        let given = self.step ?? unit
        let rounded = Self.roundedUp(given, to: unit)
        guard let step = rounded, step <= high - low else {
            throw Self.invalid("the step (\(rounded ?? given) \(noun)) is larger than the range (\(low) to \(high) \(noun)): "
                               + "it would hold the two ends only; give a smaller step")
        }
        // The rooms from low, one step apart, below high; then high. (No sum that could overflow.)
        let span = high - low
        let count = span / step + (span % step == 0 ? 0 : 1) + 1
        guard count <= Int64(Self.roomLimit) else {
            throw Self.invalid("the range holds \(count) rooms, more than \(Self.roomLimit); give a larger step or a narrower range")
        }
        return Rooms(sizes: stride(from: low, to: high, by: Int64.Stride(step)).map { $0 } + [high], step: step, unit: unit,
                     isStepRounded: self.step.map { $0 != step } ?? false)
    }

    /// The ends of the range on a layer of `blockSize` bytes (ignored for inodes), each rounded up
    /// to a block, with no limit on the rooms between and no step: what a bisection needs.
    ///
    /// - Throws: ``StowageError/Code/invalidArgument`` for a negative end, a low end above the
    ///   high end, a high end above the largest room (``RoomPlan/largestAvailableBytes`` or
    ///   ``RoomPlan/largestAvailableInodes``) or that cannot be rounded up to a block, or ends
    ///   that make one room once rounded to blocks.
    public func ends(blockSize: Int64) throws -> Ends {
        let unit = quantity == .bytes ? max(1, blockSize) : 1
        let noun = quantity == .bytes ? "bytes" : "inodes"
        guard lowerBound >= 0 else { throw Self.invalid("the range's low end cannot be negative (\(lowerBound) \(noun))") }
        guard lowerBound <= upperBound else {
            throw Self.invalid("the range goes down: its low end (\(lowerBound) \(noun)) is above its high end (\(upperBound) \(noun))")
        }
        try Self.checkLargest(upperBound, quantity, what: "range's high end")
        guard let low = Self.roundedUp(lowerBound, to: unit), let high = Self.roundedUp(upperBound, to: unit) else {
            throw Self.invalid("the range's high end (\(upperBound) \(noun)) cannot be rounded up to a whole block of \(unit) bytes")
        }
        guard low < high else {
            let rounding = quantity == .bytes ? " rounded up to whole blocks of \(unit) bytes" : ""
            throw Self.invalid("the range \(lowerBound)..\(upperBound) \(noun) holds one room (\(low) \(noun)\(rounding)); "
                               + "give ends further apart, or one size without ..")
        }
        return Ends(low: low, high: high, unit: unit)
    }

    /// `value` (not negative) rounded up to a whole `unit`, or `nil` past `Int64.max`.
    private static func roundedUp(_ value: Int64, to unit: Int64) -> Int64? {
        let remainder = value % unit
        guard remainder != 0 else { return value }
        let (rounded, overflow) = value.addingReportingOverflow(unit - remainder)
        return overflow ? nil : rounded
    }

    /// `0 bytes..2 MB step 4 KB`, `0..100 inodes`.
    public var description: String {
        func text(_ value: Int64) -> String { quantity == .bytes ? ByteCount(value).formatted() : "\(value)" }
        let stepText = step.map { " step \(text($0))" } ?? ""
        return "\(text(lowerBound))..\(text(upperBound))\(quantity == .inodes ? " inodes" : "")\(stepText)"
    }

    private static func value(_ text: String, _ quantity: Quantity, what: String) throws -> Int64 {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if quantity == .inodes {
            guard !trimmed.isEmpty, trimmed.allSatisfy({ ("0"..."9").contains($0) }) else {
                throw invalid("the \(what) is '\(text)', not a whole number of inodes")
            }
            guard let count = Int64(trimmed) else {
                throw invalid("the \(what) is '\(text)', more than a room's layer can have free, \(RoomPlan.largestAvailableInodes)")
            }
            return count
        }
        if (try? ByteCount.percentage(parsing: trimmed)) != nil {
            throw invalid("the \(what) is '\(text)', a percentage; a range's ends and step are sizes, such as 2MB")
        }
        do {
            return try ByteCount(parsing: trimmed).bytes
        } catch let error as StowageError {
            throw invalid("the \(what): \(error.reason ?? error.description)")
        }
    }

    /// Refuses `value` above the largest room (``RoomPlan/largestAvailableBytes`` or
    /// ``RoomPlan/largestAvailableInodes``), naming it as `what`.
    private static func checkLargest(_ value: Int64, _ quantity: Quantity, what: String) throws {
        do {
            _ = try quantity == .bytes ? RoomPlan.checkedRoom(bytes: value) : RoomPlan.checkedRoom(inodes: value)
        } catch let error as StowageError {
            throw invalid("the \(what): \(error.reason ?? error.description)")
        }
    }

    private static func invalid(_ reason: String) -> StowageError {
        StowageError(.invalidArgument, operation: .run, reason: reason)
    }
}
