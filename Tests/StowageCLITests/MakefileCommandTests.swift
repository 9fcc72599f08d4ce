import Foundation
import Testing

/// `make install` and `make uninstall` into a temporary PREFIX (and DESTDIR), with the command
/// this test bundle runs: the build and the man page are taken as made (`-o build -o manual`),
/// and SWIFT is a stand-in that only says where the built command is.
@Suite("make install and uninstall")
struct MakefileCommandTests {
    /// What install writes below PREFIX.
    static let installed = ["bin/stowage", "share/man/man1/stowage.1", "share/bash-completion/completions/stowage",
                            "share/zsh/site-functions/_stowage", "share/fish/vendor_completions.d/stowage.fish"]

    /// Runs `make target` in the package with `variables`, the SWIFT stand-in and a man page.
    /// The stand-in writes each command line it is given to `swift.log` in the runner's folder.
    static func make(_ target: String, _ variables: [String], in runner: CommandRunner) async throws -> ProcessResult {
        let make = try requireToolURL("make")
        let swift = runner.folderPath + "/swift"
        let binFolder = try CommandRunner.binary().deletingLastPathComponent().path(percentEncoded: false)
        try "#!/bin/sh\necho \"$*\" >> '\(runner.folderPath)/swift.log'\necho '\(binFolder)'\n"
            .write(toFile: swift, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swift)
        let page = runner.folderPath + "/stowage.1"
        try ".Dd January 1, 2026\n.Dt STOWAGE 1\n.Os\n".write(toFile: page, atomically: true, encoding: .utf8)
        return try await runProcess(make, ["--no-print-directory", "-C", ManualPageCommandTests.packageRoot.path(percentEncoded: false),
                                     "-o", "build", "-o", "manual", target, "SWIFT=\(swift)", "MANUAL=\(page)",
                                     "STATIC_CXX_DIR=\(staticCXXFolder(of: runner))"] + variables)
    }

    /// Where `make` is told to put its link to the static C++ library: the test's own folder,
    /// not the package's `.build`.
    static func staticCXXFolder(of runner: CommandRunner) -> String { runner.folderPath + "/static-cxx" }

    /// Every file and folder below `folder`, relative to it, sorted.
    static func contents(of folder: String) throws -> [String] {
        try (FileManager.default.subpathsOfDirectory(atPath: folder)).sorted()
    }

    @Test("uninstall removes the files install wrote and then the folders it made, leaving PREFIX empty")
    func uninstallLeavesNothing() async throws {
        let runner = try CommandRunner()
        let prefix = runner.folderPath + "/prefix"
        let install = try await Self.make("install", ["PREFIX=\(prefix)"], in: runner)
        #expect(install.status == 0, "\(install.output)\(install.error)")
        for file in Self.installed {
            #expect(FileManager.default.fileExists(atPath: prefix + "/" + file), "\(file) not installed")
        }
        let uninstall = try await Self.make("uninstall", ["PREFIX=\(prefix)"], in: runner)
        #expect(uninstall.status == 0, "\(uninstall.output)\(uninstall.error)")
        #expect(try Self.contents(of: prefix) == [], "left behind")
        #expect(!uninstall.output.contains("rm -r"))
    }

    @Test("install links the command with Swift's libraries inside (--static-swift-stdlib) last, after the man page's build; STATIC= does not")
    func installsTheStaticCommand() async throws {
        for (variables, linksStatically) in [([String](), true), (["STATIC="], false)] {
            let runner = try CommandRunner()
            let cxxFolder = Self.staticCXXFolder(of: runner)
            let install = try await Self.make("install", ["PREFIX=\(runner.folderPath)/prefix"] + variables, in: runner)
            #expect(install.status == 0, "\(install.output)\(install.error)")
            let calls = try String(contentsOfFile: runner.folderPath + "/swift.log", encoding: .utf8).split(separator: "\n")
            // The last build before the copy (the copy asks only for the bin path).
            let lastBuild = try #require(calls.last { $0.hasPrefix("build") && !$0.contains("--show-bin-path") })
            #expect(lastBuild.contains("--product stowage"))
            #expect(lastBuild.contains("--static-swift-stdlib") == linksStatically, "\(calls)")
            #if os(Linux)
            // The C++ standard library too, from the folder the script fills (see staticCXXFlags).
            let flags = try Self.staticCXXFlags(folder: cxxFolder)
            #expect(lastBuild.contains("-Xlinker -L") == (linksStatically && !flags.isEmpty), "\(calls)")
            if linksStatically && !flags.isEmpty { #expect(lastBuild.hasSuffix(flags), "\(calls)") }
            #endif
        }
    }

    /// What Scripts/static-cxx-flags.sh prints for `folder`: `-Xlinker -L` and the folder, or
    /// nothing where it cannot link libstdc++ statically.
    static func staticCXXFlags(folder: String) throws -> String {
        let script = ManualPageCommandTests.packageRoot.appending(path: "Scripts/static-cxx-flags.sh")
        let result = try runProcess(script, [folder])
        #expect(result.status == 0, "\(result.error)")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    #if os(Linux)
    @Test("static-cxx-flags.sh links the compiler's libstdc++.a into the folder it is given, which it prints, where GCC installed one")
    func staticCXXLibrary() throws {
        let runner = try CommandRunner()
        let gcc = "/usr/lib/gcc/x86_64-linux-gnu"
        let archives = ((try? FileManager.default.contentsOfDirectory(atPath: gcc)) ?? [])
            .map { "\(gcc)/\($0)/libstdc++.a" }.filter { FileManager.default.fileExists(atPath: $0) }
        let flags = try Self.staticCXXFlags(folder: runner.folderPath + "/linked")
        guard !archives.isEmpty else {
            print("SKIPPED: no static libstdc++ under \(gcc) (Debian: libstdc++-12-dev)")
            #expect(flags.isEmpty)
            return
        }
        #expect(flags == "-Xlinker -L\(runner.folderPath)/linked")
        let archive = try FileManager.default.destinationOfSymbolicLink(atPath: runner.folderPath + "/linked/libstdc++.a")
        #expect(archives.contains(URL(filePath: archive).standardizedFileURL.path(percentEncoded: false)), "\(archive)")
        // A folder whose path holds white space: nothing (the flags would be split on it).
        #expect(try Self.staticCXXFlags(folder: runner.folderPath + "/with space").isEmpty)
    }
    #endif

    @Test("a folder that held other files before install keeps them, and stays; the folders install made go")
    func uninstallKeepsOthers() async throws {
        let runner = try CommandRunner()
        let prefix = runner.folderPath + "/prefix"
        try FileManager.default.createDirectory(atPath: prefix + "/share/man/man1", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try Data("other".utf8).write(to: URL(filePath: prefix + "/bin/other"))
        try Data(".Dd\n".utf8).write(to: URL(filePath: prefix + "/share/man/man1/other.1"))
        await #expect(try Self.make("install", ["PREFIX=\(prefix)"], in: runner).status == 0)
        let uninstall = try await Self.make("uninstall", ["PREFIX=\(prefix)"], in: runner)
        #expect(uninstall.status == 0, "\(uninstall.output)\(uninstall.error)")
        #expect(try Self.contents(of: prefix) == ["bin", "bin/other", "share", "share/man", "share/man/man1", "share/man/man1/other.1"])
    }

    @Test("with DESTDIR, install and uninstall work below it, and PREFIX stays")
    func destination() async throws {
        let runner = try CommandRunner()
        let destination = runner.folderPath + "/package"
        let variables = ["DESTDIR=\(destination)", "PREFIX=/usr/local"]
        await #expect(try Self.make("install", variables, in: runner).status == 0)
        #expect(FileManager.default.isExecutableFile(atPath: destination + "/usr/local/bin/stowage"))
        let uninstall = try await Self.make("uninstall", variables, in: runner)
        #expect(uninstall.status == 0, "\(uninstall.output)\(uninstall.error)")
        #expect(try Self.contents(of: destination) == ["usr", "usr/local"])
    }
}
