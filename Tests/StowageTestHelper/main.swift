// A child process for Stowage's tests: operations that must run in several processes at once,
// or be killed at a random moment.
//
//   stowage-test-helper append-values ROOT PATH COUNT TAG   appends COUNT {tag, index} values
//   stowage-test-helper append-data ROOT PATH COUNT TAG     appends COUNT files to a numbered folder
//   stowage-test-helper sweep FOLDER MAX-BYTES COUNT        sweeps FOLDER down to MAX-BYTES, COUNT times
//   stowage-test-helper sweep-until FOLDER MAX-BYTES STOP   sweeps FOLDER down to MAX-BYTES until the file STOP exists
//   stowage-test-helper cache-write FOLDER MAX-BYTES COUNT TAG
//                                       sets COUNT DiskCache entries TAG-0 ... (CacheWorkload data),
//                                       reading an earlier one back after each; exit 2 on wrong data
//   stowage-test-helper cache-set FOLDER MAX-BYTES MAX-COUNT COUNT TAG SIZE [MEMORY]
//                                       sets COUNT entries TAG-0 ... of SIZE bytes (0 for no limit; MEMORY
//                                       is the memory tier's capacity, 0 unless given); after each set the
//                                       entry files must be within the limits plus one entry (the change of
//                                       another process in progress): else exit 3; prints "peak BYTES FILES"
//   stowage-test-helper cache-get FOLDER KEY                prints the entry's data as UTF-8, or "miss"
//   stowage-test-helper cache-hits FOLDER COUNT             sets one entry, reads it COUNT times from the memory
//                                                           tier; prints the read system calls made meanwhile
//                                                           (syscr of /proc/self/io: reading it counts too)
//   stowage-test-helper cache-read-until FOLDER STOP        sets "hot", prints "ready", reads it (memory hits) until the
//                                                           file STOP exists, then 100 times more; exit 2 on a wrong
//                                                           value; prints "reads N"
//   stowage-test-helper cache-model-set FOLDER MAX-BYTES MAX-COUNT KEY VERSION SIZE
//                                       sets key "k<KEY>" to CacheModelValue (memory tier off); prints
//                                       "sweeps N" (the evictions it made)
//   stowage-test-helper cache-default NAME                  sets "k" in DiskCache(name:) and prints its folder
//   stowage-test-helper crash-loop ROOT                     the CrashWorkload, forever; prints "ready"
//                                                           once started, for a parent to kill it
//                                                           (or STOWAGE_TEST_FAULTS kills it at a step)
//   stowage-test-helper save-over ROOT PATH BYTES           saves BYTES bytes over the Documents file PATH,
//                                                           then prints "saved" or "error CODE DISPLAY-PATH"
//                                                           and the description, "unchanged N" or "changed N"
//                                                           (the file read back), and the folder's entries
//   stowage-test-helper trap-blocked                        blocks SIGTERM in every thread, sets a SignalTrap for it,
//                                                           prints "ready"; prints "caught" and exits 0 when the
//                                                           trap's handler runs, "not caught" (exit 4) after 2 min
//   stowage-test-helper store-save ROOT PATH BYTES          saves BYTES bytes of "n" over the Documents file PATH
//                                                           (exit 1 with the error, such as noSpace)
//   stowage-test-helper store-check-save ROOT PATH OLD NEW  exit 0 when the file holds OLD bytes of "o" or NEW bytes of
//                                                           "n" (NEW whenever STOWAGE_COMMAND_STATUS is 0) and its
//                                                           folder holds nothing else; else says what it found, exit 1
//   stowage-test-helper store-append ROOT PATH INDEX        appends {tag "range", INDEX} to the Documents array PATH
//   stowage-test-helper store-check-append ROOT PATH COUNT  exit 0 when the array decodes to its first COUNT values,
//                                                           or those and {range, COUNT} (always when
//                                                           STOWAGE_COMMAND_STATUS is 0); else exit 1
//   stowage-test-helper fill VOLUME BYTES forced|unforced   fills BYTES of VOLUME with a safety floor above
//                                                           anything; prints "filled N" or "error CODE" (exit 3)
//
// Sweeps print their reports' issues on standard output; errors go to standard error, exit 1.
import Foundation
import Stowage
import StowageTestSupport

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(status)
}

let arguments = Array(CommandLine.arguments.dropFirst())
func argument(_ index: Int) -> String {
    guard index < arguments.count else { fail("missing arguments; see the comment in main.swift", status: 64) }
    return arguments[index]
}
func number(_ index: Int) -> Int {
    guard let value = Int(argument(index)) else { fail("'\(argument(index))' is not a number", status: 64) }
    return value
}
func folderURL(_ index: Int) -> URL { URL(filePath: argument(index), directoryHint: .isDirectory) }
func store(_ index: Int) -> Store { Store(container: Container(root: folderURL(index))) }

func sweep(_ folder: URL, maximum: Int) throws {
    let report = try Sweeper(policy: SweepPolicy(maximumAllocatedBytes: Int64(maximum), lowWatermark: 1)).sweep(folder)
    if !report.issues.isEmpty { print(report.issues) }
}

/// The crash workload: overwrite a value, append to an array and a numbered folder, create an
/// array by appending, rename a file, each continuing from what the previous (killed) run left.
func crashLoop(_ store: Store) throws -> Never {
    func ifPresent<T>(_ body: () throws -> T) throws -> T? {
        do {
            return try body()
        } catch StowageError.notFound {
            return nil
        }
    }
    var generation = try ifPresent { try store.retrieve(CrashWorkload.Versioned.self, from: CrashWorkload.value, in: .documents) }?
        .generation ?? 0
    var next = try ifPresent { try store.retrieve([Int].self, from: CrashWorkload.sequence, in: .documents) }?.count ?? 0
    var frame = try ifPresent { try store.retrieveFolder(from: CrashWorkload.frames, in: .documents) }?.count ?? 0
    var (current, other) = CrashWorkload.renamed
    if try !store.exists(current, in: .documents) {
        if try store.exists(other, in: .documents) {
            swap(&current, &other)
        } else {
            try store.save(CrashWorkload.renamedContent, to: current, in: .documents)
        }
    }
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    while true {
        generation += 1
        try store.save(CrashWorkload.Versioned(generation: generation), to: CrashWorkload.value, in: .documents)
        try store.append(next, to: CrashWorkload.sequence, in: .documents)
        next += 1
        if try store.exists(CrashWorkload.created, in: .documents) { try store.remove(CrashWorkload.created, from: .documents) }
        try store.append(generation, to: CrashWorkload.created, in: .documents)
        if generation % 3 == 0 {
            try store.appendToFolder(Data("\(frame)".utf8), to: CrashWorkload.frames, in: .documents)
            frame += 1
        }
        try store.rename(current, to: other, in: .documents)
        swap(&current, &other)
    }
}

/// The main thread blocks SIGTERM before any other thread starts (none has at the top of
/// `main`), and the threads started later inherit the mask: a signal can then reach the trap only
/// through its waiting thread.
func trapWithEveryThreadBlocking() throws -> Never {
    var blocked = sigset_t()
    sigemptyset(&blocked)
    sigaddset(&blocked, SIGTERM)
    pthread_sigmask(SIG_BLOCK, &blocked, nil)
    let trap = try SignalTrap(signals: [SIGTERM]) {
        FileHandle.standardOutput.write(Data("caught\n".utf8))
        exit(0)
    }
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    Thread.sleep(forTimeInterval: 120)
    trap.cancel()
    FileHandle.standardOutput.write(Data("not caught\n".utf8))
    exit(4)
}

if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "trap-blocked" {
    do { try trapWithEveryThreadBlocking() } catch { fail("\(error)", status: 1) }
}

do {
    switch argument(0) {
    case "append-values":
        let (store, path, tag) = (store(1), argument(2), argument(4))
        for index in 0..<number(3) {
            try store.append(Tagged(tag: tag, index: index), to: path, in: .documents)
        }
    case "append-data":
        let (store, path, tag) = (store(1), argument(2), argument(4))
        for index in 0..<number(3) {
            try store.appendToFolder(Data("\(tag)-\(index)".utf8), to: path, in: .documents)
        }
    case "sweep":
        for _ in 0..<number(3) { try sweep(folderURL(1), maximum: number(2)) }
    case "sweep-until":
        while !FileManager.default.fileExists(atPath: argument(3)) { try sweep(folderURL(1), maximum: number(2)) }
    case "cache-write":
        let cache = try DiskCache(folder: folderURL(1), limits: DiskCache.Limits(maximumAllocatedBytes: Int64(number(2))))
        let tag = argument(4)
        for index in 0..<number(3) {
            let key = "\(tag)-\(index)"
            try cache.set(CacheWorkload.data(for: key), for: key)
            let probe = "\(tag)-\(Int.random(in: 0...index))"
            if let data = try cache.data(for: probe), data != CacheWorkload.data(for: probe) {
                fail("entry \(probe) holds \(data.count) wrong bytes", status: 2)
            }
        }
    case "cache-set":
        let (maximumBytes, maximumCount, size) = (number(2), number(3), number(6))
        let limits = DiskCache.Limits(maximumAllocatedBytes: maximumBytes > 0 ? Int64(maximumBytes) : nil,
                                      maximumCount: maximumCount > 0 ? maximumCount : nil,
                                      memoryCapacityBytes: arguments.count > 7 ? number(7) : 0)
        let cache = try DiskCache(folder: folderURL(1), limits: limits)
        let block = Int64((size + 4095) / 4096 * 4096 + 4096)  // an entry: its data, the header, rounded to blocks
        var peak: (bytes: Int64, files: Int) = (0, 0)
        for index in 0..<number(4) {
            try cache.set(Data(repeating: UInt8(index % 251), count: size), for: "\(argument(5))-\(index)")
            let (files, bytes) = try CacheFolder.entries(in: folderURL(1))
            peak = (max(peak.bytes, bytes), max(peak.files, files))
            if maximumBytes > 0 && bytes > Int64(maximumBytes) + block || maximumCount > 0 && files > maximumCount + 1 {
                fail("over the limits after a set: \(bytes) bytes in \(files) entries", status: 3)
            }
        }
        print("peak \(peak.bytes) \(peak.files)")
    case "cache-get":
        let cache = try DiskCache(folder: folderURL(1), limits: DiskCache.Limits(memoryCapacityBytes: 0))
        print(try cache.data(for: argument(2)).map { String(decoding: $0, as: UTF8.self) } ?? "miss")
    case "cache-hits":
        let cache = try DiskCache(folder: folderURL(1))
        try cache.set(Data("hot".utf8), for: "hot")
        _ = try cache.data(for: "hot")
        let before = try CacheFolder.readCalls()
        for _ in 0..<number(2) where try cache.data(for: "hot") != Data("hot".utf8) { fail("a wrong hit", status: 2) }
        print(try CacheFolder.readCalls() - before)
    case "simulated-install":
        // Process-wide simulated figures, nested and removed: what a volume query of `argument(1)`
        // reports at each step, a line each (in a process of its own, so no other test sees them).
        let folder = URL(filePath: argument(1), directoryHint: .isDirectory)
        func report() throws {
            let capacity = try VolumeCapacity.forVolume(containing: folder)
            print(capacity.isSimulated ? String(capacity.availableBytes) : "real")
        }
        let outer = SimulatedCapacity.install(available: 5_000)
        let inner = SimulatedCapacity.install(available: 1_000)
        try report()
        inner.remove()
        try report()
        outer.remove()
        outer.remove()
        try report()
    case "simulated-order":
        // Which figures win, in the documented order: a task's over the process's, the
        // process's over the environment's (STOWAGE_SIMULATED_AVAILABLE, set by the test).
        let folder = URL(filePath: argument(1), directoryHint: .isDirectory)
        func report() throws {
            let capacity = try VolumeCapacity.forVolume(containing: folder)
            print(capacity.isSimulated ? String(capacity.availableBytes) : "real")
        }
        try report()
        let installed = SimulatedCapacity.install(available: 5_000)
        try report()
        try SimulatedCapacity.withFigures(available: 2_000) { try report() }
        installed.remove()
        try SimulatedCapacity.withFigures(available: 3_000) { try report() }
        try report()
    case "cache-read-until":
        let cache = try DiskCache(folder: folderURL(1))
        try cache.set(Data("hot".utf8), for: "hot")
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        var reads = 0
        func readOnce() throws {
            reads += 1
            if try cache.data(for: "hot") != Data("hot".utf8) { fail("a wrong value for hot", status: 2) }
            if cache.count < 0 || cache.allocatedBytes < 0 { fail("a negative figure", status: 2) }
        }
        while !FileManager.default.fileExists(atPath: argument(2)) { try readOnce() }
        for _ in 0..<100 { try readOnce() }
        print("reads \(reads)")
    case "cache-model-set":
        let limits = DiskCache.Limits(maximumAllocatedBytes: Int64(number(2)), maximumCount: number(3), memoryCapacityBytes: 0)
        let cache = try DiskCache(folder: folderURL(1), limits: limits)
        try cache.set(CacheModelValue.data(key: number(4), version: number(5), size: number(6)), for: "k\(number(4))")
        print("sweeps \(cache.sweepCount)")
    case "cache-default":
        let cache = try DiskCache(name: argument(1))
        try cache.set(Data("v".utf8), for: "k")
        print(cache.folder.path(percentEncoded: false))
    case "crash-loop":
        try crashLoop(store(1))
    case "save-over":
        let (store, path, count) = (store(1), argument(2), number(3))
        let before = try store.retrieve(Data.self, from: path, in: .documents)
        do {
            try store.save(Data(repeating: 0x5A, count: count), to: path, in: .documents)
            print("saved")
        } catch let error as StowageError {
            print("error \(error.code) \(error.displayPath ?? "-")")
            print(error.description)
        }
        let after = try store.retrieve(Data.self, from: path, in: .documents)
        print(after == before ? "unchanged \(after.count)" : "changed \(after.count)")
        let folder = try store.url(for: path, in: .documents).deletingLastPathComponent()
        print("entries: " + (try FileManager.default.contentsOfDirectory(atPath: folder.path(percentEncoded: false))).sorted().joined(separator: " "))
    case "store-save":
        try store(1).save(Data(repeating: UInt8(ascii: "n"), count: number(3)), to: argument(2), in: .documents)
    case "store-check-save":
        let (store, path) = (store(1), argument(2))
        let data = try store.retrieve(Data.self, from: path, in: .documents)
        let isOld = data == Data(repeating: UInt8(ascii: "o"), count: number(3))
        let isNew = data == Data(repeating: UInt8(ascii: "n"), count: number(4))
        let folder = try store.url(for: path, in: .documents).deletingLastPathComponent()
        let entries = try FileManager.default.contentsOfDirectory(atPath: folder.path(percentEncoded: false)).sorted()
        let saved = ProcessInfo.processInfo.environment["STOWAGE_COMMAND_STATUS"] == "0"
        guard isNew || (isOld && !saved) else {
            fail("the file holds \(isOld ? "the old content after a save that said it succeeded" : "neither version (\(data.count) bytes)")",
                 status: 1)
        }
        guard entries == [URL(filePath: path).lastPathComponent] else { fail("the folder holds \(entries)", status: 1) }
    case "store-append":
        try store(1).append(Tagged(tag: "range", index: number(3)), to: argument(2), in: .documents)
    case "store-check-append":
        let count = number(3)
        let values = try store(1).retrieve([Tagged].self, from: argument(2), in: .documents)
        let saved = ProcessInfo.processInfo.environment["STOWAGE_COMMAND_STATUS"] == "0"
        let before = (0..<count).map { Tagged(tag: "before", index: $0) }
        guard values == before + [Tagged(tag: "range", index: count)] || (values == before && !saved) else {
            fail("the array holds \(values.count) values, not the \(count) before\(saved ? " and the one appended" : ", or those and one more")",
                 status: 1)
        }
    case "fill":
        let plan = FillPlan(volume: folderURL(1), goal: .consuming(Int64(number(2))), safetyFloorBytes: .max,
                            isForced: argument(3) == "forced")
        do {
            print("filled \(try Filler(plan: plan).fill().filledBytes)")
        } catch let error as StowageError {
            print("error \(error.code)")
            exit(3)
        }
    default:
        fail("unknown command \(argument(0))", status: 64)
    }
} catch {
    fail("\(error)", status: 1)
}
