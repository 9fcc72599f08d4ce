import Foundation

/// Everything a run found, printed as a table or as JSON.
struct Report {
    var workingFolder: String
    var origin: String
    var fileSystem: FileSystemInfo
    var projectFileSystem: FileSystemInfo
    var temporaryFileSystem: FileSystemInfo
    var plan: Plan
    var rows: [Row]
    var peakResidentMegabytes: Double
    var totalSeconds: Double
    var quick: Bool

    var misses: [Row] { rows.filter { $0.passed == false } }

    static func sameFileSystem(_ a: FileSystemInfo, _ b: FileSystemInfo) -> Bool? {
        guard let first = a.device, let second = b.device else { return nil }
        return first == second
    }

    static func yesNo(_ value: Bool?) -> String {
        value.map { $0 ? "yes" : "no" } ?? "unknown"
    }

    // MARK: Table

    func table() -> String {
        var lines: [String] = []
        lines.append("Stowage Store benchmarks\(quick ? " (--quick: rough figures)" : "")")
        lines.append("Working folder:  \(workingFolder)  [\(origin)]")
        lines.append("File system:     \(fileSystem.summary)")
        lines.append("Same file system as the project (\(projectFileSystem.path)): "
                     + Self.yesNo(Self.sameFileSystem(fileSystem, projectFileSystem))
                     + "; as the temporary directory (\(temporaryFileSystem.path)): "
                     + Self.yesNo(Self.sameFileSystem(fileSystem, temporaryFileSystem))
                     + (temporaryFileSystem.type.map { " [\($0)]" } ?? ""))
        lines.append("Times are per operation: median / min over the repetitions (n = count).")
        lines.append("")

        let header = ["Operation", "Stowage (median / min)", "Baseline (median / min)", "Ratio", "Target", "Result"]
        var cells: [[String]] = []
        for row in rows {
            let stowage = "\(formatDuration(row.stowage.median)) / \(formatDuration(row.stowage.min))"
                + " (n=\(row.stowage.samples.count))"
            let baseline = row.baseline.map {
                "\(formatDuration($0.median)) / \(formatDuration($0.min)) (n=\($0.samples.count))"
            } ?? "-"
            let ratio: String
            let target: String
            switch row.target {
            case .speedup(let minimum):
                ratio = row.ratio.map { String(format: "%.0fx faster", $0) } ?? "n/a"
                target = String(format: ">= %.0fx faster", minimum)
            case .ratio(let maximum):
                ratio = row.ratio.map { String(format: "%.2fx", $0) } ?? "n/a"
                target = String(format: "<= %.2fx", maximum)
            case .info:
                ratio = row.ratio.map { String(format: "%.1fx .atomicOnly", $0) } ?? "n/a"
                target = "(info)"
            }
            let result = row.passed.map { $0 ? "PASS" : "MISS" } ?? "-"
            cells.append([row.operation, stowage, baseline, ratio, target, result])
        }
        let widths = header.indices.map { column in
            ([header[column]] + cells.map { $0[column] }).map(\.count).max() ?? 0
        }
        func line(_ fields: [String]) -> String {
            zip(fields, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
                .joined(separator: "  ").replacingOccurrences(of: " +$", with: "", options: .regularExpression)
        }
        lines.append(line(header))
        lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
        for row in cells { lines.append(line(row)) }
        lines.append("")
        lines.append("Ratio: for append, baseline time / Stowage time (how many times faster Stowage is);")
        lines.append("for save and retrieve, Stowage time / baseline time (1.00x = the same; lower is better);")
        lines.append("for .durable rows, the durable time / Stowage's .atomicOnly time (the cost of syncing).")
        lines.append("Baseline: Data(contentsOf:) + JSONDecoder, JSONEncoder + Data.write(to:options: .atomic).")
        #if os(Linux)
        lines.append("On Linux, Foundation's .atomic write also fsyncs its temporary file (not the folder) before")
        lines.append("renaming it, so the baseline's saves are closer to Stowage's .durable than to .atomicOnly.")
        #endif
        lines.append("")
        lines.append(String(format: "Peak RSS: %.1f MB (getrusage ru_maxrss)", peakResidentMegabytes))
        lines.append(String(format: "Total time: %.1f s", totalSeconds))
        if misses.isEmpty {
            lines.append("All targets met.")
        } else {
            for row in misses {
                let operation = row.operation.trimmingCharacters(in: .whitespaces)
                let detail: String
                switch row.target {
                case .speedup(let minimum):
                    detail = String(format: "%.0fx faster, target >= %.0fx", row.ratio ?? .nan, minimum)
                case .ratio(let maximum):
                    detail = String(format: "%.2fx the baseline's time, target <= %.2fx", row.ratio ?? .nan, maximum)
                case .info:
                    detail = ""
                }
                lines.append("*** MISS: \(operation): \(detail)")
            }
            lines.append("\(misses.count) of \(rows.filter { $0.passed != nil }.count) targets missed (a report, not a test: the exit status stays 0).")
        }
        return lines.joined(separator: "\n")
    }

    // MARK: JSON

    struct JSONRow: Encodable {
        var key: String
        var operation: String
        var stowage: Stat
        var baseline: Stat?
        var reference: String?
        var ratio: Double?
        var ratioMeaning: String
        /// For information rows: Stowage's time / the baseline's time.
        var ratioToBaseline: Double?
        var target: Double?
        var result: String
    }

    struct JSONReport: Encodable {
        var workingFolder: String
        var origin: String
        var fileSystem: FileSystemInfo
        var sameFileSystemAsProject: Bool?
        var sameFileSystemAsTemporaryDirectory: Bool?
        var temporaryDirectory: FileSystemInfo
        var quick: Bool
        var elementCount: Int
        var blobBytes: Int
        var results: [JSONRow]
        var peakRSSMegabytes: Double
        var totalSeconds: Double
        var allTargetsMet: Bool
    }

    func json() throws -> String {
        let results = rows.map { row -> JSONRow in
            let meaning: String
            let target: Double?
            switch row.target {
            case .speedup(let minimum):
                meaning = "baseline/stowage (speedup, higher is better)"
                target = minimum
            case .ratio(let maximum):
                meaning = "stowage/baseline (lower is better)"
                target = maximum
            case .info:
                meaning = "stowage/reference (cost of .durable over .atomicOnly)"
                target = nil
            }
            return JSONRow(key: row.key, operation: row.operation.trimmingCharacters(in: .whitespaces),
                           stowage: row.stowage, baseline: row.baseline,
                           reference: row.reference == nil ? nil : "stowage .atomicOnly",
                           ratio: row.ratio, ratioMeaning: meaning,
                           ratioToBaseline: row.reference == nil ? nil : row.baseline.map { row.stowage.median / $0.median },
                           target: target,
                           result: row.passed.map { $0 ? "PASS" : "MISS" } ?? "info")
        }
        let report = JSONReport(
            workingFolder: workingFolder, origin: origin, fileSystem: fileSystem,
            sameFileSystemAsProject: Self.sameFileSystem(fileSystem, projectFileSystem),
            sameFileSystemAsTemporaryDirectory: Self.sameFileSystem(fileSystem, temporaryFileSystem),
            temporaryDirectory: temporaryFileSystem, quick: quick,
            elementCount: plan.elementCount, blobBytes: plan.blobBytes, results: results,
            peakRSSMegabytes: peakResidentMegabytes, totalSeconds: totalSeconds, allTargetsMet: misses.isEmpty)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return String(decoding: try encoder.encode(report), as: UTF8.self)
    }
}
