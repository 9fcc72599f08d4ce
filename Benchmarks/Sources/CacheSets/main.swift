import Foundation
import Stowage

// Sets into one DiskCache folder, for counting what a set costs (system calls with `strace -c -f`,
// instructions with `perf stat`), which load does not move, where the benchmark's figures do:
//   CacheSets fill FOLDER BYTES LIMIT                 fills the folder a little past LIMIT (so that sets evict)
//   CacheSets set FOLDER BYTES LIMIT THREADS COUNT    COUNT sets of new keys on each of THREADS threads sharing
//                                                     one instance (the memory tier off); prints sets per second
// Two processes: run two `set`s at once on one folder (keys carry the process ID).
let arguments = CommandLine.arguments
guard arguments.count >= 5, let bytes = Int(arguments[3]), let limit = Int64(arguments[4]) else {
    FileHandle.standardError.write(Data("usage: CacheSets fill|set FOLDER BYTES LIMIT [THREADS COUNT]\n".utf8))
    exit(64)
}
let cache = try DiskCache(folder: URL(filePath: arguments[2], directoryHint: .isDirectory),
                          limits: DiskCache.Limits(maximumAllocatedBytes: limit, memoryCapacityBytes: 0))
let data = Data((0 ..< bytes).map { UInt8(truncatingIfNeeded: $0 &* 31) })
if arguments[1] == "fill" {
    for index in 0 ... Int(limit) * 11 / 10 / ((bytes + 100 + 4095) / 4096 * 4096) { try cache.set(data, for: "fill-\(index)") }
    exit(0)
}
guard arguments.count == 7, let threads = Int(arguments[5]), let count = Int(arguments[6]) else { exit(64) }
let process = ProcessInfo.processInfo.processIdentifier
let start = Date()
// Threads of their own, as the benchmark's (`concurrentPerform` runs no more at once than there are cores).
let done = DispatchGroup()
for thread in 0 ..< threads {
    done.enter()
    Thread {
        for index in 0 ..< count { try! cache.set(data, for: "p\(process)-t\(thread)-\(index)") }
        done.leave()
    }.start()
}
done.wait()
let seconds = Date().timeIntervalSince(start)
print(String(format: "%d sets in %.3f s: %.0f sets/s", threads * count, seconds, Double(threads * count) / seconds))
