import Benchmark
import BenchmarkSupport
import Foundation
import Stowage

// Stowage's Store beside the plain Foundation way of doing the same, one operation per iteration:
// Foundation appends by decoding all, appending, encoding and writing with .atomic; saves with
// JSONEncoder and Data.write(to:options: .atomic); retrieves with Data(contentsOf:) and JSONDecoder. Each benchmark runs
// in a process of its own (package-benchmark's way), in a fresh folder of $BENCHMARK_DIRECTORY
// (default: the temporary directory), removed after it. Names sort each Stowage figure beside its
// baseline. On Linux Foundation's .atomic write fsyncs its temporary file (not the folder), so its
// saves are closer to Stowage's .durable than to .atomicOnly.

/// The small Codable value of the array scenarios.
struct Entry: Codable, Equatable {
    var id: Int, name: String, score: Double

    static func array(count: Int, from start: Int = 0) -> [Entry] {
        (start ..< start + count).map { Entry(id: $0, name: "entry-\($0)", score: Double($0) * 1.5) }
    }
}

/// This process's store, its Documents folder (where the Foundation side writes too) and the blob.
final class Fixture: @unchecked Sendable {
    nonisolated(unsafe) static var current: Fixture!
    let folder: String, store: Store, documents: URL
    var blob = Data()

    init() throws {
        folder = try FileSystem.makeScratchFolder("stowage-store-bench")
        let container = Container(root: URL(filePath: folder + "/container", directoryHint: .isDirectory))
        (store, documents) = (Store(container: container), try container.url(for: .documents))
        try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { documents.appending(path: name) }
}

struct WrongCount: Error { var count: Int }

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .throughput], timeUnits: .microseconds,
                                           units: [.throughput: .count], maxDuration: .seconds(2), maxIterations: 2_000)
    Benchmark.setup = { Fixture.current = try Fixture() }
    Benchmark.teardown = { try FileSystem.remove(Fixture.current.folder) }

    func measure(_ name: String, seconds: Int = 2, setup: @escaping (Fixture) throws -> Void = { _ in },
                 _ body: @escaping (Fixture) throws -> Void) {
        Benchmark(name, configuration: .init(maxDuration: .seconds(seconds)),
                  closure: { _ in try body(Fixture.current) }, setup: { try setup(Fixture.current) })
    }
    func check(_ count: Int, _ expected: Int) throws { if count != expected { throw WrongCount(count: count) } }

    // 1. Append one entry to a 10,000-element array file (which grows by one entry an iteration).
    let count = 10_000, entries = Entry.array(count: count), seed = try! JSONEncoder().encode(entries)
    let next = Entry(id: count, name: "entry-\(count)", score: 0)
    measure("append 1 entry to 10,000: Foundation",
            setup: { try seed.write(to: $0.file("append.json"), options: .atomic) }) { fixture in
        var array = try JSONDecoder().decode([Entry].self, from: Data(contentsOf: fixture.file("append.json")))
        array.append(next)
        try JSONEncoder().encode(array).write(to: fixture.file("append.json"), options: .atomic)
    }
    for (label, options) in [("", WriteOptions.atomicOnly), (" .durable", .durable)] {
        measure("append 1 entry to 10,000: Stowage\(label)",
                setup: { try $0.store.save(seed, to: "append.json", in: .documents, options: options) }) {
            try $0.store.append(next, to: "append.json", in: .documents, options: options)
        }
    }

    // 2. Save and retrieve 10,000 entries as one array.
    measure("save 10,000 entries: Foundation") {
        try JSONEncoder().encode(entries).write(to: $0.file("array.json"), options: .atomic)
    }
    measure("retrieve 10,000 entries: Foundation",
            setup: { try seed.write(to: $0.file("array.json")) }) {
        try check(JSONDecoder().decode([Entry].self, from: Data(contentsOf: $0.file("array.json"))).count, count)
    }
    for (label, options) in [("", WriteOptions.atomicOnly), (" .durable", .durable)] {
        measure("save 10,000 entries: Stowage\(label)") {
            try $0.store.save(entries, to: "array.json", in: .documents, options: options)
        }
    }
    measure("retrieve 10,000 entries: Stowage",
            setup: { try $0.store.save(entries, to: "array.json", in: .documents, options: .atomicOnly) }) {
        try check($0.store.retrieve([Entry].self, from: "array.json", in: .documents).count, count)
    }

    // 3. Save and retrieve a 100 MB blob of random bytes.
    let bytes = 100_000_000
    func makeBlob(_ fixture: Fixture) {
        var random = SplitMix64(seed: 0x5157_4f57_4147_4521)
        fixture.blob = Data(count: bytes)
        fixture.blob.withUnsafeMutableBytes { raw in
            for offset in stride(from: 0, to: bytes, by: 8) { raw.storeBytes(of: random.next(), toByteOffset: offset, as: UInt64.self) }
        }
    }
    measure("save 100 MB: Foundation", seconds: 3, setup: makeBlob) {
        try $0.blob.write(to: $0.file("blob.bin"), options: .atomic)
    }
    measure("retrieve 100 MB: Foundation", seconds: 3,
            setup: { makeBlob($0); try $0.blob.write(to: $0.file("blob.bin")) }) {
        try check(Data(contentsOf: $0.file("blob.bin")).count, bytes)
    }
    for (label, options) in [("", WriteOptions.atomicOnly), (" .durable", .durable)] {
        measure("save 100 MB: Stowage\(label)", seconds: 3, setup: makeBlob) {
            try $0.store.save($0.blob, to: "blob.bin", in: .documents, options: options)
        }
    }
    measure("retrieve 100 MB: Stowage", seconds: 3,
            setup: { makeBlob($0); try $0.store.save($0.blob, to: "blob.bin", in: .documents, options: .atomicOnly) }) {
        try check($0.store.retrieve(Data.self, from: "blob.bin", in: .documents).count, bytes)
    }
}
