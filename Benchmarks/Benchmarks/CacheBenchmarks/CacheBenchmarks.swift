import Benchmark
import BenchmarkSupport
import Foundation

// DiskCache beside the floor (bare system calls) and Kingfisher's DiskStorage approach in Foundation
// (see Subjects.swift): sets at the limit (every set evicts), get hits and misses, and hits from
// DiskCache's memory tier, for entries of 1 KB, 100 KB and 1 MB ("1000 KB", so that names sort by
// size), on 1 thread, 4 threads sharing one instance, and 2 processes with an instance each on one
// folder. Each benchmark runs in a process of its own, in a fresh folder of $BENCHMARK_DIRECTORY
// (default: the temporary directory), filled a little past the limit first. With 1 thread an
// iteration is one operation (package-benchmark's wall clock and throughput); with several, it is a
// batch of operations, and the operations per second and each one's latency are custom metrics. After
// sets, the allocated bytes of the folder's files are measured (every 100 sets on 1 thread, after
// every batch otherwise): at most 1000 ‰ of the limit when it holds.

let sizes: [(name: String, bytes: Int, limit: Int64)] = [
    ("1 KB", 1_000, 4 << 20), ("100 KB", 100_000, 16 << 20), ("1000 KB", 1_000_000, 64 << 20),
]
let modes: [(name: String, count: Int, processes: Bool)] = [("1 thread", 1, false), ("4 threads", 4, false),
                                                            ("2 processes", 2, true)]

enum Op: String, CaseIterable {
    case set, hit, miss, memoryHit
    var label: String { ["set": "set (evicts)", "hit": "get hit", "miss": "get miss",
                         "memoryHit": "get hit (memory tier)"][rawValue]! }
}

let latency = BenchmarkMetric.custom("Latency per operation (ns)", useScalingFactor: false)
let operationsPerSecond = BenchmarkMetric.custom("Operations / s, all together", polarity: .prefersLarger, useScalingFactor: false)
let allocated = BenchmarkMetric.custom("Allocated after sets (‰ of the limit)", useScalingFactor: false)

struct Failure: Error, CustomStringConvertible { var description: String }

func nanos() -> Int {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return time.tv_sec * 1_000_000_000 + time.tv_nsec
}

/// The space an entry takes: its bytes and a header of under 100 bytes, in 4 KiB blocks.
func allocation(_ bytes: Int) -> Int { (bytes + 100 + 4095) / 4096 * 4096 }

/// The keys that fill a subject a little past `limit`, so that it is at its limit and every set evicts.
func fillKeys(_ prefix: String, limit: Int64, bytes: Int) -> [String] {
    (0 ... Int(limit) * 11 / 10 / allocation(bytes)).map { prefix + "\($0)" }
}

/// The latest of `keys` that hit, 40% of the limit's worth at most: what hits read.
func hotKeys(_ subject: any Subject, _ keys: [String], limit: Int64, bytes: Int) -> [String] {
    Array(keys.reversed().lazy.filter { (try? subject.get($0)) == bytes }.prefix(Int(limit) * 2 / 5 / allocation(bytes)))
}

/// One operation; sets are of new keys, misses of keys never set.
func perform(_ subject: any Subject, _ op: Op, _ data: Data, _ key: String) throws {
    if op == .set { return try subject.set(data, for: key) }
    if try subject.get(key) != (op == .miss ? nil : data.count) { throw Failure(description: "wrong answer for \(key)") }
}

func key(_ op: Op, _ prefix: String, _ index: Int, _ hot: [String]) -> String {
    op == .set ? "\(prefix)set-\(index)" : op == .miss ? "\(prefix)miss-\(index)" : hot[index % hot.count]
}

/// `count` operations from key number `first` on; the latency of each, in nanoseconds, negative for a set
/// that failed (Foundation's, when another writer's sweep removed its file before it set its dates).
func batch(_ subject: any Subject, _ op: Op, _ data: Data, _ hot: [String], _ prefix: String, _ first: Int,
           _ count: Int) throws -> [Int] {
    try (first ..< first + count).map { index in
        let key = key(op, prefix, index, hot), start = nanos()
        do { try perform(subject, op, data, key) } catch where op == .set { return start - nanos() }
        return nanos() - start
    }
}

/// A copy of this program serving one subject on one thread, started with STOWAGE_CACHE_WORKER set: it
/// answers "ready" when filled, then each line "<first> <count>" with the latencies of a batch.
final class Worker {
    let process = Process(), input = Pipe(), output: UnsafeMutablePointer<FILE>

    init(_ arguments: [String]) throws {
        let pipe = Pipe()
        process.executableURL = Bundle.main.executableURL
        process.environment = ProcessInfo.processInfo.environment
            .merging(["STOWAGE_CACHE_WORKER": arguments.joined(separator: "\t")]) { $1 }
        (process.standardInput, process.standardOutput) = (input, pipe)
        try process.run()
        output = fdopen(pipe.fileHandleForReading.fileDescriptor, "r")
    }

    func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }

    func receive() throws -> [Int] {
        var line: UnsafeMutablePointer<CChar>?, capacity = 0
        defer { free(line) }
        guard getline(&line, &capacity, output) > 0 else { throw Failure(description: "a worker process ended") }
        let text = String(cString: line!).trimmingCharacters(in: .newlines)
        if text.hasPrefix("error") { throw Failure(description: text) }
        return text.split(separator: " ").compactMap { Int($0) }
    }

    func finish() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// The worker's side: `kind op bytes limit index folder`. A floor worker keeps a FIFO of its own, so
    /// it holds half the limit, and fills its half first; the others use what the benchmark filled.
    static func serve(_ arguments: String) throws -> Never {
        let fields = arguments.split(separator: "\t").map(String.init)
        guard fields.count == 6, let kind = Kind(rawValue: fields[0]), let op = Op(rawValue: fields[1]),
              let bytes = Int(fields[2]), let limit = Int64(fields[3]), let index = Int(fields[4]) else {
            throw Failure(description: "bad worker arguments \(arguments)")
        }
        let data = Data(repeating: UInt8(index + 1), count: bytes), prefix = "p\(index)-"
        let subject = try makeSubject(kind, folder: fields[5], limit: kind == .floor ? limit / 2 : limit)
        var keys = fillKeys("fill-", limit: limit, bytes: bytes)
        if kind == .floor {
            keys = fillKeys(prefix + "fill-", limit: limit / 2, bytes: bytes)
            for key in keys { try subject.set(data, for: key) }
        }
        let hot = hotKeys(subject, keys, limit: limit, bytes: bytes)
        func answer(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
        answer("ready")
        while let fields = readLine()?.split(separator: " ").compactMap({ Int($0) }), fields.count == 2 {
            do {
                answer(try batch(subject, op, data, hot, prefix, fields[0], fields[1]).map(String.init).joined(separator: " "))
            } catch {
                answer("error: \(error)")
            }
        }
        exit(0)
    }
}

/// One benchmark: a subject filled to its limit (or the worker processes), and what an iteration does.
final class Run: @unchecked Sendable {
    let name: String, folder: String, op: Op, data: Data, limit: Int64, threads: Int
    var subject: (any Subject)?, workers: [Worker] = [], hot: [String] = [], next = 0, failed = 0

    init(_ name: String, _ kind: Kind, _ op: Op, bytes: Int, limit: Int64, threads: Int, processes: Bool) throws {
        folder = try FileSystem.makeScratchFolder("stowage-cache-bench") + "/cache"
        (self.name, self.op, self.limit, self.threads) = (name, op, limit, threads)
        data = Data((0 ..< bytes).map { _ in UInt8.random(in: 0 ... 255) })
        let subject = try makeSubject(kind, folder: folder, limit: limit, memoryCapacityBytes: op == .memoryHit ? Int(limit) : 0)
        let keys = fillKeys("fill-", limit: limit, bytes: bytes)
        if !processes || kind != .floor {  // floor workers fill halves of their own
            for key in keys { try subject.set(data, for: key) }
        }
        if processes {
            workers = try (0 ..< threads).map { try Worker([kind.rawValue, op.rawValue, "\(bytes)", "\(limit)", "\($0)", folder]) }
            for worker in workers { _ = try worker.receive() }
        } else {
            (self.subject, hot) = (subject, hotKeys(subject, keys, limit: limit, bytes: bytes))
            for key in hot where op == .memoryHit { _ = try subject.get(key) }  // into the memory tier
        }
        sync()  // so that no writeback of the fill falls in the measurements
    }

    func iterate(_ benchmark: Benchmark) throws {
        if let subject, threads == 1 {
            let key = key(op, "", next, hot)
            next += 1
            benchmark.startMeasurement()
            try perform(subject, op, data, key)
            benchmark.stopMeasurement()
            if op == .set, next % 100 == 0 { try measureAllocated(benchmark) }
            return
        }
        let each = (op == .set ? 100 : 4_000) / threads, first = next, start = nanos()
        var latencies: [Int] = []
        if let subject {
            final class Results: @unchecked Sendable { let lock = NSLock(); var all: [Int] = [], error: (any Error)? }
            let results = Results(), group = DispatchGroup(), (op, data, hot) = (op, data, hot)
            for thread in 0 ..< threads {
                group.enter()
                Thread {
                    do {
                        let part = try batch(subject, op, data, hot, "t\(thread)-", first + thread * 997, each)
                        results.lock.withLock { results.all += part }
                    } catch {
                        results.lock.withLock { results.error = error }
                    }
                    group.leave()
                }.start()
            }
            group.wait()
            if let error = results.error { throw error }
            latencies = results.all
        } else {
            for worker in workers { worker.send("\(first) \(each)") }
            for worker in workers { latencies += try worker.receive() }
        }
        let elapsed = nanos() - start
        next += each
        benchmark.measurement(operationsPerSecond, latencies.count * 1_000_000_000 / elapsed)
        for nanoseconds in latencies { benchmark.measurement(latency, abs(nanoseconds)) }
        failed += latencies.filter { $0 < 0 }.count
        if op == .set { try measureAllocated(benchmark) }
    }

    func measureAllocated(_ benchmark: Benchmark) throws {
        benchmark.measurement(allocated, try FileSystem.allocatedBytesOfFiles(in: folder) * 1000 / Int(limit))
    }

    func finish() throws {
        for worker in workers { worker.finish() }
        if failed > 0 { printError("note: \(name): \(failed) of \(next * threads) sets failed") }
        try FileSystem.remove(URL(filePath: folder).deletingLastPathComponent().path(percentEncoded: false))
    }
}

let benchmarks: @Sendable () -> Void = {
    if let arguments = ProcessInfo.processInfo.environment["STOWAGE_CACHE_WORKER"] {
        do { try Worker.serve(arguments) } catch { print("error: \(error)"); exit(1) }
    }
    let units = Dictionary(uniqueKeysWithValues: [BenchmarkMetric.throughput, operationsPerSecond, latency, allocated]
        .map { ($0, BenchmarkUnits.count) })
    for size in sizes {
        for op in Op.allCases {
            for mode in modes {
                for kind in Kind.allCases where op != .memoryHit || (kind == .stowage && !mode.processes) {
                    var metrics: [BenchmarkMetric] = mode.count == 1 ? [.wallClock, .throughput] : [operationsPerSecond, latency]
                    if op == .set { metrics.append(allocated) }
                    let name = "\(size.name) \(op.label), \(mode.name): \(kind.rawValue)"
                    var run: Run?
                    Benchmark(name,
                              configuration: .init(metrics: metrics, timeUnits: .nanoseconds, units: units, warmupIterations: 1,
                                                   maxDuration: op == .set ? .seconds(1) : .milliseconds(500),
                                                   maxIterations: 10_000_000),
                              closure: { benchmark in try run!.iterate(benchmark) },
                              setup: {
                                  run = try Run(name, kind, op, bytes: size.bytes, limit: size.limit, threads: mode.count,
                                                processes: mode.processes)
                              },
                              teardown: { try run?.finish() })
                }
            }
        }
    }
}
