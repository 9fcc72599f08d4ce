import Foundation
import Testing

/// The range of rooms finds real bugs: Examples/SafeSave's wrong way of saving loses the file in
/// exactly the rooms too small for the new content, its right way never does; and Stowage's own
/// Store `save` and `append` keep their files whole in every room.
@Suite("stowage run over a range: the SafeSave example and Stowage's Store",
       .long("builds Examples/SafeSave, then runs 34 rooms for it and 130 for the Store"))
struct RunRangeExampleTests {
    /// Examples/SafeSave, a package of its own with no dependencies.
    static let example = URL(filePath: #filePath).deletingLastPathComponent()
        .appending(path: "../../Examples/SafeSave", directoryHint: .isDirectory).standardizedFileURL

    /// Builds Examples/SafeSave (its own `.build`, beside it) and returns its `safe-save`; skips
    /// the test, saying why, where it cannot be built (no `swift` in PATH, a build that fails).
    static func buildExample() async throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        guard let swift = path.split(separator: ":").map({ $0 + "/swift" }).first(where: FileManager.default.isExecutableFile) else {
            print("SKIPPED: no swift in PATH to build Examples/SafeSave")
            try Test.cancel("no swift in PATH")
        }
        let package = example.path(percentEncoded: false)
        // SwiftPM's caches and settings in a folder of the test's own, not the machine's HOME.
        let home = FileManager.default.temporaryDirectory.appending(path: "safe-save-home-\(UUID().uuidString)").path(percentEncoded: false)
        defer { removeTestFolder(home) }
        let environment = try toolEnvironment(home: home)
        let build = try await runProcess(URL(filePath: String(swift)), ["build", "--package-path", package], environment: environment,
                                         within: .seconds(900))
        guard build.status == 0 else {
            let reason = "Examples/SafeSave cannot be built here: \((build.error + build.output).suffix(500))"
            print("SKIPPED: \(reason)")
            try Test.cancel(Comment(rawValue: reason))
        }
        let folder = try await runProcess(URL(filePath: String(swift)), ["build", "--package-path", package, "--show-bin-path"],
                                          environment: environment)
        return folder.output.trimmingCharacters(in: .whitespacesAndNewlines) + "/safe-save"
    }

    /// The table lines of a range's output (the rooms' lines, without the header and the summary).
    static func rows(_ output: String) -> [(size: Int, command: String, passed: Bool)] {
        output.split(separator: "\n").dropFirst().dropLast().compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 4, let size = Int(fields[0]) else { return nil }
            return (size, fields[1...2].joined(separator: " "), fields[3] == "passed")
        }
    }

    @Test("SafeSave: the wrong way fails its check in exactly the rooms under 8 blocks, the right way passes in every room")
    func safeSave() async throws {
        let runner = try await RunCommandTests.runner()
        let binary = try await Self.buildExample()
        let real = runner.folderPath + "/real"
        let file = real + "/file"
        try Data(repeating: UInt8(ascii: "o"), count: 20_000).write(to: URL(filePath: file))
        let check = "'\(binary)' check '\(file)' 20000 30000"
        var results: [String: CommandRunner.Result] = [:]
        for way in ["wrong", "right"] {
            let result = try await runner.run("run", "--available", "0..64KiB", "--over", real, "--check", check, "--", binary, way, file, "30000")
            print("safe-save \(way):\n\(result.output)")
            results[way] = result
        }
        let wrong = try #require(results["wrong"]), right = try #require(results["right"])
        // 30,000 bytes take 8 blocks (32,768 bytes): in every smaller room the save fails.
        #expect(wrong.status == 1, "\(wrong.error)")
        #expect(Self.rows(wrong.output).filter { !$0.passed }.map(\.size) == Array(stride(from: 0, to: 32_768, by: 4096)),
                "\(wrong.output)")
        #expect(wrong.output.hasSuffix("the check failed in 8: 0, 4096, 8192, 12288, 16384, 20480, 24576, 28672 bytes\n"))
        #expect(right.status == 0, "\(right.error)")
        let rightRows = Self.rows(right.output)
        #expect(rightRows.count == 17 && rightRows.allSatisfy(\.passed), "\(right.output)")
        #expect(rightRows.filter { $0.command == "exit 1" }.map(\.size) == Array(stride(from: 0, to: 32_768, by: 4096)),
                "the right way fails the same saves, and keeps the old file")
        #expect(try Data(contentsOf: URL(filePath: file)) == Data(repeating: UInt8(ascii: "o"), count: 20_000), "the real file untouched")
        #expect(try FileManager.default.contentsOfDirectory(atPath: real) == ["file"])
    }

    @Test("Stowage's Store: save over a file and append to an array pass their checks in every room from 0 to 256 KiB")
    func store() async throws {
        let runner = try await RunCommandTests.runner()
        let helper = try CommandRunner.binary().deletingLastPathComponent().appending(path: "stowage-test-helper").path(percentEncoded: false)
        guard FileManager.default.isExecutableFile(atPath: helper) else {
            print("SKIPPED: stowage-test-helper is not built beside stowage")
            try Test.cancel("stowage-test-helper is not built")
        }
        let root = runner.folderPath + "/container"
        try FileManager.default.createDirectory(atPath: root + "/Documents/notes", withIntermediateDirectories: true)
        try Data(repeating: UInt8(ascii: "o"), count: 50_000).write(to: URL(filePath: root + "/Documents/notes/value.bin"))
        let made = try await runProcess(URL(filePath: helper), ["append-values", root, "log/values.json", "200", "before"])
        #expect(made.status == 0, "\(made.error)")
        let before = try FileManager.default.contentsOfDirectory(atPath: root + "/Documents/log")

        let save = try await runner.run("run", "--available", "0..256KiB", "--over", root,
                                  "--check", "'\(helper)' store-check-save '\(root)' notes/value.bin 50000 100000",
                                  "--", helper, "store-save", root, "notes/value.bin", "100000")
        print("Store.save of 100,000 bytes over 50,000:\n\(save.output)")
        #expect(save.status == 0, "\(save.error)")
        #expect(save.output.hasSuffix("65 rooms from 0 bytes to 262144 bytes in steps of 4096 bytes: every check passed\n"), "\(save.output)")
        #expect(Self.rows(save.output).contains { $0.command == "exit 1" } && Self.rows(save.output).contains { $0.command == "exit 0" },
                "the save failed in the small rooms and succeeded in the large ones")

        let append = try await runner.run("run", "--available", "0..256KiB", "--over", root,
                                    "--check", "'\(helper)' store-check-append '\(root)' log/values.json 200",
                                    "--", helper, "store-append", root, "log/values.json", "200")
        print("Store.append of one value to an array of 200:\n\(append.output)")
        #expect(append.status == 0, "\(append.error)")
        #expect(append.output.hasSuffix("65 rooms from 0 bytes to 262144 bytes in steps of 4096 bytes: every check passed\n"),
                "\(append.output)")
        #expect(try Data(contentsOf: URL(filePath: root + "/Documents/notes/value.bin")) == Data(repeating: UInt8(ascii: "o"), count: 50_000))
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/Documents/log") == before)
    }
}
