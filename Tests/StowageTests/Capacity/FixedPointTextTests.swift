import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

/// `FixedPointText.fixed` prints what C's `%.*f` prints, digit for digit: every size the command
/// shows goes through it.
@Suite("FixedPointText")
struct FixedPointTextTests {
    @Test("equals %.*f at the halves, where rounding to even and the binary value decide",
          arguments: [
              0.5, 1.5, 2.5, 0.125, 0.375, 1.005, 0.285, 2.675, 1.0049999999999999, 999.95, 999.949999, 99.5, 100.5,
              0.05, 0.15, 0.25, 0.35, 1e15 + 0.5, 4503599627370495.5, 4503599627370497, 9.999_999_5,
              -0.5, -1.5, -0.04, -0.4, -2.675, 0, -0.0, 1e300, -1e300, .nan, .infinity, -.infinity,
              .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1 + 0.2,
          ] as [Double])
    func halves(value: Double) {
        for decimals in 0...7 {
            #expect(FixedPointText.fixed(value, decimals: decimals) == String(format: "%.\(decimals)f", value),
                    "\(value) with \(decimals) decimals")
        }
    }

    @Test("equals %.*f for 100,000 values of every magnitude a size takes")
    func random() {
        Self.compare(100_000, seed: "FixedPointText/random")
    }

    @Test("equals %.*f for a million more", .long("a million values formatted twice: 5 s of CPU, 2026-11-28"))
    func randomMillion() {
        Self.compare(1_000_000, seed: "FixedPointText/random-million")
    }

    /// Compares `count` seeded values: sizes divided down to their unit (0 to 1024, three
    /// decimals of interest), shares (0 to 100), and values near a half of the last printed digit.
    static func compare(_ count: Int, seed: String) {
        var generator = SeededRandom(for: seed)
        var differences: [String] = []
        for index in 0..<count {
            let value: Double
            switch index % 3 {
            case 0: value = Double(generator.next() % 1_025_000_000) / 1_000_000
            case 1: value = Double(generator.next() % (1 << 53)) / Double(1 << 53) * 100
            default: value = (Double(generator.next() % 2_000_000) + 0.5) / pow(10, Double(generator.next() % 4)) / 1000
            }
            let decimals = Int(generator.next() % 4)
            let expected = String(format: "%.\(decimals)f", value)
            if FixedPointText.fixed(value, decimals: decimals) != expected, differences.count < 10 {
                differences.append("\(value) (\(decimals)): \(FixedPointText.fixed(value, decimals: decimals)) != \(expected)")
            }
        }
        #expect(differences.isEmpty, "\(differences)")
    }

    @Test("a negative count of decimals prints none, as %.0f")
    func negativeDecimals() {
        #expect(FixedPointText.fixed(2.5, decimals: -3) == "2")
        #expect(FixedPointText.fixed(3.5, decimals: -1) == "4")
    }
}
