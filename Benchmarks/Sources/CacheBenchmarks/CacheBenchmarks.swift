import BenchmarkSupport
import Foundation

/// `CacheBenchmarks`: Stowage's DiskCache beside the floor and Kingfisher's approach in Foundation.
@main
struct CacheBenchmarks {
    static let usage = """
        USAGE: CacheBenchmarks [--directory <path>] [--json] [--quick] [--memory]

        Times Stowage's DiskCache, the floor (bare system calls) and Kingfisher's DiskStorage approach in
        Foundation for 1 KB, 100 KB and 1 MB entries: set at the limit (every set evicts), get hits and misses;
        on 1 thread, 4 threads (one shared instance) and 2 processes (an instance each) on one folder.

          --directory <path>  Work in a fresh folder inside <path>, removed at the end (default: the system
                              temporary directory).
          --json              JSON on standard output; the tables go to standard error.
          --quick             Short runs (about 20 s in all; rough figures).
          --memory            Add "get hit (memory tier)" (the memory tier on, with the size limit as its capacity).
        """
    /// Entry sizes and their limits (allocated bytes): about 1,000 entries of 1 KB, 160 of 100 KB, 64 of 1 MB.
    static let sizes: [(bytes: Int, limit: Int64)] = [(1_000, 4 << 20), (100_000, 16 << 20), (1_000_000, 64 << 20)]
    static let modes: [(label: String, threads: Int)] = [("1 thread", 1), ("4 threads", 4), ("2 processes", 2)]

    struct Options { var directory: String?, json = false, quick = false, memory = false }

    /// The figures of one subject for one entry size, mode and operation.
    struct Cell: Codable {
        var entryBytes: Int, mode: String, operation: String, kind: Kind, operations: Int, seconds: Double
        var opsPerSecond: Double, megabytesPerSecond: Double, p50Microseconds: Double, p99Microseconds: Double
        var errors: Int, wrong: Int, firstError: String?, limit: Int64, allocatedAfterRun: Int64?  // for sets
    }

    static func main() {
        if CommandLine.arguments.dropFirst().first == "--worker" {
            do { try Workers.serve(Array(CommandLine.arguments.dropFirst(2))) } catch { printError("\(error)"); exit(1) }
            exit(0)
        }
        let options: Options = commandLineOptions(usage: usage) { arguments in
            var options = Options(), remaining = arguments[...]
            while let argument = remaining.popFirst() {
                switch argument {
                case "-h", "--help": return nil
                case "--json": options.json = true
                case "--quick": options.quick = true
                case "--memory": options.memory = true
                case "--directory":
                    options.directory = try remaining.popFirst() ?? { throw UsageError("--directory needs a path") }()
                default: throw UsageError("unknown argument '\(argument)'")
                }
            }
            return options
        }
        let parent = options.directory ?? FileManager.default.temporaryDirectory.path(percentEncoded: false)
        let scratch = absolutePath(parent) + "/stowage-cache-bench-" + String(UInt64.random(in: 1 ... .max), radix: 16)
        let interrupts = [SIGINT, SIGTERM].map { number in  // remove the folder when interrupted
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { try? FileSystem.remove(scratch); exit(128 + number) }
            source.resume()
            return source
        }
        var status: Int32 = 0
        do {
            try FileSystem.makeFolder(scratch)
            try run(options, in: scratch)
        } catch {
            printError("error: \(error)")
            status = 1
        }
        interrupts.forEach { $0.cancel() }
        try? FileSystem.remove(scratch)
        exit(status)
    }

    static func run(_ options: Options, in scratch: String) throws {
        let began = nanos(), (setSeconds, getSeconds) = options.quick ? (0.2, 0.08) : (1.5, 0.6)
        let fileSystem = fileSystemType(scratch)
        printError("Working folder: \(scratch) (\(fileSystem))")
        var cells: [Cell] = [], notes: [String] = []

        /// Times `op` on each driver, in three rounds (each kind goes first in one), and records the figures.
        func measure(_ drivers: [Kind: Driver], _ op: Op, _ size: Int, _ limit: Int64, _ mode: String,
                     folders: [Kind: String]? = nil) throws {
            let kinds = Kind.allCases.filter { drivers[$0] != nil }, seconds = op == .set ? setSeconds : getSeconds
            var runs: [Kind: (result: PhaseResult, seconds: Double)] = [:]
            for round in 0..<3 {
                for kind in kinds[(round % kinds.count)...] + kinds[..<(round % kinds.count)] {
                    sync()  // so that no writeback of an earlier run falls in this one
                    let start = nanos() + 20_000_000
                    let result = try drivers[kind]!.run(op, start: start, deadline: start + UInt64(seconds / 3 * 1e9))
                    runs[kind] = (.merge([runs[kind]?.result ?? PhaseResult(), result]),
                                  (runs[kind]?.seconds ?? 0) + Double(result.end - result.start) / 1e9)
                }
            }
            for kind in kinds {
                let (result, elapsed) = runs[kind]!, sorted = result.latencies.sorted(), count = sorted.count
                let percentile = { (p: Double) in Double(sorted[min(count - 1, Int(p * Double(count)))]) / 1e3 }
                cells.append(Cell(entryBytes: size, mode: mode, operation: op.label, kind: kind, operations: count,
                                  seconds: elapsed, opsPerSecond: Double(count) / elapsed,
                                  megabytesPerSecond: Double(count * size) / elapsed / 1e6, p50Microseconds: percentile(0.5),
                                  p99Microseconds: percentile(0.99), errors: result.errors, wrong: result.wrong,
                                  firstError: result.firstError, limit: limit,
                                  allocatedAfterRun: try folders.map { try allocatedBytes($0[kind]!) }))
            }
        }

        for (size, limit) in sizes {
            let data = Data((0..<size).map { _ in UInt8.random(in: 0 ... 255) })
            let folders = Dictionary(uniqueKeysWithValues: Kind.allCases.map { ($0, scratch + "/\($0)-\(size)") })
            var subjects: [Kind: any Subject] = [:]
            for kind in Kind.allCases {
                printError("\(label(size)): filling \(kind) to \(binary(Int(limit)))")
                subjects[kind] = try makeSubject(kind, folder: folders[kind]!, limit: limit)
                try fill(subjects[kind]!, data: data, limit: limit, prefix: "fill-")
            }
            for mode in modes {
                let hot = max(1, Int(0.4 * Double(limit) / Double(allocation(size))) / mode.threads)
                var drivers: [Kind: Driver] = [:]
                for kind in Kind.allCases where mode.label.hasSuffix("processes") {
                    if kind == .floor { try FileSystem.remove(folders[kind]!) }  // its workers fill a half each
                    drivers[kind] = try Workers(2) { [kind.rawValue, folders[kind]!, "\(size)", "\(limit)", "\($0)",
                                                      "\(hot)"] }
                }
                for kind in Kind.allCases where drivers[kind] == nil {
                    drivers[kind] = LocalRunner(subjects[kind]!, threads: mode.threads, prefix: "\(mode.threads)t-",
                                                data: data, hot: hot)
                }
                for op in [Op.set, .hit, .miss] {
                    printError("\(label(size)), \(mode.label): \(op.label)")
                    if op == .hit { try drivers.values.forEach { try $0.prepare() } }
                    try measure(drivers, op, size, limit, mode.label, folders: op == .set ? folders : nil)
                }
                for case let workers as Workers in drivers.values { workers.finish() }
                guard options.memory, let disk = drivers[.stowage] as? LocalRunner else { continue }
                do {
                    let cache = try makeStowageCache(folder: URL(filePath: folders[.stowage]!), limit: limit,
                                                     memoryCapacity: Int(limit))
                    let runner = LocalRunner(cache, threads: mode.threads, prefix: disk.prefix, data: data,
                                             hot: hot)
                    runner.hotKeys = disk.hotKeys
                    _ = runner.run(.memoryHit, start: nanos(), deadline: nanos() + 50_000_000)  // fills the tier
                    try measure([.stowage: runner], .memoryHit, size, limit, mode.label)
                } catch {
                    notes.append("get hit (memory tier), \(label(size)), \(mode.label): \(error)")
                }
            }
            for folder in folders.values { try FileSystem.remove(folder) }
        }
        let report = Report(folder: scratch, fileSystem: fileSystem, quick: options.quick, setSeconds: setSeconds,
                            getSeconds: getSeconds, totalSeconds: Double(nanos() - began) / 1e9, cells: cells,
                            notes: notes)
        if options.json {
            printError(report.table())
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            encoder.keyEncodingStrategy = .convertToSnakeCase
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(report.table())
        }
    }

    static func label(_ size: Int) -> String { size >= 1_000_000 ? "\(size / 1_000_000) MB" : "\(size / 1_000) KB" }

    /// `stat -f -c %T <path>`: the type of the file system.
    static func fileSystemType(_ path: String) -> String {
        let process = Process(), pipe = Pipe()
        (process.executableURL, process.arguments) = (URL(filePath: "/usr/bin/stat"), ["-f", "-c", "%T", path])
        process.standardOutput = pipe
        guard (try? process.run()) != nil else { return "unknown file system" }
        defer { process.waitUntilExit() }
        return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A run's figures, as tables or JSON. Ratios are of time per operation (the inverse of throughput):
/// Stowage/floor (1.00x: as fast as the floor) and Foundation/Stowage (how many times slower it is).
struct Report: Encodable {
    struct Row: Encodable {
        var entryBytes: Int, mode: String, operation: String, stowageOverFloor: Double?
        var foundationOverStowage: Double?, target: String, result: String?
    }

    var folder: String, fileSystem: String, quick: Bool, setSeconds: Double, getSeconds: Double, totalSeconds: Double
    var cells: [CacheBenchmarks.Cell], notes: [String], rows: [Row] = []

    init(folder: String, fileSystem: String, quick: Bool, setSeconds: Double, getSeconds: Double,
         totalSeconds: Double, cells: [CacheBenchmarks.Cell], notes: [String]) {
        (self.folder, self.fileSystem, self.quick, self.cells, self.notes) = (folder, fileSystem, quick, cells, notes)
        (self.setSeconds, self.getSeconds, self.totalSeconds) = (setSeconds, getSeconds, totalSeconds)
        rows = cells.filter { $0.kind == .stowage }.map(row)
    }

    /// The cell of `kind` for the entry size and mode of `cell`, and its operation or `operation`.
    func cell(_ kind: Kind, like cell: CacheBenchmarks.Cell, _ operation: String? = nil) -> CacheBenchmarks.Cell? {
        cells.first { $0.kind == kind && $0.entryBytes == cell.entryBytes && $0.mode == cell.mode
            && $0.operation == (operation ?? cell.operation) }
    }

    func row(_ stowage: CacheBenchmarks.Cell) -> Row {
        let isSet = stowage.operation == Op.set.label, memory = stowage.operation == Op.memoryHit.label
        let overFloor = cell(.floor, like: stowage, memory ? Op.hit.label : nil).map { $0.opsPerSecond / stowage.opsPerSecond }
        let foundationOver = memory ? nil : cell(.foundation, like: stowage).map { stowage.opsPerSecond / $0.opsPerSecond }
        let passed = overFloor.map { $0 <= (isSet ? 1.5 : 1.3) && (!isSet || (foundationOver ?? 0) >= 3) }
        return Row(entryBytes: stowage.entryBytes, mode: stowage.mode, operation: stowage.operation,
                   stowageOverFloor: overFloor, foundationOverStowage: foundationOver,
                   target: isSet ? "S/floor <= 1.5, F/S >= 3" : "S/floor <= 1.3",
                   result: passed.map { $0 ? "PASS" : "MISS" })
    }

    func table() -> String {
        func ratio(_ value: Double?) -> String { value.map { fixed($0, 2) + "x" } ?? "-" }
        func micro(_ value: Double) -> String { value < 1000 ? fixed(value, 1) + "us" : fixed(value / 1000, 2) + "ms" }
        func held(_ cell: CacheBenchmarks.Cell) -> String {
            let allocated = cell.allocatedAfterRun ?? 0, over = Double(allocated - cell.limit) * 100 / Double(cell.limit)
            return binary(Int(allocated)) + (over <= 0 ? " held" : " OVER +" + fixed(over, 1) + "%")
        }
        var throughput: [[String]] = [], latency: [[String]] = [], limits: [[String]] = []
        func speed(_ cell: CacheBenchmarks.Cell) -> String {
            "\(grouped(Int(cell.opsPerSecond)))/s \(fixed(cell.megabytesPerSecond, 1)) MB/s"
        }
        for (row, stowage) in zip(rows, cells.filter { $0.kind == .stowage }) {
            let all = Kind.allCases.map { cell($0, like: stowage) }
            let lead = [CacheBenchmarks.label(row.entryBytes), row.mode, row.operation]
            throughput.append(lead + all.map { $0.map(speed) ?? "-" } + [ratio(row.stowageOverFloor),
                              ratio(row.foundationOverStowage), row.target, row.result ?? "-"])
            latency.append(lead + all.map { $0.map { micro($0.p50Microseconds) + " / " + micro($0.p99Microseconds) } ?? "-" })
            guard stowage.allocatedAfterRun != nil else { continue }
            limits.append(lead[..<2] + [binary(Int(stowage.limit))] + all.map { $0.map(held) ?? "-" })
        }
        let names = ["Stowage", "floor", "Foundation"], results = rows.compactMap(\.result)
        var lines = ["Stowage DiskCache benchmarks" + (quick ? " (--quick: rough figures)" : ""),
                     "Working folder: \(folder) (file system: \(fileSystem))",
                     "Limits: 4 MiB for 1 KB entries, 16 MiB for 100 KB, 64 MiB for 1 MB. Each run starts at the limit and",
                     "sets new keys, so each set evicts (the floor a FIFO; Stowage and Foundation sweep to 80%). Runs of",
                     "\(fixed(setSeconds, 2)) s (set), \(fixed(getSeconds, 2)) s (get). 4 threads share one instance; 2 processes have one each",
                     "(the floor's a FIFO each, at half the limit). Foundation's .atomic write fsyncs on Linux.",
                     "", "Throughput (ops/s, MB/s of entry data); S/floor, F/S: ratios of time per operation"]
        lines += layout(["Entry", "Mode", "Operation"] + names + ["S/floor", "F/S", "Target", "Result"], throughput)
        lines += ["", "Latency per operation, p50 / p99"] + layout(["Entry", "Mode", "Operation"] + names, latency)
        lines += ["", "Allocated bytes after each set run (all regular files, st_blocks x 512)"]
        lines += layout(["Entry", "Mode", "Limit"] + names, limits)
        for cell in cells where cell.errors > 0 || cell.wrong > 0 {
            lines.append("note: \(cell.kind), \(CacheBenchmarks.label(cell.entryBytes)), \(cell.mode), \(cell.operation): "
                         + "\(cell.errors) errors, \(cell.wrong) wrong answers"
                         + (cell.firstError.map { "; first error: " + $0.prefix(150) } ?? ""))
        }
        lines += notes.map { "note: " + $0 }
        lines += ["", "Total time: \(fixed(totalSeconds, 1)) s; \(results.filter { $0 == "MISS" }.count) of \(results.count) "
                  + "targets missed (a report, not a test: the exit status stays 0)."]
        return lines.joined(separator: "\n")
    }

    /// Left-aligned columns under a header and a rule.
    private func layout(_ header: [String], _ rows: [[String]]) -> [String] {
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ fields: [String]) -> String {
            zip(fields, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .replacingOccurrences(of: " +$", with: "", options: .regularExpression)
        }
        return [line(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")] + rows.map(line)
    }
}
