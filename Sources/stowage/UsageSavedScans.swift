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
        let name = file == "-" ? "standard input" : file
        return try reportingErrors {
            let data: Data
            if file != "-", Self.isFolder(try PathArgument(parsing: file).url()) {
                throw StowageError(.wrongKind, operation: .loadScan, path: name, errno: .isFolder)
            }
            do {
                data = file == "-" ? try FileHandle.standardInput.readToEnd() ?? Data() : try Data(contentsOf: try PathArgument(parsing: file).url())
            } catch {
                throw Self.fileError(error, operation: .loadScan, path: name)
            }
            let saved = try UsageReport.savedScan(ncduExport: data, path: name, options: options)
            return (saved.report, saved.timestamp)
        }
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
        let before = try loadSavedScan(old, options: options).report
        let after: UsageReport
        switch try newerSide(than: before) {
        case .savedScan(let file): after = try loadSavedScan(file, options: options).report
        case .folder(let url): after = try await scan([url], options: options)
        }
        for issue in after.issues { Terminal.standardError.problem(issue) }
        let difference = after.difference(from: before, rankedByLogicalSize: apparent)
        let rows = limit.map(\.rows) ?? (Terminal.standardOutputIsTerminal ? max(UsageSelection.fewestDefaultRows, Terminal.standardOutputRows - 6)
                                                                           : UsageSelection.defaultRowsOffTerminal)
        let view = UsageComparisonView(difference: difference, style: units.style, apparent: apparent, rows: rows)
        try output.run {
            Rendered(json: difference, exitStatus: after.issues.isEmpty ? ExitStatus.success : ExitStatus.failure) { view.render() }
        }
    }

    /// What `--compare OLD [NEW|PATH]` compares `OLD` with.
    enum NewerSide {
        /// A second saved scan, in this file (`-`: standard input).
        case savedScan(String)
        /// A folder, scanned now.
        case folder(URL)
    }

    /// What `--compare` compares the saved scan `before` with: the path given when it is a
    /// saved scan (a file, or `-`), or the folder given, or else the saved scan's own folder.
    func newerSide(than before: UsageReport) throws -> NewerSide {
        if let argument = paths.first, argument.path == "-" || !Self.isFolder(argument.url()) { return .savedScan(argument.path) }
        guard let url = paths.first?.url() ?? before.roots.first?.path.map({ URL(filePath: $0, directoryHint: .isDirectory) }) else {
            throw ValidationError("the saved scan names no folder to scan: give one.")
        }
        return .folder(url.standardizedFileURL)
    }

    /// `--compare OLD [NEW|PATH] --interactive`: the browser's "changed since" mode, over the
    /// changes to a second saved scan, or to a folder it scans now (where `d` deletes).
    func browseChanges(since old: String) async throws {
        var options = scanOptions(everything: true)
        options.largestFileCount = 0
        let (before, takenAt) = try loadSavedScan(old, options: options)
        var source: BrowserSource
        switch try newerSide(than: before) {
        case .savedScan(let file):
            source = BrowserSource(title: "stowage usage", roots: [], options: options)
            source.report = try loadSavedScan(file, options: options).report
            source.content = .changes(since: old, takenAt: takenAt, live: false)
        case .folder(let url):
            source = BrowserSource(title: "stowage usage", roots: [url], options: options)
            source.content = .changes(since: old, takenAt: takenAt, live: true)
        }
        source.earlier = before
        try await Browser.runCommand(source, units: units.style, operation: .measureUsage, output: output)
    }

    /// Whether `url` is a folder (a link to one too): what `--compare` scans rather than reads.
    static func isFolder(_ url: URL) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path(percentEncoded: false), isDirectory: &isFolder) && isFolder.boolValue
    }
}
