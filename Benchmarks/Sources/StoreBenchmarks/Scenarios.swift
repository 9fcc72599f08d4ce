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
        let baselineFile = try baselineURL("array/baseline.json")
        let stats = try compareSaveAndRetrieve(
            "array", repetitions: plan.arrayRepetitions, durableRepetitions: plan.durableArrayRepetitions,
            expected: count, unit: "entries",
            saveStowage: { try store.save(array, to: stowagePath, in: .documents, options: .atomicOnly) },
            saveBaseline: { try JSONEncoder().encode(array).write(to: baselineFile, options: .atomic) },
            saveDurable: { try store.save(array, to: "array/durable.json", in: .documents, options: .durable) },
            retrieveStowage: {
                let back = try store.retrieve([Entry].self, from: stowagePath, in: .documents)
                consume(back)
                return back.count
            },
            retrieveBaseline: {
                let back = try JSONDecoder().decode([Entry].self, from: Data(contentsOf: baselineFile))
                consume(back)
                return back.count
            })
        return stats.rows(save: "save [Entry] x\(count.grouped)", retrieve: "retrieve [Entry] x\(count.grouped)", key: "array")
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
        let baselineFile = try baselineURL("blob/baseline.bin")
        let stats = try compareSaveAndRetrieve(
            "blob", repetitions: plan.blobRepetitions, durableRepetitions: plan.durableBlobRepetitions,
            expected: bytes, unit: "bytes",
            saveStowage: { try store.save(blob, to: stowagePath, in: .documents, options: .atomicOnly) },
            saveBaseline: { try blob.write(to: baselineFile, options: .atomic) },
            saveDurable: { try store.save(blob, to: "blob/durable.bin", in: .documents, options: .durable) },
            retrieveStowage: {
                let back = try store.retrieve(Data.self, from: stowagePath, in: .documents)
                consume(back)
                return back.count
            },
            retrieveBaseline: {
                let back = try Data(contentsOf: baselineFile)
                consume(back)
                return back.count
            },
            afterFirstRound: {
                try check(try store.retrieve(Data.self, from: stowagePath, in: .documents) == blob,
                          "the blob read back differs from the one saved")
            })
        let size = bytes % 1_000_000 == 0 ? "\(bytes / 1_000_000) MB" : "\(bytes.grouped) B"
        return stats.rows(save: "save \(size) Data", retrieve: "retrieve \(size) Data", key: "blob")
    }

    // MARK: The save-and-retrieve comparison of scenarios 2 and 3

    /// Times of one save-and-retrieve comparison.
    struct SaveRetrieveStats {
        var save = Stat(operationsPerRepetition: 1)
        var saveBaseline = Stat(operationsPerRepetition: 1)
        var saveDurable = Stat(operationsPerRepetition: 1)
        var retrieve = Stat(operationsPerRepetition: 1)
        var retrieveBaseline = Stat(operationsPerRepetition: 1)

        func rows(save saveName: String, retrieve retrieveName: String, key: String) -> [Row] {
            [
                Row(key: key + "_save", operation: saveName, stowage: save, baseline: saveBaseline, target: .ratio(atMost: 1.2)),
                Row(key: key + "_save_durable", operation: "  save, with Stowage .durable",
                    stowage: saveDurable, baseline: saveBaseline, reference: save, target: .info),
                Row(key: key + "_retrieve", operation: retrieveName, stowage: retrieve, baseline: retrieveBaseline,
                    target: .ratio(atMost: 1.2)),
            ]
        }
    }

    /// Each round saves with Stowage (`.atomicOnly`) and the baseline, then retrieves with
    /// both (which side goes first alternates, so that neither always follows the other) and
    /// checks that both read `expected` units; Stowage's `.durable` save is timed on its own.
    func compareSaveAndRetrieve(
        _ name: String, repetitions: Int, durableRepetitions: Int, expected: Int, unit: String,
        saveStowage: @escaping () throws -> Void, saveBaseline: @escaping () throws -> Void,
        saveDurable: () throws -> Void,
        retrieveStowage: @escaping () throws -> Int, retrieveBaseline: @escaping () throws -> Int,
        afterFirstRound: () throws -> Void = {}
    ) throws -> SaveRetrieveStats {
        var stats = SaveRetrieveStats()
        let rounds = plan.warmups + max(repetitions, durableRepetitions)
        for round in 0..<rounds {
            let measured = round >= plan.warmups
            if round == 0 || round == rounds - 1 || round % 5 == 0 {
                progress("\(name): round \(round + 1) of \(rounds)\(measured ? "" : " (warm-up)")")
            }
            if round < plan.warmups + repetitions {
                var saves: [() throws -> Void] = [
                    { let seconds = try Timer.seconds(saveStowage); if measured { stats.save.record(batch: seconds) } },
                    { let seconds = try Timer.seconds(saveBaseline); if measured { stats.saveBaseline.record(batch: seconds) } },
                ]
                if round % 2 == 1 { saves.reverse() }
                for side in saves { try side() }

                var stowageCount = 0
                var baselineCount = 0
                var retrieves: [() throws -> Void] = [
                    {
                        let seconds = try Timer.seconds { stowageCount = try retrieveStowage() }
                        if measured { stats.retrieve.record(batch: seconds) }
                    },
                    {
                        let seconds = try Timer.seconds { baselineCount = try retrieveBaseline() }
                        if measured { stats.retrieveBaseline.record(batch: seconds) }
                    },
                ]
                if round % 2 == 1 { retrieves.reverse() }
                for side in retrieves { try side() }
                try check(stowageCount == expected && baselineCount == expected,
                          "retrieved \(stowageCount) and \(baselineCount) \(unit), expected \(expected)")
                if round == 0 { try afterFirstRound() }
            }
            if round < plan.warmups + durableRepetitions {
                let seconds = try Timer.seconds(saveDurable)
                if measured { stats.saveDurable.record(batch: seconds) }
            }
        }
        return stats
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
