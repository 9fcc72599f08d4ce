// A child process for Stowage's tests: operations that must run in several processes at once.
//
//   stowage-test-helper append-values ROOT PATH COUNT TAG   appends COUNT {tag, index} values
//   stowage-test-helper append-data ROOT PATH COUNT TAG     appends COUNT files to a numbered folder
import Foundation
import Stowage

struct Tagged: Codable, Hashable {
    var tag: String
    var index: Int
}

let arguments = CommandLine.arguments
guard arguments.count == 6, let count = Int(arguments[4]) else {
    FileHandle.standardError.write(Data("usage: stowage-test-helper append-values|append-data ROOT PATH COUNT TAG\n".utf8))
    exit(64)
}
let store = Store(container: Container(root: URL(filePath: arguments[2], directoryHint: .isDirectory)))
let path = arguments[3]
let tag = arguments[5]
do {
    switch arguments[1] {
    case "append-values":
        for index in 0..<count {
            try store.append(Tagged(tag: tag, index: index), to: path, in: .documents)
        }
    case "append-data":
        for index in 0..<count {
            try store.append(Data("\(tag)-\(index)".utf8), to: path, in: .documents)
        }
    case "sweep":
        // stowage-test-helper sweep FOLDER MAX-BYTES COUNT TAG: sweeps FOLDER down to MAX-BYTES, COUNT times.
        for _ in 0..<count {
            let report = try Sweeper(policy: SweepPolicy(maximumAllocatedSize: Int64(arguments[3])!, lowWatermark: 1))
                .sweep(URL(filePath: arguments[2], directoryHint: .isDirectory))
            if !report.issues.isEmpty { print(report.issues) }
        }
    default:
        FileHandle.standardError.write(Data("unknown command \(arguments[1])\n".utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
