import Foundation
import Testing
@testable import stowage

/// Counts in text output: one of anything is singular, every other number, 0 included, plural
/// (`Noun`, the library's, has its own test).
@Suite("counts in text output")
struct PluralCommandTests {
    /// A folder `tree` with `count` files, symbolic links, FIFOs and extra hard links, and `count`
    /// folders in all (the root and `count - 1` more).
    func makeTree(_ runner: CommandRunner, count: Int) throws -> String {
        let root = runner.folderPath + "/tree\(count)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for index in 0..<count {
            try Data(count: 100).write(to: URL(filePath: root + "/file\(index)"))
            try FileManager.default.createSymbolicLink(atPath: root + "/link\(index)", withDestinationPath: "file\(index)")
            try #require(mkfifo(root + "/fifo\(index)", 0o600) == 0)
            try FileManager.default.linkItem(atPath: root + "/file\(index)", toPath: root + "/hard\(index)")
            if index > 0 { try FileManager.default.createDirectory(atPath: root + "/folder\(index)", withIntermediateDirectories: false) }
        }
        return root
    }

    @Test("usage: the counts of files, folders, links, others and extra hard links at 0, 1 and 2")
    func usage() async throws {
        let runner = try CommandRunner()
        let empty = try makeTree(runner, count: 0)
        let zero = try await runner.run("usage", empty, "--top", "0")
        #expect(zero.output.contains("; 0 files, 1 folder, 0 links\n"), "\(zero.output)")
        #expect(!zero.output.contains("others") && !zero.output.contains("hard link"), "none: not mentioned")
        let one = try await runner.run("usage", try makeTree(runner, count: 1), "--top", "0")
        #expect(one.output.contains("; 1 file, 1 folder, 1 link, 1 other\n(1 extra hard link counted once)\n"), "\(one.output)")
        let two = try await runner.run("usage", try makeTree(runner, count: 2), "--top", "0")
        #expect(two.output.contains("; 2 files, 2 folders, 2 links, 2 others\n(2 extra hard links counted once)\n"), "\(two.output)")
    }

    @Test("usage: the problems met, 1 and 2 (paths that are not there)")
    func problems() async throws {
        let runner = try CommandRunner()
        let tree = try makeTree(runner, count: 1)
        let none = try await runner.run("usage", tree)
        #expect(!none.output.contains("problem"))
        let one = try await runner.run("usage", tree, runner.folderPath + "/missing")
        #expect(one.output.hasSuffix("\n1 problem met; see standard error.\n"), "\(one.output)")
        let two = try await runner.run("usage", tree, runner.folderPath + "/missing", runner.folderPath + "/gone")
        #expect(two.output.hasSuffix("\n2 problems met; see standard error.\n"), "\(two.output)")
    }

    @Test("sweep: files removed and kept, and emptied folders, at 0, 1 and 2")
    func sweep() async throws {
        let runner = try CommandRunner()
        /// A cache with a file in each of `a` and `b`, `old` of them modified two days ago.
        func cache(_ name: String, old: Int) throws -> String {
            let folder = runner.folderPath + "/" + name
            for (index, sub) in ["a", "b"].enumerated() {
                try FileManager.default.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: true)
                let file = folder + "/\(sub)/file"
                try Data(count: 100).write(to: URL(filePath: file))
                if index < old {
                    try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -2 * 86_400)], ofItemAtPath: file)
                }
            }
            return folder
        }
        let none = try await runner.run("sweep", try cache("none", old: 0), "--max-age", "1d", "--order", "oldest", "--dry-run")
        #expect(none.output.hasPrefix("Would remove 0 files, 0 B from"), "\(none.output)")
        #expect(none.output.contains("; kept 2 files, ") && !none.output.contains("emptied"), "\(none.output)")
        let one = try await runner.run("sweep", try cache("one", old: 1), "--max-age", "1d", "--order", "oldest", "--dry-run")
        #expect(one.output.hasPrefix("Would remove 1 file, "), "\(one.output)")
        #expect(one.output.contains("; kept 1 file, ") && one.output.hasSuffix("\nWould remove 1 emptied folder\n"), "\(one.output)")
        let two = try await runner.run("sweep", try cache("two", old: 2), "--max-age", "1d", "--order", "oldest")
        #expect(two.output.hasPrefix("Removed 2 files, "), "\(two.output)")
        #expect(two.output.contains("; kept 0 files, ") && two.output.hasSuffix("\nRemoved 2 emptied folders\n"), "\(two.output)")
    }

    @Test("clear and audit: files cleared, and findings, at 0, 1 and 2")
    func clearAndAudit() async throws {
        let runner = try CommandRunner()
        let app = runner.folderPath + "/app"
        for folder in ["Library/Caches", "Documents"] {
            try FileManager.default.createDirectory(atPath: app + "/" + folder, withIntermediateDirectories: true)
        }
        for count in 0...2 {
            if count > 0 {
                try Data(count: 100).write(to: URL(filePath: app + "/Library/Caches/cache\(count)"))
                try Data(count: 20_000).write(to: URL(filePath: app + "/Documents/big\(count)"))
            }
            let clear = try await runner.run("clear", "caches", "--root", app, "--dry-run")
            #expect(clear.output.contains("): " + ["0 files", "1 file", "2 files"][count] + ", "), "\(clear.output)")
            let audit = try await runner.run("audit", "--root", app, "--min-size", "10kB")
            let expected = ["No findings.\n", "1 finding:\n", "2 findings:\n"][count]
            #expect(audit.output.hasPrefix(expected), "\(audit.output)")
        }
    }
}
