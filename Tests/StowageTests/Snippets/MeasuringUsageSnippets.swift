import Foundation
import Testing
@testable import Stowage

/// The snippets of "Measuring usage" (MeasuringUsage.md), run on trees in the test's own folder.
@Suite("Snippets: Usage")
struct MeasuringUsageSnippets {
    static func scan(downloads: URL) -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet MeasuringUsage/scan
        let report = UsageScanner().scan([downloads])
        print(ByteCount(report.allocatedBytes).formatted(), "on disk,",
              ByteCount(report.logicalBytes).formatted(), "of data")
        for file in report.largestFiles.prefix(3) {
            print(ByteCount(file.allocatedBytes).formatted(), file.path)
        }
        for issue in report.issues { print("could not read:", issue) }
        // end snippet
        return printed
    }

    static func breakdown(project: URL) -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet MeasuringUsage/breakdown
        var options = UsageOptions()
        options.breakdownDepth = 2
        options.excludedPatterns = ["*.log", "node_modules"]
        options.staysOnOneFileSystem = true
        let report = UsageScanner(options: options).scan([project])
        for child in report.breakdownTree()[0].children {
            print(ByteCount(child.item.allocatedBytes).formatted(), child.item.path)
        }
        // end snippet
        return printed
    }

    static func locations(container: Container) throws -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet MeasuringUsage/locations
        for usage in try container.usage() {
            print(usage.location, ByteCount(usage.totals.allocatedBytes).formatted())
        }
        // end snippet
        return printed
    }

    static func progress(downloads: URL) async throws -> Int64? {
        // snippet MeasuringUsage/progress
        let report = try await UsageScanner().scan([downloads]) { progress in
            print("\(progress.items) entries, \(ByteCount(progress.bytes).formatted()) in \(progress.elapsed)")
        }
        let total = report.wasCancelled ? nil : report.allocatedBytes   // partial figures are no total
        // end snippet
        return total
    }

    static func cancel(downloads: URL) async throws -> UsageReport {
        // snippet MeasuringUsage/cancel
        let scan = Task { try await UsageScanner().scan([downloads]) { _ in } }
        scan.cancel()                            // the user left the screen
        let partial = try await scan.value       // no error: the figures read until then
        print(partial.wasCancelled)              // true, unless the scan had finished already
        // end snippet
        return partial
    }

    /// A tree: `big.bin` (300 kB), `a/small.txt` (2 kB), `a/b/mid.bin` (40 kB), `node_modules/x` (1 MB),
    /// `debug.log` (500 kB).
    static func makeTree(in folder: TestFolder) throws -> URL {
        let root = folder.file("tree")
        for (path, size) in [("big.bin", 300_000), ("a/small.txt", 2_000), ("a/b/mid.bin", 40_000),
                             ("node_modules/x", 1_000_000), ("debug.log", 500_000)] {
            try folder.write(String(repeating: "x", count: size), to: "tree/" + path)
        }
        return root
    }

    @Test("the scan example prints the totals and the largest files, largest first")
    func scan() throws {
        let folder = TestFolder("snippet-usage")
        let tree = try Self.makeTree(in: folder)
        let printed = Self.scan(downloads: tree)
        #expect(printed.count == 4, "\(printed)")
        #expect(printed.first?.hasSuffix("of data") == true)
        #expect(printed.dropFirst().first?.hasSuffix("/tree/node_modules/x") == true)
        #expect(printed.dropFirst(2).first?.hasSuffix("/tree/debug.log") == true)
    }

    @Test("the breakdown example leaves out the excluded patterns and lists the root's children largest first")
    func breakdown() throws {
        let folder = TestFolder("snippet-usage-breakdown")
        let tree = try Self.makeTree(in: folder)
        let printed = Self.breakdown(project: tree)
        #expect(printed.map { $0.split(separator: "/").last.map(String.init) ?? "" } == ["big.bin", "a"], "\(printed)")
    }

    @Test("each location of a container is measured; one never written has zero totals")
    func locations() throws {
        let folder = TestFolder("snippet-usage-locations")
        let store = folder.store()
        try store.save(Data(count: 10_000), to: "blob", in: .caches)
        let printed = try Self.locations(container: store.container)
        #expect(printed.count == 5)
        #expect(printed.contains("Documents 0 B"))
        #expect(printed.contains { $0.hasPrefix("Caches ") && $0 != "Caches 0 B" })
    }

    @Test("the async scan reports progress and a total; a cancelled one returns what it counted, without an error")
    func asyncScans() async throws {
        let folder = TestFolder("snippet-usage-async")
        let tree = try Self.makeTree(in: folder)
        let total = try await Self.progress(downloads: tree)
        let full = try await UsageScanner().scan([tree]) { _ in }
        #expect(total == full.allocatedBytes)
        let partial = try await Self.cancel(downloads: tree)
        #expect(partial.allocatedBytes <= total ?? 0)
    }
}
