import Foundation

extension ByteCount {
    /// What ``init(parsing:percentOf:)`` accepts, for error messages and help texts.
    public static let acceptedForms = "a number of bytes (4096), a number with a unit (512MB, 1.5 GiB, 2G; "
        + "kB MB GB TB PB EB = powers of 1000; KiB MiB GiB TiB PiB EiB and K M G T P E = powers of 1024), "
        + "or a percentage of the volume (10%)"

    /// What is accepted where a percentage cannot be (no volume to take it of).
    static let acceptedSizeForms = "a number of bytes (4096) or a number with a unit (512MB, 1.5 GiB, 2G; "
        + "kB MB GB TB PB EB = powers of 1000; KiB MiB GiB TiB PiB EiB and K M G T P E = powers of 1024)"

    /// Parses a size such as `4096`, `512MB`, `1.5 GiB` or `10%`.
    ///
    /// Fractions are allowed with a unit and rounded to the nearest byte. Numbers are plain
    /// decimal digits with an optional fraction, for sizes and percentages alike: no sign, no
    /// exponent, no hexadecimal.
    ///
    /// - Parameters:
    ///   - text: The size, as a person writes it.
    ///   - total: The volume's total bytes, which a percentage is taken of; a percentage
    ///     without it is rejected.
    /// - Throws: ``StowageError/Code/invalidArgument`` saying what is wrong and what is accepted,
    ///   for the empty string, negative sizes, unknown units (`12XB`), a unit without a number
    ///   (`MB`), exponents (`1e400`), sizes beyond 8 EiB and percentages over 100.
    public init(parsing text: String, percentOf total: Int64? = nil) throws {
        if let percent = try Self.percentage(parsing: text) {
            guard let total else {
                throw Self.failure(text, "a percentage needs a volume to be a percentage of, and here there is none",
                                   accepted: Self.acceptedSizeForms)
            }
            self.init(Int64((Double(total) * percent / 100).rounded(.down)))
            return
        }
        let (whole, fraction, unitText) = try Self.number(in: text)
        guard let unit = Self.unit(named: unitText) else {
            throw Self.failure(text, "'\(unitText)' is not a unit")
        }
        var value: Int64 = 0
        for digit in whole {
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (plus, overflowPlus) = times.addingReportingOverflow(Int64(digit))
            if overflowTimes || overflowPlus { throw Self.failure(text, Self.tooLarge) }
            value = plus
        }
        let (scaled, overflow) = value.multipliedReportingOverflow(by: unit)
        if overflow { throw Self.failure(text, Self.tooLarge) }
        if !fraction.isEmpty {
            if unit == 1 && fraction.contains(where: { $0 != 0 }) { throw Self.failure(text, "a number of bytes must be whole") }
            let part = (Self.decimalValue(whole: [], fraction: fraction) * Double(unit)).rounded()
            let (sum, overflowSum) = scaled.addingReportingOverflow(Int64(part))
            if overflowSum { throw Self.failure(text, Self.tooLarge) }
            self.init(sum)
        } else {
            self.init(scaled)
        }
    }

    /// The percentage `text` gives (`10%`, `0.5 %`), in the number grammar sizes use, or `nil`
    /// when `text` does not end in `%`.
    ///
    /// - Throws: ``StowageError/Code/invalidArgument`` for a percentage that is malformed
    ///   (`0x10%`, `1e1%`, `+5%`, `%`) or over 100.
    public static func percentage(parsing text: String) throws -> Double? {
        guard text.trimmingCharacters(in: .whitespaces).hasSuffix("%") else { return nil }
        let (whole, fraction, rest) = try number(in: text)
        guard rest == "%" else { throw failure(text, "'\(rest)' is not a unit") }
        let percent = decimalValue(whole: whole, fraction: fraction)
        guard percent <= 100 else { throw failure(text, "a percentage cannot be over 100") }
        return percent
    }

    /// The digits before and after the decimal point at the start of `text`, and what follows.
    private static func number(in text: String) throws -> (whole: [UInt8], fraction: [UInt8], rest: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { throw failure(text, "it is empty") }
        if trimmed.hasPrefix("-") { throw failure(text, "sizes cannot be negative") }
        let scalars = Array(trimmed.unicodeScalars)
        var index = 0
        var whole: [UInt8] = []
        var fraction: [UInt8] = []
        while index < scalars.count, let digit = digit(scalars[index]) {
            whole.append(digit)
            index += 1
        }
        if index < scalars.count, scalars[index] == "." {
            index += 1
            while index < scalars.count, let digit = digit(scalars[index]) {
                fraction.append(digit)
                index += 1
            }
        }
        if whole.isEmpty && fraction.isEmpty { throw failure(text, "it has no number") }
        let rest = String(String.UnicodeScalarView(scalars[index...])).trimmingCharacters(in: .whitespaces)
        return (whole, fraction, rest)
    }

    /// Why a size past `Int64.max` is refused: 8 EiB itself is one byte too many.
    static let tooLarge = "it is 8 EiB or more, and the largest size is 9223372036854775807 bytes (8 EiB less one byte)"

    private static func failure(_ text: String, _ problem: String, accepted: String = acceptedForms) -> StowageError {
        StowageError(.invalidArgument, operation: .parseSize, reason: "'\(text)' is not a size: \(problem); use \(accepted)")
    }

    private static func digit(_ scalar: Unicode.Scalar) -> UInt8? {
        scalar.value >= 48 && scalar.value <= 57 ? UInt8(scalar.value - 48) : nil
    }

    private static func decimalValue(whole: [UInt8], fraction: [UInt8]) -> Double {
        let text = (whole.isEmpty ? "0" : whole.map(String.init).joined())
            + (fraction.isEmpty ? "" : "." + fraction.map(String.init).joined())
        return Double(text) ?? .infinity
    }

    /// The multiplier of a unit name, case-insensitively; `nil` for unknown units.
    static func unit(named name: String) -> Int64? {
        let decimal: [String: Int] = ["kb": 1, "mb": 2, "gb": 3, "tb": 4, "pb": 5, "eb": 6]
        let binary: [String: Int] = ["kib": 1, "mib": 2, "gib": 3, "tib": 4, "pib": 5, "eib": 6,
                                     "k": 1, "m": 2, "g": 3, "t": 4, "p": 5, "e": 6]
        let lowered = name.lowercased()
        if ["", "b", "byte", "bytes"].contains(lowered) { return 1 }
        if let power = decimal[lowered] { return Self.power(1000, power) }
        if let power = binary[lowered] { return Self.power(1024, power) }
        return nil
    }

    static func power(_ base: Int64, _ exponent: Int) -> Int64 {
        (0..<exponent).reduce(1) { value, _ in value * base }
    }
}

extension StowageError.Operation {
    /// Parsing a size such as `512MB`.
    public static let parseSize = StowageError.Operation("parse size")
}
