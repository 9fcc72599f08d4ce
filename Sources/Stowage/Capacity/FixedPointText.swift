import Foundation

/// A number printed with a fixed count of decimals, exactly as C's `printf("%.*f")` prints it (the
/// binary value rounded half to even), without the cost of `String(format:)`: on Linux that goes
/// through CoreFoundation's formatter, about 50,000 instructions a call, and a table of sizes
/// calls it once a cell.
package enum FixedPointText {
    /// `value` with exactly `decimals` digits after the point (none and no point for 0).
    ///
    /// The value is scaled by 10^decimals and rounded in `Double`, halves to even. When that product
    /// is not exact it is off by at most an ulp, which changes the rounding only when its fraction
    /// is within a hair of one half; there, and for values too large for exact integers, and for
    /// NaN and the infinities, C's formatter decides.
    package static func fixed(_ value: Double, decimals: Int) -> String {
        let decimals = max(0, decimals)
        guard decimals <= 9, value.isFinite else { return String(format: "%.\(decimals)f", value) }
        let scale = power10[decimals]
        let scaled = value.magnitude * scale
        guard scaled < 0x1p52 else { return String(format: "%.\(decimals)f", value) }
        // Exact when the product lost nothing (a share of 1/8, a size of 1.25 units): then a half is
        // a true tie, which C rounds to even too.
        let exact = (-scaled).addingProduct(value.magnitude, scale) == 0
        let fraction = scaled - scaled.rounded(.down)
        guard exact || abs(fraction - 0.5) > 1e-6 else { return String(format: "%.\(decimals)f", value) }
        let units = UInt64(scaled.rounded(.toNearestOrEven))
        // printf keeps the sign of a negative value that rounds to zero ("-0.0").
        let sign = value.sign == .minus ? "-" : ""
        guard decimals > 0 else { return sign + String(units) }
        let divisor = UInt64(scale)
        var digits = String(units % divisor)
        digits = String(repeating: "0", count: decimals - digits.count) + digits
        return sign + String(units / divisor) + "." + digits
    }

    private static let power10: [Double] = (0...9).map { (0..<$0).reduce(1.0) { value, _ in value * 10 } }
}
