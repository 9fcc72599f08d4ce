import ArgumentParser
import Foundation
import Stowage

/// `usage --export`, `--import` and `--compare`: scans saved in ncdu's JSON export format.
extension UsageCommand {
    /// Refuses combinations that cannot be meant: several paths to save (the format holds one
    /// root), paths with `--import`, standard input or output taken twice or for JSON too.
    func validateSavedScans() throws {
        if exportFile != nil && paths.count > 1 { throw ValidationError("--export saves one path: ncdu's format holds one root.") }
        if importFile != nil && !paths.isEmpty { throw ValidationError("--import shows a saved scan: give no path to scan.") }
        if exportFile == "-" && output.json { throw ValidationError("--export - writes the saved scan on standard output: --json cannot go there too.") }
        if importFile == "-" && paths.contains(where: { $0.path == "-" }) { throw ValidationError("standard input can be read once.") }
        if let compareFile {
            if exportFile != nil || importFile != nil { throw ValidationError("--compare takes neither --export nor --import.") }
            if paths.count > 1 { throw ValidationError("--compare takes the old saved scan and at most one more: a saved scan or a folder.") }
            if compareFile == "-" && paths.first?.path == "-" { throw ValidationError("standard input can be read once.") }
        }
        for file in [exportFile, importFile, compareFile].compactMap({ $0 }) where file.isEmpty {
            throw ValidationError("an empty path names no file; give - for standard input or output.")
        }
    }

    /// The saved scan in `file` (`-`: standard input), listed as `options` say, and when it was
    /// taken (when the file says).
    func loadSavedScan(_ file: String, options: UsageOptions) throws -> (report: UsageReport, takenAt: Date?) {
        let (name, data) = try readSavedScan(file)
        return try reportingErrors { try Self.parse(data, name: name, options: options) }
    }

    /// The saved scans in `files`, each as ``loadSavedScan(_:options:)`` reads it: read one after
    /// the other, then parsed side by side (a comparison's two files, each on a core). An error
    /// is reported as there: the first file's first.
    func loadSavedScans(_ files: [String], options: UsageOptions) async throws -> [(report: UsageReport, takenAt: Date?)] {
        let read = try files.map(readSavedScan)
        let parsed = await withTaskGroup(of: (Int, Result<(report: UsageReport, takenAt: Date?), any Error>).self) { group in
            for (index, (name, data)) in read.enumerated() {
                group.addTask { (index, Result { try Self.parse(data, name: name, options: options) }) }
            }
            var results = [Result<(report: UsageReport, takenAt: Date?), any Error>?](repeating: nil, count: read.count)
            for await (index, result) in group { results[index] = result }
            return results
        }
        return try parsed.map { result in try reportingErrors { try result!.get() } }
    }

    /// The name a saved scan's errors give it (`standard input` for `-`) and its bytes.
    private func readSavedScan(_ file: String) throws -> (name: String, data: Data) {
        let name = file == "-" ? "standard input" : file
        return try reportingErrors {
            if file != "-", Self.isFolder(try PathArgument(parsing: file).url()) {
                throw StowageError(.wrongKind, operation: .loadScan, path: name, errno: .isFolder)
            }
            do {
                return (name, file == "-" ? try FileHandle.standardInput.readToEnd() ?? Data() : try Data(contentsOf: try PathArgument(parsing: file).url()))
            } catch {
                throw Self.fileError(error, operation: .loadScan, path: name)
            }
        }
    }

    /// The report of the saved scan `data` (from `name`) and when it was taken.
    private static func parse(_ data: Data, name: String, options: UsageOptions) throws -> (report: UsageReport, takenAt: Date?) {
        let saved = try UsageReport.savedScan(ncduExport: data, path: name, options: options)
        return (saved.report, saved.timestamp)
    }

    /// Writes `report` to `file` (`-`: standard output) as an ncdu JSON export, replacing the file
    /// whole (a reader never sees half of it).
    func save(_ report: UsageReport, to file: String) throws {
        try reportingErrors {
            let data = try report.ncduExport()
            do {
                if file == "-" {
                    try FileHandle.standardOutput.write(contentsOf: data)
                } else {
                    try data.write(to: try PathArgument(parsing: file).url(), options: .atomic)
                }
            } catch {
                throw Self.fileError(error, operation: .saveScan, path: file == "-" ? "standard output" : file)
            }
        }
    }

    /// `body`'s result; a `StowageError` it throws is reported as every command reports one
    /// (standard error, and JSON with `--json`) and ends the command with its status.
    func reportingErrors<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as StowageError {
            try output.run { throw error }
            throw ExitCode(ExitStatus.status(for: error))  // not reached: `run` exits with the error's status
        }
    }

    /// The error for a Foundation file error at `path`: the system's `errno` when it gives one
    /// (no such file, permission denied, no space), an I/O failure otherwise.
    static func fileError(_ error: any Error, operation: StowageError.Operation, path: String) -> StowageError {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        var errno = underlying.flatMap { $0.domain == NSPOSIXErrorDomain ? Errno(rawValue: Int32($0.code)) : nil }
        switch (error as? CocoaError)?.code {
        case .fileReadNoSuchFile?, .fileNoSuchFile?: errno = errno ?? .noSuchEntry
        case .fileReadNoPermission?, .fileWriteNoPermission?: errno = errno ?? .permissionDenied
        case .fileWriteOutOfSpace?: errno = errno ?? .noSpace
        default: break
        }
        guard let errno else { return StowageError(.ioFailure, operation: operation, path: path, reason: error.localizedDescription) }
        return StowageError(StowageError.Code(errno: errno), operation: operation, path: path, errno: errno)
    }

    /// `--compare OLD [NEW|PATH]`: the changes from the saved scan `old` to a second saved scan,
    /// or to a folder scanned now (the path given, or the saved scan's root when none is).
    func compare(since old: String) async throws {
        var options = scanOptions(everything: true)
        options.largestFileCount = 0  // a comparison lists no largest files
        let before: UsageReport, after: UsageReport
        switch try newerSide() {
        case .savedScan(let file)?:
            let both = try await loadSavedScans([old, file], options: options)
            (before, after) = (both[0].report, both[1].report)
        case .folder(let url)?:
            before = try loadSavedScan(old, options: options).report
            after = try await scan([url], options: options)
        case nil:
            before = try loadSavedScan(old, options: options).report
            after = try await scan([try Self.folder(of: before)], options: options)
        }
        for issue in after.issues { Terminal.standardError.problem(issue) }
        let difference = after.difference(from: before, rankedByLogicalSize: apparent)
        let rows = limit.map(\.rows) ?? (Terminal.standardOutputIsTerminal ? max(UsageSelection.fewestDefaultRows, Terminal.standardOutputRows - 6)
                                                                           : UsageSelection.defaultRowsOffTerminal)
        let view = UsageComparisonView(difference: difference, style: units.style, apparent: apparent, rows: rows)
        try output.run {
            Rendered(jsonText: { UsageComparisonJSON.text(difference) }, exitStatus: after.issues.isEmpty ? ExitStatus.success : ExitStatus.failure) {
                view.render()
            }
        }
    }

    /// What `--compare OLD [NEW|PATH]` compares `OLD` with.
    enum NewerSide {
        /// A second saved scan, in this file (`-`: standard input).
        case savedScan(String)
        /// A folder, scanned now.
        case folder(URL)
    }

    /// What `--compare` compares its saved scan with: the path given when it is a saved scan (a
    /// file, or `-`), or the folder given; `nil` when none is given (the saved scan's own folder,
    /// ``folder(of:)``).
    func newerSide() throws -> NewerSide? {
        guard let argument = paths.first else { return nil }
        return argument.path == "-" || !Self.isFolder(argument.url()) ? .savedScan(argument.path) : .folder(argument.url().standardizedFileURL)
    }

    /// The folder the saved scan `report` is of (its root), to scan now.
    static func folder(of report: UsageReport) throws -> URL {
        guard let path = report.roots.first?.path else { throw ValidationError("the saved scan names no folder to scan: give one.") }
        return URL(filePath: path, directoryHint: .isDirectory).standardizedFileURL
    }

    /// `--compare OLD [NEW|PATH] --interactive`: the browser's "changed since" mode, over the
    /// changes to a second saved scan, or to a folder it scans now (where `d` deletes).
    func browseChanges(since old: String) async throws {
        var options = scanOptions(everything: true)
        options.largestFileCount = 0
        var source: BrowserSource
        let earlier: (report: UsageReport, takenAt: Date?)
        switch try newerSide() {
        case .savedScan(let file)?:
            let both = try await loadSavedScans([old, file], options: options)
            earlier = both[0]
            source = BrowserSource(title: "stowage usage", roots: [], options: options)
            source.report = both[1].report
            source.content = .changes(since: old, takenAt: earlier.takenAt, live: false)
        case let side:
            earlier = try loadSavedScan(old, options: options)
            let url: URL
            if case .folder(let given)? = side { url = given } else { url = try Self.folder(of: earlier.report) }
            source = BrowserSource(title: "stowage usage", roots: [url], options: options)
            source.content = .changes(since: old, takenAt: earlier.takenAt, live: true)
        }
        source.earlier = earlier.report
        try await Browser.runCommand(source, units: units.style, operation: .measureUsage, output: output)
    }

    /// Whether `url` is a folder (a link to one too): what `--compare` scans rather than reads.
    static func isFolder(_ url: URL) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path(percentEncoded: false), isDirectory: &isFolder) && isFolder.boolValue
    }
}
