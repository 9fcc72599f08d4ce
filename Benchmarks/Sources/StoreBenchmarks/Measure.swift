import Foundation

/// The timings of one side of a comparison: seconds per operation, one sample per repetition.
struct Stat: Codable {
    /// Seconds per operation in each repetition, in the order measured.
    var samples: [Double]
    /// How many operations each repetition timed (the sample is the batch time divided by it).
    var operationsPerRepetition: Int

    var median: Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    var min: Double { samples.min() ?? .nan }

    init(operationsPerRepetition: Int) {
        self.samples = []
        self.operationsPerRepetition = operationsPerRepetition
    }

    /// Records a repetition that took `seconds` for all its operations.
    mutating func record(batch seconds: Double) {
        samples.append(seconds / Double(operationsPerRepetition))
    }

    enum CodingKeys: String, CodingKey {
        case samples = "samples_seconds", operationsPerRepetition = "operations_per_repetition"
        case median = "median_seconds", min = "min_seconds"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(median, forKey: .median)
        try container.encode(min, forKey: .min)
        try container.encode(operationsPerRepetition, forKey: .operationsPerRepetition)
        try container.encode(samples, forKey: .samples)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        samples = try container.decode([Double].self, forKey: .samples)
        operationsPerRepetition = try container.decode(Int.self, forKey: .operationsPerRepetition)
    }
}

/// Monotonic timing of a block.
enum Timer {
    /// The seconds `body` took (`ContinuousClock`, monotonic).
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try body()
        return (clock.now - start).seconds
    }
}

extension Duration {
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }
}

/// Keeps a result alive so that the optimiser cannot drop the work that produced it.
@inline(never)
func consume<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Formats seconds with a unit that keeps 3 or 4 significant digits: `812 ns`, `35.2 µs`, `1.25 s`.
func formatDuration(_ seconds: Double) -> String {
    guard seconds.isFinite else { return "n/a" }
    let (value, unit): (Double, String) =
        seconds >= 1 ? (seconds, "s") :
        seconds >= 1e-3 ? (seconds * 1e3, "ms") :
        seconds >= 1e-6 ? (seconds * 1e6, "µs") : (seconds * 1e9, "ns")
    let digits = value >= 100 ? 0 : value >= 10 ? 1 : 2
    return String(format: "%.\(digits)f", value) + " " + unit
}
