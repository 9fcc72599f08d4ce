import Foundation

extension ByteCount {
    /// What ``init(parsing:percentOf:)`` accepts, for error messages and help texts.
    public static let acceptedForms = "a number of bytes (4096), a number with a unit (512MB, 1.5 GiB, 2G; "
        + "kB MB GB TB PB EB = powers of 1000; KiB MiB GiB TiB PiB EiB and K M G T P E = powers of 1024), "
        + "or a percentage of the volume (10%)"

    /// Parses a size such as `4096`, `512MB`, `1.5 GiB` or `10%`.
    ///
    /// Fractions are allowed with a unit and rounded to the nearest byte.
    ///
    /// - Parameter total: The volume's total bytes, which a percentage is taken of; a percentage
    ///   without it is rejected.
    /// - Throws: ``StowageError/Code/invalidArgument`` saying what is wrong and what is accepted,
    ///   for the empty string, negative sizes, unknown units (`12XB`), a unit without a number
    ///   (`MB`), exponents (`1e400`), sizes beyond 8 EiB and percentages over 100.
    public init(parsing text: String, percentOf total: Int64? = nil) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        func failure(_ problem: String) -> StowageError {
            StowageError(.invalidArgument, operation: .parseSize,
                         reason: "'\(text)' is not a size: \(problem); use \(Self.acceptedForms)")
        }
        if trimmed.isEmpty { throw failure("it is empty") }
        if trimmed.hasPrefix("-") { throw failure("sizes cannot be negative") }
        let scalars = Array(trimmed.unicodeScalars)
        var index = 0
        var whole: [UInt8] = []
        var fraction: [UInt8] = []
        while index < scalars.count, let digit = Self.digit(scalars[index]) {
            whole.append(digit)
            index += 1
        }
        if index < scalars.count, scalars[index] == "." {
            index += 1
            while index < scalars.count, let digit = Self.digit(scalars[index]) {
                fraction.append(digit)
                index += 1
            }
        }
        if whole.isEmpty && fraction.isEmpty { throw failure("it has no number") }
        let unitText = String(String.UnicodeScalarView(scalars[index...])).trimmingCharacters(in: .whitespaces)

        if unitText == "%" {
            guard let total else { throw failure("a percentage needs a volume to be a percentage of") }
            let percent = Self.decimalValue(whole: whole, fraction: fraction)
            guard percent <= 100 else { throw failure("a percentage cannot be over 100") }
            self.init(Int64((Double(total) * percent / 100).rounded(.down)))
            return
        }
        guard let unit = Self.unit(named: unitText) else {
            throw failure("'\(unitText)' is not a unit")
        }
        var value: Int64 = 0
        for digit in whole {
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (plus, overflowPlus) = times.addingReportingOverflow(Int64(digit))
            if overflowTimes || overflowPlus { throw failure("it is larger than 8 EiB") }
            value = plus
        }
        let (scaled, overflow) = value.multipliedReportingOverflow(by: unit)
        if overflow { throw failure("it is larger than 8 EiB") }
        if !fraction.isEmpty {
            if unit == 1 && fraction.contains(where: { $0 != 0 }) { throw failure("a number of bytes must be whole") }
            let part = (Self.decimalValue(whole: [], fraction: fraction) * Double(unit)).rounded()
            let (sum, overflowSum) = scaled.addingReportingOverflow(Int64(part))
            if overflowSum { throw failure("it is larger than 8 EiB") }
            self.init(sum)
        } else {
            self.init(scaled)
        }
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
