import Foundation
import StowageTestSupport
import Testing
@testable import Stowage
@testable import stowage

/// `usage --compare --json` is written by `UsageComparisonJSON`, not `JSONEncoder`: these check
/// that it writes exactly the bytes `JSONOutput.encode` writes for the same difference, on empty,
/// hostile and seeded random trees, and on a difference the library computed.
@Suite("usage --compare --json: UsageComparisonJSON writes JSONOutput.encode's bytes")
struct UsageComparisonJSONTests {
    /// Both texts equal; on a difference, says where the first one is.
    static func expectSame(_ difference: UsageDifference, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let written = UsageComparisonJSON.text(difference), encoded = try JSONOutput.encode(difference)
        guard written != encoded else { return }
        let at = zip(written.utf8, encoded.utf8).prefix { $0 == $1 }.count
        Issue.record("\(what): the texts differ at byte \(at): written \(String(decoding: Array(written.utf8.dropFirst(max(0, at - 80)).prefix(160)), as: UTF8.self).debugDescription), JSONEncoder \(String(decoding: Array(encoded.utf8.dropFirst(max(0, at - 80)).prefix(160)), as: UTF8.self).debugDescription)",
                     sourceLocation: sourceLocation)
    }

    /// A change at `pathBytes` with these figures and children, its changes after less before
    /// (wrapping around: figures may be anything here).
    static func change(_ pathBytes: [UInt8], depth: Int, isFolder: Bool, before: UsageFigures?, after: UsageFigures?,
                       children: [UsageChange] = []) -> UsageChange {
        var change = UsageChange(item: UsageItem(pathBytes: pathBytes, depth: depth, isFolder: isFolder, logicalBytes: 0, allocatedBytes: 0,
                                                 fileCount: 0),
                                 before: nil, after: nil, children: children)
        change.before = before
        change.after = after
        let old = before ?? UsageFigures(), new = after ?? UsageFigures()
        change.changeInAllocatedBytes = new.allocatedBytes &- old.allocatedBytes
        change.changeInLogicalBytes = new.logicalBytes &- old.logicalBytes
        change.changeInFileCount = new.fileCount &- old.fileCount
        change.kind = before == nil ? .added : after == nil ? .removed : children.isEmpty ? .grown : .rearranged
        return change
    }

    static func figures(_ logical: Int64, _ allocated: Int64, _ files: Int) -> UsageFigures {
        var figures = UsageFigures()
        figures.logicalBytes = logical
        figures.allocatedBytes = allocated
        figures.fileCount = files
        return figures
    }

    @Test("empty: no roots, a root without changes, a root whose only child is an empty folder")
    func empty() throws {
        try Self.expectSame(UsageDifference(roots: []), "no roots")
        let root = Self.change(Array("/r".utf8), depth: 0, isFolder: true, before: Self.figures(0, 0, 0), after: Self.figures(0, 0, 0))
        try Self.expectSame(UsageDifference(roots: [root]), "an unchanged root")
        let folder = Self.change(Array("/r/e".utf8), depth: 1, isFolder: true, before: nil, after: Self.figures(0, 0, 0))
        var parent = root
        parent.children = [folder]
        try Self.expectSame(UsageDifference(roots: [parent, root]), "an empty folder added")
    }

    /// Names that JSON must escape or carry: quotes, backslashes, every kind of control
    /// character, slashes, DEL, U+2028 and U+2029, and bytes that are not UTF-8 (the text then
    /// holds U+FFFD and `pathBase64` the bytes).
    static let hostileNames: [[UInt8]] = [
        Array("q\"uote".utf8), Array("back\\slash".utf8), Array("tab\tnew\nline\r\u{8}\u{c}".utf8), Array("\u{1}\u{1f}\u{7f}".utf8),
        Array("line\u{2028}para\u{2029}".utf8), [0x6E, 0xFF, 0x78], [0xC3], [0xE2, 0x80], [0xED, 0xA0, 0x80], Array("é😀".utf8) + [0x80],
        Array("\\\"".utf8), Array(" ".utf8), Array("\u{FFFD}".utf8),
    ]

    @Test("hostile names, every kind of change, and figures at both ends of Int64 and Int")
    func hostile() throws {
        let ends: [Int64] = [.min, .min + 1, -1, 0, 1, .max - 1, .max]
        var children: [UsageChange] = []
        for (index, name) in Self.hostileNames.enumerated() {
            let end = ends[index % ends.count], other = ends[(index + 3) % ends.count]
            var change = Self.change(Array("/r/".utf8) + name, depth: 1, isFolder: index % 2 == 0,
                                     before: index % 3 == 0 ? nil : Self.figures(end, other, Int(truncatingIfNeeded: end)),
                                     after: index % 3 == 1 ? nil : Self.figures(other, end, index % 2 == 0 ? .min : .max))
            change.changeInAllocatedBytes = end
            change.changeInLogicalBytes = other
            change.changeInFileCount = index % 2 == 0 ? .max : .min
            change.kind = [.added, .removed, .grown, .shrunk, .rearranged, .unchanged, UsageChange.Kind(rawValue: "odd\"\\\n\u{2028}")][index % 7]
            change.children = [Self.change(change.pathBytes + Array("/\u{0}in".utf8), depth: 2, isFolder: false, before: nil,
                                           after: Self.figures(1, 4096, 1))]
            children.append(change)
        }
        var root = Self.change(Array("/r".utf8), depth: 0, isFolder: true, before: Self.figures(5, 4096, 1), after: Self.figures(.max, .max, .max))
        root.children = children
        let odd = Self.change([0x2F, 0xFF], depth: 0, isFolder: false, before: Self.figures(.min, .min, .min), after: nil)
        try Self.expectSame(UsageDifference(roots: [root, odd]), "hostile names")
    }

    @Test("100 seeded random trees of up to 6 levels, names from a hostile alphabet, random figures")
    func randomTrees() throws {
        var random = SeededRandom(for: "UsageComparisonJSONTests/randomTrees")
        let pieces: [[UInt8]] = [Array("a".utf8), Array("Zz9".utf8), Array("é".utf8), Array("\"".utf8), Array("\\".utf8), [0x0A], [0x00],
                                 [0x1F], [0x7F], Array("\u{2028}".utf8), Array("😀".utf8), [0xFF], [0xC3], [0x80], Array(" ".utf8)]
        func number(_ random: inout SeededRandom) -> Int64 {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: [Int64.min, -1, 0, 1, .max].randomElement(using: &random)!
            case 1: Int64.random(in: -10_000...10_000, using: &random)
            default: Int64.random(in: .min ... .max, using: &random)
            }
        }
        func tree(_ path: [UInt8], depth: Int, _ random: inout SeededRandom) -> UsageChange {
            let isFolder = depth == 0 || Bool.random(using: &random)
            let count = isFolder && depth < 6 ? Int.random(in: 0...(depth < 2 ? 6 : 3), using: &random) : 0
            let children = (0..<count).map { _ in
                let name = (0..<Int.random(in: 1...4, using: &random)).flatMap { _ in pieces.randomElement(using: &random)! }
                return tree(path + [0x2F] + name, depth: depth + 1, &random)
            }
            let side = Int.random(in: 0..<3, using: &random)
            let before = side == 0 ? nil : Self.figures(number(&random), number(&random), Int(number(&random)))
            let after = side == 1 ? nil : Self.figures(number(&random), number(&random), Int(number(&random)))
            var change = Self.change(path, depth: depth, isFolder: isFolder, before: before, after: after, children: children)
            change.changeInAllocatedBytes = number(&random)  // any figure, not only a difference that fits
            return change
        }
        for index in 0..<100 {
            let roots = (0..<Int.random(in: 0...3, using: &random)).map { root in tree(Array("/root\(root)".utf8), depth: 0, &random) }
            try Self.expectSame(UsageDifference(roots: roots), "tree \(index) of seed \(random.seed)")
        }
    }

    @Test("a difference the library computed from two reports (the schema test's), and the same roots reversed")
    func computed() throws {
        let difference = JSONSchemaCoverageTests.difference()
        #expect(!difference.roots.flatMap(\.allChanges).isEmpty)
        try Self.expectSame(difference, "the schema test's difference")
        try Self.expectSame(UsageDifference(roots: difference.roots.reversed()), "reversed")
    }
}
