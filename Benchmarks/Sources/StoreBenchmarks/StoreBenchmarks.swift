import Dispatch
import Foundation
import Stowage

/// `StoreBenchmarks`: Stowage's Store against plain Foundation, in one run. See `Options.usage`.
@main
struct StoreBenchmarks {
    static func main() {
        let options: Options
        do {
            guard let parsed = try Options.parse(Array(CommandLine.arguments.dropFirst())) else {
                print(Options.usage)
                return
            }
            options = parsed
        } catch {
            standardError("error: \(error)\n\n\(Options.usage)\n")
            exit(2)
        }

        let scratch: Scratch
        do {
            scratch = try Scratch.make(options)
        } catch {
            standardError("error: cannot make the working folder: \(error)\n")
            exit(1)
        }

        let signalSources = removeOnInterrupt(scratch.url)

        let status: Int32
        do {
            let report = try run(options, in: scratch)
            if options.json {
                standardError(report.table() + "\n")
                print(try report.json())
            } else {
                print(report.table())
            }
            status = 0
        } catch {
            standardError("error: \(error)\n")
            status = 1
        }
        for source in signalSources { source.cancel() }
        scratch.remove()
        exit(status)
    }

    /// On SIGINT or SIGTERM, removes the working folder and exits. The handler runs on a
    /// global queue: it is made here, outside the main actor, so that it is not isolated to it.
    nonisolated static func removeOnInterrupt(_ url: URL) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { @Sendable in
                try? FileManager.default.removeItem(at: url)
                standardError("\ninterrupted; removed \(withoutTrailingSlash(url.path(percentEncoded: false)))\n")
                exit(128 + number)
            }
            source.resume()
            return source
        }
    }

    static func run(_ options: Options, in scratch: Scratch) throws -> Report {
        let plan = options.quick ? Plan.quick : Plan.full
        let projectFolder = Scratch.packageFolder.deletingLastPathComponent().path(percentEncoded: false)
        let fileSystem = FileSystemInfo(path: scratch.path)
        standardError("Working folder: \(scratch.path) [\(scratch.origin)]\n")
        standardError("File system: \(fileSystem.summary)\n")

        let container = Container(root: scratch.url.appending(path: "container", directoryHint: .isDirectory))
        let benchmarks = Benchmarks(store: Store(container: container), plan: plan) { message in
            standardError("  \(message)\n")
        }

        let clock = ContinuousClock()
        let start = clock.now
        var rows: [Row] = []
        rows += try benchmarks.append()
        rows += try benchmarks.array()
        rows += try benchmarks.blob()
        let total = (clock.now - start).seconds

        return Report(
            workingFolder: scratch.path, origin: scratch.origin, fileSystem: fileSystem,
            projectFileSystem: FileSystemInfo(path: projectFolder),
            temporaryFileSystem: FileSystemInfo(path: FileManager.default.temporaryDirectory.path(percentEncoded: false)),
            plan: plan, rows: rows, peakResidentMegabytes: peakResidentMegabytes(),
            totalSeconds: total, quick: options.quick)
    }
}

func standardError(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}
