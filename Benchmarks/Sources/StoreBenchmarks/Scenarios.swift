import Foundation
import Stowage

/// The small Codable value of the array benchmarks.
struct Entry: Codable, Equatable, Sendable {
    var id: Int
    var name: String
    var score: Double

    static func make(_ index: Int) -> Entry {
        Entry(id: index, name: "entry-\(index)", score: Double(index) * 1.5)
    }

    static func array(count: Int, from start: Int = 0) -> [Entry] {
        (start..<(start + count)).map(make)
    }
}

/// How many repetitions of what: sized so that the whole run takes well under a minute on a
/// 2-core machine with a virtual disk.
struct Plan {
    var warmups = 1
    var elementCount = 10_000

    var appendRepetitions = 15
    var appendsPerRepetition = 200
    var baselineAppendRepetitions = 7
    var baselineAppendsPerRepetition = 20
    var durableAppendRepetitions = 9
    var durableAppendsPerRepetition = 50

    var arrayRepetitions = 25
    var durableArrayRepetitions = 11

    var blobBytes = 100_000_000
    var blobRepetitions = 11
    var durableBlobRepetitions = 7

    static let full = Plan()

    static let quick = Plan(
        appendRepetitions: 3, appendsPerRepetition: 50,
        baselineAppendRepetitions: 2, baselineAppendsPerRepetition: 5,
        durableAppendRepetitions: 2, durableAppendsPerRepetition: 10,
        arrayRepetitions: 3, durableArrayRepetitions: 2,
        blobBytes: 20_000_000, blobRepetitions: 2, durableBlobRepetitions: 2)
}

/// One line of the report.
struct Row {
    enum Target {
        /// Stowage must be at least this many times faster than the baseline.
        case speedup(atLeast: Double)
        /// Stowage may take at most this many times the baseline's time.
        case ratio(atMost: Double)
        /// No target: the figure is reported beside `reference` (Stowage's `.atomicOnly` time).
        case info
    }

    var key: String
    var operation: String
    var stowage: Stat
    var baseline: Stat?
    /// For ``Target/info`` rows: the `.atomicOnly` figure the durable one is compared with.
    var reference: Stat?
    var target: Target
}

extension Row {
    /// The figure compared with the target: baseline ÷ Stowage for a speedup, Stowage ÷
    /// baseline for a ratio, Stowage ÷ reference for information.
    var ratio: Double? {
        switch target {
        case .speedup:
            guard let baseline else { return nil }
            return baseline.median / stowage.median
        case .ratio:
            guard let baseline else { return nil }
            return stowage.median / baseline.median
        case .info:
            guard let reference else { return nil }
            return stowage.median / reference.median
        }
    }

    /// `true` for PASS, `false` for MISS, `nil` when the row has no target.
    var passed: Bool? {
        guard let ratio else { return nil }
        switch target {
        case .speedup(let minimum): return ratio >= minimum
        case .ratio(let maximum): return ratio <= maximum
        case .info: return nil
        }
    }
}

/// Runs the three benchmarks in one store.
struct Benchmarks {
    let store: Store
    let plan: Plan
    let progress: (String) -> Void

    /// A plain file URL beside Stowage's files, for the baseline (its folder is created).
    func baselineURL(_ path: String) throws -> URL {
        let url = try store.url(for: path, in: .documents)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        return url
    }

    struct CheckFailed: Error, CustomStringConvertible {
        var description: String
    }

    func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw CheckFailed(description: "check failed: " + message()) }
    }

    // MARK: 1. Append one entry to a 10,000-element array file

    func append() throws -> [Row] {
        let count = plan.elementCount
        let seed = try JSONEncoder().encode(Entry.array(count: count))
        let stowagePath = "append/stowage.json"
        let durablePath = "append/durable.json"
        let baselineFile = try baselineURL("append/baseline.json")

        var stowage = Stat(operationsPerRepetition: plan.appendsPerRepetition)
        var durable = Stat(operationsPerRepetition: plan.durableAppendsPerRepetition)
        var baseline = Stat(operationsPerRepetition: plan.baselineAppendsPerRepetition)
        let rounds = plan.warmups + max(plan.appendRepetitions, plan.baselineAppendRepetitions, plan.durableAppendRepetitions)

        for round in 0..<rounds {
            let measured = round >= plan.warmups
            progress("append: round \(round + 1) of \(rounds)\(measured ? "" : " (warm-up)")")

            if round < plan.warmups + plan.appendRepetitions {
                let extra = Entry.array(count: plan.appendsPerRepetition, from: count)
                try store.save(seed, to: stowagePath, in: .documents, options: .atomicOnly)
                let seconds = try Timer.seconds {
                    for entry in extra {
                        try store.append(entry, to: stowagePath, in: .documents, options: .atomicOnly)
                    }
                }
                if measured { stowage.record(batch: seconds) }
                if round == 0 {
                    let back = try store.retrieve([Entry].self, from: stowagePath, in: .documents)
                    try check(back.count == count + extra.count && back.last == extra.last,
                              "Stowage's appended array has \(back.count) elements, expected \(count + extra.count)")
                }
            }

            if round < plan.warmups + plan.baselineAppendRepetitions {
                let extra = Entry.array(count: plan.baselineAppendsPerRepetition, from: count)
                try seed.write(to: baselineFile, options: .atomic)
                let seconds = try Timer.seconds {
                    for entry in extra {
                        let data = try Data(contentsOf: baselineFile)
                        var array = try JSONDecoder().decode([Entry].self, from: data)
                        array.append(entry)
                        let encoded = try JSONEncoder().encode(array)
                        try encoded.write(to: baselineFile, options: .atomic)
                    }
                }
                if measured { baseline.record(batch: seconds) }
                if round == 0 {
                    let back = try JSONDecoder().decode([Entry].self, from: Data(contentsOf: baselineFile))
                    try check(back.count == count + extra.count, "the baseline's array has \(back.count) elements")
                }
            }

            if round < plan.warmups + plan.durableAppendRepetitions {
                let extra = Entry.array(count: plan.durableAppendsPerRepetition, from: count)
                // Reset durably, so that the timed appends do not pay for flushing the reset.
                try store.save(seed, to: durablePath, in: .documents, options: .durable)
                let seconds = try Timer.seconds {
                    for entry in extra {
                        try store.append(entry, to: durablePath, in: .documents, options: .durable)
                    }
                }
                if measured { durable.record(batch: seconds) }
            }
        }

        return [
            Row(key: "append", operation: "append 1 entry to \(count.grouped)-element array",
                stowage: stowage, baseline: baseline, target: .speedup(atLeast: 100)),
            Row(key: "append_durable", operation: "  append, with Stowage .durable",
                stowage: durable, baseline: baseline, reference: stowage, target: .info),
        ]
    }

    // MARK: 2. Save and retrieve 10,000 entries as one array

    func array() throws -> [Row] {
        let count = plan.elementCount
        let array = Entry.array(count: count)
        let stowagePath = "array/stowage.json"
        let durablePath = "array/durable.json"
        let baselineFile = try baselineURL("array/baseline.json")

        var save = Stat(operationsPerRepetition: 1)
        var saveBaseline = Stat(operationsPerRepetition: 1)
        var saveDurable = Stat(operationsPerRepetition: 1)
        var retrieve = Stat(operationsPerRepetition: 1)
        var retrieveBaseline = Stat(operationsPerRepetition: 1)
        let rounds = plan.warmups + max(plan.arrayRepetitions, plan.durableArrayRepetitions)

        for round in 0..<rounds {
            let measured = round >= plan.warmups
            if round == 0 || round == rounds - 1 || round % 5 == 0 {
                progress("array: round \(round + 1) of \(rounds)\(measured ? "" : " (warm-up)")")
            }
            if round < plan.warmups + plan.arrayRepetitions {
                // Alternate which side goes first, so that neither always follows the other.
                var sides: [() throws -> Void] = [
                    {
                        let seconds = try Timer.seconds {
                            try store.save(array, to: stowagePath, in: .documents, options: .atomicOnly)
                        }
                        if measured { save.record(batch: seconds) }
                    },
                    {
                        let seconds = try Timer.seconds {
                            let data = try JSONEncoder().encode(array)
                            try data.write(to: baselineFile, options: .atomic)
                        }
                        if measured { saveBaseline.record(batch: seconds) }
                    },
                ]
                if round % 2 == 1 { sides.reverse() }
                for side in sides { try side() }

                var stowageCount = 0
                var baselineCount = 0
                sides = [
                    {
                        let seconds = try Timer.seconds {
                            let back = try store.retrieve([Entry].self, from: stowagePath, in: .documents)
                            stowageCount = back.count
                            consume(back)
                        }
                        if measured { retrieve.record(batch: seconds) }
                    },
                    {
                        let seconds = try Timer.seconds {
                            let data = try Data(contentsOf: baselineFile)
                            let back = try JSONDecoder().decode([Entry].self, from: data)
                            baselineCount = back.count
                            consume(back)
                        }
                        if measured { retrieveBaseline.record(batch: seconds) }
                    },
                ]
                if round % 2 == 1 { sides.reverse() }
                for side in sides { try side() }
                try check(stowageCount == count && baselineCount == count,
                          "retrieved \(stowageCount) and \(baselineCount) entries, expected \(count)")
            }
            if round < plan.warmups + plan.durableArrayRepetitions {
                let seconds = try Timer.seconds {
                    try store.save(array, to: durablePath, in: .documents, options: .durable)
                }
                if measured { saveDurable.record(batch: seconds) }
            }
        }

        return [
            Row(key: "array_save", operation: "save [Entry] x\(count.grouped)",
                stowage: save, baseline: saveBaseline, target: .ratio(atMost: 1.2)),
            Row(key: "array_save_durable", operation: "  save, with Stowage .durable",
                stowage: saveDurable, baseline: saveBaseline, reference: save, target: .info),
            Row(key: "array_retrieve", operation: "retrieve [Entry] x\(count.grouped)",
                stowage: retrieve, baseline: retrieveBaseline, target: .ratio(atMost: 1.2)),
        ]
    }

    // MARK: 3. Save and retrieve a 100 MB blob

    /// `count` bytes of pseudo-random data (SplitMix64: fast, and incompressible enough).
    static func makeBlob(_ count: Int) -> Data {
        var data = Data(count: count)
        var state: UInt64 = 0x5157_4f57_4147_4521
        data.withUnsafeMutableBytes { raw in
            let words = raw.count / 8
            let wordBuffer = raw.bindMemory(to: UInt64.self)
            for index in 0..<words {
                state &+= 0x9e37_79b9_7f4a_7c15
                var z = state
                z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
                z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
                wordBuffer[index] = z ^ (z >> 31)
            }
            for index in (words * 8)..<raw.count { raw[index] = UInt8(truncatingIfNeeded: index) }
        }
        return data
    }

    func blob() throws -> [Row] {
        let bytes = plan.blobBytes
        let blob = Self.makeBlob(bytes)
        let stowagePath = "blob/stowage.bin"
        let durablePath = "blob/durable.bin"
        let baselineFile = try baselineURL("blob/baseline.bin")

        var save = Stat(operationsPerRepetition: 1)
        var saveBaseline = Stat(operationsPerRepetition: 1)
        var saveDurable = Stat(operationsPerRepetition: 1)
        var retrieve = Stat(operationsPerRepetition: 1)
        var retrieveBaseline = Stat(operationsPerRepetition: 1)
        let rounds = plan.warmups + max(plan.blobRepetitions, plan.durableBlobRepetitions)

        for round in 0..<rounds {
            let measured = round >= plan.warmups
            progress("blob: round \(round + 1) of \(rounds)\(measured ? "" : " (warm-up)")")
            if round < plan.warmups + plan.blobRepetitions {
                var sides: [() throws -> Void] = [
                    {
                        let seconds = try Timer.seconds {
                            try store.save(blob, to: stowagePath, in: .documents, options: .atomicOnly)
                        }
                        if measured { save.record(batch: seconds) }
                    },
                    {
                        let seconds = try Timer.seconds {
                            try blob.write(to: baselineFile, options: .atomic)
                        }
                        if measured { saveBaseline.record(batch: seconds) }
                    },
                ]
                if round % 2 == 1 { sides.reverse() }
                for side in sides { try side() }

                var stowageCount = 0
                var baselineCount = 0
                sides = [
                    {
                        let seconds = try Timer.seconds {
                            let back = try store.retrieve(Data.self, from: stowagePath, in: .documents)
                            stowageCount = back.count
                            consume(back)
                        }
                        if measured { retrieve.record(batch: seconds) }
                    },
                    {
                        let seconds = try Timer.seconds {
                            let back = try Data(contentsOf: baselineFile)
                            baselineCount = back.count
                            consume(back)
                        }
                        if measured { retrieveBaseline.record(batch: seconds) }
                    },
                ]
                if round % 2 == 1 { sides.reverse() }
                for side in sides { try side() }
                try check(stowageCount == bytes && baselineCount == bytes,
                          "retrieved \(stowageCount) and \(baselineCount) bytes, expected \(bytes)")
                if round == 0 {
                    try check(try store.retrieve(Data.self, from: stowagePath, in: .documents) == blob,
                              "the blob read back differs from the one saved")
                }
            }
            if round < plan.warmups + plan.durableBlobRepetitions {
                let seconds = try Timer.seconds {
                    try store.save(blob, to: durablePath, in: .documents, options: .durable)
                }
                if measured { saveDurable.record(batch: seconds) }
            }
        }

        let size = bytes % 1_000_000 == 0 ? "\(bytes / 1_000_000) MB" : "\(bytes.grouped) B"
        return [
            Row(key: "blob_save", operation: "save \(size) Data",
                stowage: save, baseline: saveBaseline, target: .ratio(atMost: 1.2)),
            Row(key: "blob_save_durable", operation: "  save, with Stowage .durable",
                stowage: saveDurable, baseline: saveBaseline, reference: save, target: .info),
            Row(key: "blob_retrieve", operation: "retrieve \(size) Data",
                stowage: retrieve, baseline: retrieveBaseline, target: .ratio(atMost: 1.2)),
        ]
    }
}

extension Int {
    /// `10000` as `10,000`.
    var grouped: String {
        let digits = String(self.magnitude)
        var result = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(character)
        }
        return (self < 0 ? "-" : "") + result
    }
}
