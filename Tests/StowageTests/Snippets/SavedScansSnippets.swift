import Foundation
import Testing
@testable import Stowage

/// The snippets of "Saved scans and what grew" (SavedScans.md), run on a tree in the test's own folder.
@Suite("Snippets: Saved scans")
struct SavedScansSnippets {
    @Test("a scan saved, read back, and compared with the tree a file later: the file is the change")
    func saveAndCompare() async throws {
        let folder = TestFolder()
        let caches = folder.url.appending(path: "caches", directoryHint: .isDirectory)
        let snapshot = folder.url.appending(path: "snapshot.json")
        try FileManager.default.createDirectory(at: caches, withIntermediateDirectories: true)
        try Data(count: 5000).write(to: caches.appending(path: "old.bin"))
        // snippet SavedScans/save
        var everything = UsageOptions()
        everything.breakdownDepth = .max
        let report = try await UsageScanner(options: everything).scan([caches]) { _ in }
        try report.ncduExport().write(to: snapshot)
        // a week later
        let lastWeek = try UsageReport(ncduExport: Data(contentsOf: snapshot), options: everything)
        // end snippet
        #expect(lastWeek.breakdownTree() == report.breakdownTree())
        try Data(count: 9000).write(to: caches.appending(path: "new.bin"))
        let printed = try Self.compare(caches: caches, lastWeek: lastWeek, everything: everything)
        #expect(printed.count == 1 && printed[0].hasPrefix("added \(caches.fileSystemPath)/new.bin"), "\(printed)")
    }

    /// The article's comparison, synchronous (the scan's blocking form).
    static func compare(caches: URL, lastWeek: UsageReport, everything: UsageOptions) throws -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet SavedScans/compare
        let now = UsageScanner(options: everything).scan([caches])
        for change in now.difference(from: lastWeek).roots[0].children.prefix(5) {
            print(change.kind, change.path, ByteCount(change.changeInAllocatedBytes).formatted())
        }
        // end snippet
        return printed
    }
}
