import Foundation
import Testing
@testable import Stowage

/// A short pass of each libFuzzer target in `Fuzz/` (byte units, relative paths, the JSON array
/// appender), so that `swift test` fails on an input that crashes one. Longer runs:
/// `Fuzz/run.sh 600`.
///
/// The targets are built in the test's own folder with `-sanitize=fuzzer` (about a minute; the
/// build writes only there and, as any SwiftPM build, `Fuzz/Package.resolved`, which is ignored).
/// Where the toolchain cannot link a fuzzer at all, the test says why and is skipped, never
/// passed silently; once it can, a build failure of the targets is a failure.
@Suite("Reliability: fuzzing", .long("builds the libFuzzer targets, then runs each for 8 s"))
struct FuzzReliabilityTests {
    static let fuzz = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appending(path: "Fuzz", directoryHint: .isDirectory)
    static let targets = ["FuzzByteCount", "FuzzRelativePath", "FuzzJSONAppend"]
    static let secondsEach = 8



    /// The environment for the toolchain: HOME, the XDG folders and TMPDIR in the test's own
    /// folder, so neither swiftc's module cache nor SwiftPM's caches and configuration are
    /// written to the machine's real folders. (Packages resolve through git's system-wide
    /// configuration, which does not depend on HOME.)
    static func environment(in folder: TestFolder) throws -> [String: String] {
        var environment = try toolEnvironment(home: folder.path + "/home")
        environment["TMPDIR"] = folder.path  // SwiftPM's lock files and FuzzJSONAppend's scratch files
        environment["SWIFT_BACKTRACE"] = "enable=no"  // so that libFuzzer, not Swift's backtracer, handles a trap
        return environment
    }

    /// Skips the test, with the reason printed, unless this toolchain links a libFuzzer program.
    static func requireFuzzer(in folder: TestFolder) throws {
        let source = folder.file("probe.swift")
        try Data("@_cdecl(\"LLVMFuzzerTestOneInput\") public func f(_ d: UnsafePointer<UInt8>?, _ n: Int) -> Int32 { 0 }\n".utf8)
            .write(to: source)
        let probe = try runProcess(URL(filePath: "/usr/bin/env"), ["swiftc", "-sanitize=fuzzer", "-use-ld=lld", "-parse-as-library",
                                                                  source.fileSystemPath, "-o", folder.path + "/probe"],
                               environment: try Self.environment(in: folder))
        if probe.status != 0 {
            let reason = "this toolchain cannot link a libFuzzer program (swiftc -sanitize=fuzzer -use-ld=lld: "
                + probe.error.trimmingCharacters(in: .whitespacesAndNewlines).prefix(300) + ")"
            print("SKIPPED: \(reason)")
            try Test.cancel(Comment(rawValue: reason))
        }
    }

    @Test("each fuzz target runs for a few seconds without a crash")
    func shortRuns() throws {
        let folder = TestFolder("fuzz")
        try Self.requireFuzzer(in: folder)
        let environment = try Self.environment(in: folder)
        let scratch = folder.path + "/build"
        let build = try runProcess(URL(filePath: "/usr/bin/env"),
                                   ["swift", "build", "-c", "release", "--package-path", Self.fuzz.fileSystemPath, "--scratch-path", scratch,
                                    "--toolset", Self.fuzz.appending(path: "toolset.json").fileSystemPath], environment: environment,
                                   within: .seconds(1800))  // a release build of the package: minutes on a loaded machine
        try #require(build.status == 0, "building the fuzz targets failed:\n\(build.output.suffix(3000))\n\(build.error.suffix(2000))")
        for target in Self.targets {
            let corpus = folder.path + "/corpus-" + target
            try FileManager.default.createDirectory(atPath: corpus, withIntermediateDirectories: true)
            var arguments = ["-max_total_time=\(Self.secondsEach)", "-print_final_stats=1", "-artifact_prefix=\(folder.path)/crash-",
                             corpus, Self.fuzz.appending(path: "corpus/\(target)").fileSystemPath]
            if target == "FuzzRelativePath" { arguments.insert("-dict=" + Self.fuzz.appending(path: "relative-path.dict").fileSystemPath, at: 0) }
            let run = try runProcess(URL(filePath: scratch + "/release/" + target), arguments, environment: environment)
            let executions = run.error.split(separator: "\n").first { $0.hasPrefix("stat::number_of_executed_units:") }?
                .split(separator: " ").last.map(String.init) ?? "?"
            #expect(run.status == 0, "\(target) found a crash:\n\(run.error.suffix(4000))\n\(Self.crashInputs(in: folder))")
            #expect((Int(executions) ?? 0) > 0, "\(target) ran no inputs:\n\(run.error.suffix(2000))")
            print("fuzz: \(target): \(executions) inputs in \(Self.secondsEach) s, " + (run.status == 0 ? "no crash" : "CRASHED"))
        }
    }

    /// The crashing inputs libFuzzer saved, in hex, for the failure message.
    static func crashInputs(in folder: TestFolder) -> String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("crash-") }) ?? []
        return names.map { name in
            let bytes = (try? Data(contentsOf: folder.file(name))) ?? Data()
            return name + ": " + bytes.prefix(512).map { String(format: "%02x", $0) }.joined()
        }.joined(separator: "\n")
    }
}
