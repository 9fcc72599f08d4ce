import Foundation
import Testing

/// Bytes stay bytes (Architecture article: bytes at every boundary): an argument, a working folder or an environment variable that
/// is not UTF-8 is carried exactly or refused with 64, never repaired into another path. Every
/// test sets up the U+FFFD twin of the name it passes: the folder a repair would reach.
@Suite("stowage carries arguments, working folders and environment as bytes")
struct ArgumentBytesCommandTests {
    /// `sx\377`, not UTF-8, and its repaired spelling `sx\u{FFFD}` (`sx\357\277\275`).
    static let badName: [UInt8] = Array("sx".utf8) + [0xFF]
    static let twinName: [UInt8] = Array("sx\u{FFFD}".utf8)

    /// A runner with `sx\377` and its twin in its folder, each holding one file (`g` and `f`).
    func runnerWithTwins() throws -> (runner: CommandRunner, bad: [UInt8], twin: [UInt8]) {
        let runner = try CommandRunner()
        let base = Array(runner.folderPath.utf8) + [UInt8(ascii: "/")]
        let (bad, twin) = (base + Self.badName, base + Self.twinName)
        try RawFiles.makeFolder(bad)
        try RawFiles.makeFolder(twin)
        try RawFiles.makeFile(bad + Array("/g".utf8))
        try RawFiles.makeFile(twin + Array("/f".utf8))
        return (runner, bad, twin)
    }

    func expectTwinsIntact(_ bad: [UInt8], _ twin: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(RawFiles.exists(bad + Array("/g".utf8)), "the named folder keeps its file", sourceLocation: sourceLocation)
        #expect(RawFiles.exists(twin + Array("/f".utf8)), "the U+FFFD twin keeps its file", sourceLocation: sourceLocation)
    }

    @Test("every command refuses a path argument that is not UTF-8 with 64, naming it, and touches neither folder")
    func pathArgumentsRefused() async throws {
        let (runner, bad, twin) = try runnerWithTwins()
        let commands: [[[UInt8]]] = [
            [Array("sweep".utf8), bad, Array("--max-count".utf8), Array("0".utf8)],
            [Array("sweep".utf8), bad, Array("--max-age".utf8), Array("0s".utf8), Array("--json".utf8)],
            [Array("clear".utf8), Array("caches".utf8), Array("--root".utf8), bad, Array("--yes".utf8)],
            [Array("relieve".utf8), Array("--root".utf8), bad, Array("--available".utf8), Array("1GB".utf8)],
            [Array("release".utf8), bad],
            [Array("fill".utf8), Array("--status".utf8), bad],
            [Array("usage".utf8), bad],
            [Array("info".utf8), bad],
            [Array("audit".utf8), Array("--root".utf8), bad],
            [Array("run".utf8), Array("--available".utf8), Array("1MB".utf8), Array("--over".utf8), bad, Array("--".utf8),
             Array("/bin/true".utf8)],
            [Array("run".utf8), Array("--available".utf8), Array("1MB".utf8), Array("--keep".utf8), bad + Array("k".utf8),
             Array("--".utf8), Array("/bin/true".utf8)],
            [Array("--app".utf8), Self.badName, Array("locations".utf8)],
        ]
        for arguments in commands {
            let shown = arguments.map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
            let result = try await runner.run(bytes: arguments)
            #expect(result.status == 64, "\(shown): \(result.error)")
            #expect(result.error.contains(#"sx\xff"#) && result.error.contains("not UTF-8"), "\(shown) names the argument: \(result.error)")
            if arguments.contains(Array("--json".utf8)) {
                let json = try #require(try JSONSerialization.jsonObject(with: Data(result.outputBytes)) as? [String: Any])
                #expect((json["error"] as? [String: Any])?["code"] as? String == "usage", "\(shown): \(result.output)")
            }
            expectTwinsIntact(bad, twin)
        }
        #expect(!RawFiles.exists(Array(runner.folderPath.utf8) + Array("/sx\u{FFFD}k".utf8)), "no keep folder made for a repaired name")
    }

    @Test("a relative path from a working folder that is not UTF-8 is refused with 64; its twin keeps its files")
    func workingFolderRefused() async throws {
        let (runner, bad, twin) = try runnerWithTwins()
        for arguments in [["sweep", ".", "--max-count", "0"], ["usage", "g"], ["clear", "caches", "--root", ".", "--yes"]] {
            let result = try await runner.run(bytes: arguments.map { Array($0.utf8) }, in: bad)
            #expect(result.status == 64, "\(arguments): \(result.error)")
            #expect(result.error.contains("working folder") && result.error.contains("not UTF-8"), "\(result.error)")
            expectTwinsIntact(bad, twin)
        }
        // An absolute path from there is fine: the working folder plays no part.
        let absolute = try await runner.run(bytes: [Array("usage".utf8), Array((runner.folderPath + "/sx\u{FFFD}").utf8)], in: bad)
        #expect(absolute.status == 0, "\(absolute.error)")
    }

    @Test("a container variable or STOWAGE_APP that is not UTF-8 is refused with 64, naming it; the twin is not cleared")
    func environmentRefused() async throws {
        let (runner, bad, twin) = try runnerWithTwins()
        // XDG_CACHE_HOME=<folder>/sx\377: the app's caches would be <twin>/stowage once repaired.
        try RawFiles.makeFolder(twin + Array("/stowage".utf8))
        try RawFiles.makeFile(twin + Array("/stowage/cached".utf8))
        for variable in ["XDG_CACHE_HOME", "HOME", "TMPDIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME"] {
            let result = try await runner.run(bytes: [Array("clear".utf8), Array("caches".utf8), Array("--yes".utf8)],
                                        environment: [Array("\(variable)=".utf8) + bad])
            #expect(result.status == 64, "\(variable): \(result.error)")
            #expect(result.error.contains(variable) && result.error.contains("not UTF-8"), "\(variable): \(result.error)")
            #expect(RawFiles.exists(twin + Array("/stowage/cached".utf8)), "\(variable): the twin's cache is kept")
        }
        let app = try await runner.run(bytes: [Array("clear".utf8), Array("caches".utf8), Array("--yes".utf8)],
                                 environment: [Array("STOWAGE_APP=".utf8) + Self.badName])
        #expect(app.status == 64 && app.error.contains("STOWAGE_APP"), "\(app.error)")
        expectTwinsIntact(bad, twin)
    }

    @Test("run passes its command's arguments, environment and working folder on byte for byte")
    func runCarriesBytes() async throws {
        let runner = try await RunCommandTests.runner()
        let room = [Array("run".utf8), Array("--available".utf8), Array("1MB".utf8), Array("--over".utf8),
                    Array((runner.folderPath + "/real").utf8), Array("--".utf8)]
        let argument: [UInt8] = [0x61, 0xFF, 0x62]
        let printed = try await runner.run(bytes: room + [Array("printf".utf8), Array("%s".utf8), argument])
        #expect(printed.status == 0, "\(printed.error)")
        #expect(printed.outputBytes == argument, "the argument arrives as given, not as a\\357\\277\\275b")

        let variable = try await runner.run(bytes: room + [Array("/bin/sh".utf8), Array("-c".utf8), Array(#"printf %s "$X""#.utf8)],
                                      environment: [Array("X=v".utf8) + [0xFF]])
        #expect(variable.status == 0, "\(variable.error)")
        #expect(variable.outputBytes == Array("v".utf8) + [0xFF], "the environment arrives as given")

        let folder = Array(runner.folderPath.utf8) + Array("/d".utf8) + [0xFE]
        try RawFiles.makeFolder(folder)
        let working = try await runner.run(bytes: room + [Array("/bin/pwd".utf8)], in: folder)
        #expect(working.status == 0, "\(working.error)")
        #expect(working.outputBytes == folder + [0x0A], "the command starts in the very folder stowage was started in")
    }
}
