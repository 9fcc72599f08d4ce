import Foundation

extension ByteCount {
    /// The count in the largest unit of `style` that keeps the number at least 1, with at most
    /// `precision` decimals (trailing zeros dropped): `1.5 GB`, `512 MiB`, `999 B`.
    ///
    /// Parsing the result with ``init(parsing:percentOf:)`` gives back this count to within
    /// half a unit of the last printed decimal.
    public func formatted(_ style: ByteCountStyle = .decimal, precision: Int = 1) -> String {
        let precision = max(0, min(precision, 6))
        let magnitude = bytes.magnitude
        let sign = bytes < 0 ? "-" : ""
        if magnitude < UInt64(style.base) { return "\(sign)\(magnitude) B" }
        var index = 0
        var value = Double(magnitude)
        while index < style.symbols.count - 1, value >= Double(style.base) {
            value /= Double(style.base)
            index += 1
        }
        var text = Self.decimal(value, precision: precision)
        if Double(text)! >= Double(style.base), index < style.symbols.count - 1 {
            index += 1
            text = Self.decimal(value / Double(style.base), precision: precision)
        }
        return "\(sign)\(text) \(style.symbols[index])"
    }

    /// A transfer rate such as `12.5 MB/s`, or in bits (`100 Mbit/s`) when `bits` is set.
    public static func formattedRate(bytesPerSecond: Double, style: ByteCountStyle = .decimal, bits: Bool = false,
                                     precision: Int = 1) -> String {
        let perSecond = bits ? bytesPerSecond * 8 : bytesPerSecond
        guard perSecond.isFinite, perSecond >= 0 else { return "-" }
        if !bits {
            return ByteCount(Int64(perSecond.rounded())).formatted(style, precision: precision) + "/s"
        }
        let symbols = style.base == 1000 ? ["bit", "kbit", "Mbit", "Gbit", "Tbit", "Pbit"]
                                         : ["bit", "Kibit", "Mibit", "Gibit", "Tibit", "Pibit"]
        var value = perSecond
        var index = 0
        while index < symbols.count - 1, value >= Double(style.base) {
            value /= Double(style.base)
            index += 1
        }
        return "\(index == 0 ? String(Int(value.rounded())) : decimal(value, precision: precision)) \(symbols[index])/s"
    }

    /// `value` with at most `precision` decimals, trailing zeros dropped.
    static func decimal(_ value: Double, precision: Int) -> String {
        var text = FixedPointText.fixed(value, decimals: precision)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }
}
