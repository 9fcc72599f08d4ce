import BenchmarkSupport
import Foundation

enum Op: String, Codable {
    case set, hit, miss, memoryHit
    var label: String {
        ["set": "set (evicts)", "hit": "get hit", "miss": "get miss", "memoryHit": "get hit (memory tier)"][rawValue]!
    }
}

/// CLOCK_MONOTONIC in nanoseconds: one clock for every thread and process.
func nanos() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// What a run did, on one thread or merged over several: a latency per operation (ns), errors and
/// wrong answers (a hit that missed, a miss that hit).
struct PhaseResult: Codable {
    var latencies: [UInt64] = [], start: UInt64 = .max, end: UInt64 = 0, errors = 0, wrong = 0, firstError: String?

    static func merge(_ parts: [PhaseResult]) -> PhaseResult {
        parts.reduce(into: PhaseResult()) { all, part in
            (all.latencies, all.start, all.end) = (all.latencies + part.latencies, min(all.start, part.start),
                                                   max(all.end, part.end))
            (all.errors, all.wrong) = (all.errors + part.errors, all.wrong + part.wrong)
            all.firstError = all.firstError ?? part.firstError
        }
    }
}

/// Runs an operation over and over, on all its threads or processes, from `start` to `deadline`.
protocol Driver {
    func prepare() throws
    func run(_ op: Op, start: UInt64, deadline: UInt64) throws -> PhaseResult
}

/// One subject on `threads` threads of this process, each with keys of its own: `<prefix>t<thread>-<n>`.
final class LocalRunner: Driver, @unchecked Sendable {
    let subject: any Subject, threads: Int, prefix: String, data: Data, hot: Int
    var sets: [Int], hotKeys: [[String]]  // changed between runs only

    init(_ subject: any Subject, threads: Int, prefix: String, data: Data, hot: Int) {
        (self.subject, self.threads, self.prefix, self.data, self.hot) = (subject, threads, prefix, data, hot)
        (sets, hotKeys) = (Array(repeating: 0, count: threads), Array(repeating: [], count: threads))
    }

    /// Finds, untimed, the `hot` latest keys of each thread still in the cache: what hits read.
    func prepare() {
        hotKeys = (0..<threads).map { thread in
            stride(from: sets[thread] - 1, through: 0, by: -1).lazy.map { self.prefix + "t\(thread)-\($0)" }
                .filter { (try? self.subject.get($0)) == self.data.count }.prefix(hot).map { $0 }
        }
    }

    func run(_ op: Op, start: UInt64, deadline: UInt64) -> PhaseResult {
        final class Parts: @unchecked Sendable { let lock = NSLock(); var results: [Int: PhaseResult] = [:] }
        let parts = Parts(), group = DispatchGroup(), sets = self.sets, hotKeys = self.hotKeys
        for thread in 0..<threads {
            group.enter()
            Thread {
                let result = self.loop(op, thread, sets[thread], hotKeys[thread], start, deadline)
                parts.lock.withLock { parts.results[thread] = result }
                group.leave()
            }.start()
        }
        group.wait()
        let results = (0..<threads).map { parts.results[$0]! }
        if op == .set { self.sets = zip(sets, results).map { $0 + $1.latencies.count } }
        return .merge(results)
    }

    /// At least one operation; each set is of a new key.
    private func loop(_ op: Op, _ thread: Int, _ sets: Int, _ hot: [String], _ start: UInt64, _ deadline: UInt64)
        -> PhaseResult {
        var result = PhaseResult(), index = 0, now: UInt64 = 0
        while nanos() < start { usleep(50) }
        repeat {
            let key = op == .set ? prefix + "t\(thread)-\(sets + index)"
                : op == .miss ? prefix + "t\(thread)-miss-\(index)" : hot.isEmpty ? "none" : hot[index % hot.count]
            let before = nanos()
            do {
                if op == .set { try subject.set(data, for: key) }
                else if try subject.get(key) != (op == .miss ? nil : data.count) { result.wrong += 1 }
            } catch {
                (result.errors, result.firstError) = (result.errors + 1, result.firstError ?? "\(error)")
            }
            now = nanos()
            result.latencies.append(now - before)
            index += 1
        } while now < deadline
        (result.start, result.end) = (start, now)
        return result
    }
}

/// Copies of this program started with `--worker`, one subject on one thread each, driven by lines
/// on their standard input ("prepare", or "<op> <start> <deadline>"), each answered with a line of JSON.
struct Workers: Driver {
    let processes: [(process: Process, input: Pipe, output: UnsafeMutablePointer<FILE>)]

    init(_ count: Int, arguments: (Int) -> [String]) throws {
        processes = try (0..<count).map { index in
            let process = Process(), input = Pipe(), output = Pipe()
            (process.executableURL, process.arguments) = (Bundle.main.executableURL, ["--worker"] + arguments(index))
            (process.standardInput, process.standardOutput) = (input, output)
            try process.run()
            return (process, input, fdopen(output.fileHandleForReading.fileDescriptor, "r"))
        }
        _ = try ask("prepare")  // answered once the worker is ready
    }

    private func ask(_ line: String) throws -> PhaseResult {
        for worker in processes { worker.input.fileHandleForWriting.write(Data((line + "\n").utf8)) }
        return .merge(try processes.map { worker in
            var line: UnsafeMutablePointer<CChar>?, capacity = 0
            defer { free(line) }
            guard getline(&line, &capacity, worker.output) > 0 else { throw UsageError("a worker process failed") }
            return try JSONDecoder().decode(PhaseResult.self, from: Data(String(cString: line!).utf8))
        })
    }

    func prepare() throws { _ = try ask("prepare") }
    func run(_ op: Op, start: UInt64, deadline: UInt64) throws -> PhaseResult {
        try ask("\(op.rawValue) \(start) \(deadline)")
    }

    func finish() {
        for worker in processes { try? worker.input.fileHandleForWriting.close() }
        for worker in processes { worker.process.waitUntilExit() }
    }

    /// A worker's side: `--worker <kind> <folder> <size> <limit> <index> <hot>`. A floor worker keeps
    /// a FIFO of its own, so it holds half the limit, and fills its half first.
    static func serve(_ arguments: [String]) throws {
        guard arguments.count == 6, let kind = Kind(rawValue: arguments[0]), let size = Int(arguments[2]),
              let limit = Int64(arguments[3]), let index = Int(arguments[4]), let hot = Int(arguments[5]) else {
            throw UsageError("bad worker arguments \(arguments)")
        }
        let data = Data(repeating: UInt8(truncatingIfNeeded: index + 1), count: size)
        let subject = try makeSubject(kind, folder: arguments[1], limit: kind == .floor ? limit / 2 : limit)
        if kind == .floor { try fill(subject, data: data, limit: limit / 2, prefix: "p\(index)-fill-") }
        let runner = LocalRunner(subject, threads: 1, prefix: "p\(index)-", data: data, hot: hot)
        while let line = readLine() {
            let fields = line.split(separator: " ").map(String.init)
            var result = PhaseResult()
            if fields.count == 3, let op = Op(rawValue: fields[0]), let start = UInt64(fields[1]),
               let end = UInt64(fields[2]) {
                result = runner.run(op, start: start, deadline: end)
            } else if line == "prepare" {
                runner.prepare()
            } else {
                throw UsageError("bad worker command '\(line)'")
            }
            FileHandle.standardOutput.write(try JSONEncoder().encode(result) + Data("\n".utf8))
        }
    }
}

/// The space an entry takes: its bytes and a header of under 100 bytes, in 4 KiB blocks.
func allocation(_ size: Int) -> Int64 { Int64((size + 100 + 4095) / 4096 * 4096) }

/// Sets keys until a little past `limit`, so that the subject is at its limit and every set evicts.
func fill(_ subject: any Subject, data: Data, limit: Int64, prefix: String) throws {
    for index in 0...Int(Double(limit) * 1.1 / Double(allocation(data.count))) {
        try subject.set(data, for: prefix + "\(index)")
    }
}
