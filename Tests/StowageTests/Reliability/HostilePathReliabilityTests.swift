import Foundation
import Testing
@testable import Stowage

/// Hostile names through every operation that takes a path. Each name has one correct outcome:
/// rejected (`invalidPath` from every path operation, and nothing anywhere changes), or an
/// ordinary name that must land exactly at the expected place inside the location. Either way a
/// sentinel tree beside the container, and the rest of the container, stay byte for byte and
/// inode for inode as they were.
@Suite("Reliability: hostile paths never leave the container")
struct HostilePathReliabilityTests {
    /// What a name must do.
    enum Outcome {
        /// `invalidPath`, touching nothing.
        case rejected
        /// An ordinary path: these names below the location, kept byte for byte.
        case inside([String])
    }

    static let longName = String(repeating: "n", count: 255)

    static let names: [(String, Outcome)] = [
        // `..` in every position, and what combining marks do to a check by characters.
        ("..", .rejected), ("../x", .rejected), ("a/..", .rejected), ("a/../b", .rejected),
        ("a/b/../../..", .rejected), ("../../outside/x", .rejected), ("x/../../outside/x", .rejected),
        ("./..", .rejected), ("../\u{301}x", .rejected), ("a/../\u{301}b", .rejected), ("..\u{301}/../x", .rejected),
        // Absolute paths, into the sentinel folder beside the container (`<outside>` stands for its
        // absolute path), so a broken check shows in the sentinel and never touches the machine's
        // own files (the tests run as root): a file in it, the folder itself, `//` forms.
        ("<outside>/x", .rejected), ("<outside>", .rejected), ("/<outside>", .rejected), ("/<outside>/x", .rejected),
        ("<outside>/new", .rejected),
        // NUL, empty, `.`.
        ("a\0b", .rejected), ("\0", .rejected), ("x/\0", .rejected), ("", .rejected), (".", .rejected),
        ("./x", .rejected), ("a/./b", .rejected), ("a/.", .rejected), ("./", .rejected),
        // Stowage's own names, however spelled.
        (".stowage-tmp-1", .rejected), ("d/.stowage-append-1", .rejected), (".stowage-last-sweep", .rejected),
        (".stowage-\u{301}x", .rejected),
        // Too long: one name over 255 bytes (in ASCII and in two-byte characters), whole paths too.
        (String(repeating: "y", count: 256), .rejected), ("d/" + String(repeating: "é", count: 128), .rejected),
        (Array(repeating: String(repeating: "p", count: 250), count: 13).joined(separator: "/"), .rejected),
        (String(repeating: "a/", count: 2100), .rejected),
        // Ordinary names, however odd: they stay inside, exactly as spelled.
        ("a/", .inside(["a"])), ("a//b", .inside(["a", "b"])), ("a///b//", .inside(["a", "b"])),
        ("line\nbreak", .inside(["line\nbreak"])), ("\n", .inside(["\n"])), ("..\n", .inside(["..\n"])),
        ("x/\n/y", .inside(["x", "\n", "y"])), ("\t\r", .inside(["\t\r"])),
        (longName, .inside([longName])), (String(repeating: "é", count: 127) + "n", .inside([String(repeating: "é", count: 127) + "n"])),
        (String(repeating: "d/", count: 100) + "f", .inside(Array(repeating: "d", count: 100) + ["f"])),
        ("\u{E9}", .inside(["\u{E9}"])), ("e\u{301}", .inside(["e\u{301}"])),
        ("\u{FF0E}\u{FF0E}", .inside(["\u{FF0E}\u{FF0E}"])), ("\u{FF0E}\u{FF0E}/x", .inside(["\u{FF0E}\u{FF0E}", "x"])),
        ("\u{2024}\u{2024}", .inside(["\u{2024}\u{2024}"])), ("..\u{301}", .inside(["..\u{301}"])),
        ("\u{301}x", .inside(["\u{301}x"])), ("\u{301}..", .inside(["\u{301}.."])), ("\u{FEFF}..", .inside(["\u{FEFF}.."])),
        (" ..", .inside([" .."])), (".. ", .inside([".. "])), ("...", .inside(["..."])), ("..hidden", .inside(["..hidden"])),
        ("%2e%2e/x", .inside(["%2e%2e", "x"])), ("..%2fx", .inside(["..%2fx"])), ("\\..\\x", .inside(["\\..\\x"])),
        ("~/x", .inside(["~", "x"])), ("$HOME", .inside(["$HOME"])), ("\u{202E}gpj.exe", .inside(["\u{202E}gpj.exe"])),
        ("CON", .inside(["CON"])), ("a:b*?", .inside(["a:b*?"])),
    ]

    /// One operation that takes a path; it throws ``Failure`` when an ordinary name misbehaves.
    struct Operation: Sendable {
        var name: String
        var run: @Sendable (Harness, String) throws -> Void
    }

    /// The container, a sentinel tree beside it, and the bits every operation needs.
    final class Harness {
        let folder = TestFolder("hostile")
        let store: Store
        let resource: URL
        let cache: DiskCache
        var documents: String { folder.path + "/container/Documents" }
        var caches: String { folder.path + "/container/Library/Caches" }

        init() throws {
            store = folder.store()
            try folder.write("sentinel", to: "outside/x")
            try folder.write("sentinel", to: "outside/deep/y")
            // Where the escapes above would land: beside the location folders, and their parents.
            try folder.write("sentinel", to: "container/\u{301}x")
            try folder.write("sentinel", to: "container/Library/\u{301}x")
            try folder.write("resource", to: "resource.txt")
            resource = folder.file("resource.txt")
            try store.save(Data("inside".utf8), to: "inside.bin", in: .documents)
            cache = try DiskCache(name: "keys", in: folder.container())
        }
    }

    static func expect(_ condition: Bool, _ comment: @autoclosure () -> String) throws {
        if !condition { throw Failure(comment()) }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The operations in an order that, for an ordinary name, leaves each one something to act on.
    static let operations: [Operation] = [
        Operation(name: "exists") { h, p in try expect(!(try h.store.exists(p, in: .documents)), "exists before saving") },
        Operation(name: "url(for:in:)") { h, p in
            _ = try h.store.url(for: p, in: .documents)
        },
        Operation(name: "save Data") { h, p in try h.store.save(Data("hostile".utf8), to: p, in: .documents) },
        Operation(name: "isFolder") { h, p in try expect(!(try h.store.isFolder(p, in: .documents)), "a folder") },
        Operation(name: "retrieve Data") { h, p in
            try expect(try h.store.retrieve(Data.self, from: p, in: .documents) == Data("hostile".utf8), "other bytes")
        },
        Operation(name: "excludeFromBackup") { h, p in try h.store.mark(p, in: .documents, .excludedFromBackup) },
        Operation(name: "isExcludedFromBackup") { h, p in
            try expect(try h.store.markers(of: p, in: .documents).contains(.excludedFromBackup), "not excluded")
        },
        Operation(name: "includeInBackup") { h, p in try h.store.unmark(p, in: .documents, .excludedFromBackup) },
        Operation(name: "mark") { h, p in try h.store.mark(p, in: .documents, .pinned) },
        Operation(name: "markers") { h, p in try expect(try h.store.markers(of: p, in: .documents) == [.pinned], "markers") },
        Operation(name: "unmark") { h, p in try h.store.unmark(p, in: .documents, .pinned) },
        Operation(name: "rename (source)") { h, p in try h.store.rename(p, to: "renamed", in: .documents) },
        Operation(name: "rename (destination)") { h, p in try h.store.rename("renamed", to: p, in: .documents) },
        Operation(name: "move (source)") { h, p in try h.store.move(p, from: .documents, to: .caches, as: "moved") },
        Operation(name: "move (destination)") { h, p in try h.store.move("moved", from: .caches, to: .documents, as: p) },
        Operation(name: "remove") { h, p in try h.store.remove(p, from: .documents) },
        Operation(name: "save value") { h, p in try h.store.save(Message(id: 1, text: "a"), to: p, in: .documents) },
        Operation(name: "retrieve value") { h, p in
            try expect(try h.store.retrieve(Message.self, from: p, in: .documents) == Message(id: 1, text: "a"), "other value")
        },
        Operation(name: "append value") { h, p in try h.store.append(Message(id: 2, text: "b"), to: p, in: .documents) },
        Operation(name: "append values") { h, p in
            try h.store.append(contentsOf: [Message(id: 3, text: "c")], to: p, in: .documents)
            try expect(try h.store.retrieve([Message].self, from: p, in: .documents).map(\.id) == [1, 2, 3], "other array")
            try h.store.remove(p, from: .documents)
        },
        Operation(name: "save [Data]") { h, p in try h.store.saveFolder([Data("0".utf8)], to: p, in: .documents) },
        Operation(name: "append Data") { h, p in try h.store.appendToFolder(Data("1".utf8), to: p, in: .documents) },
        Operation(name: "append [Data]") { h, p in try h.store.appendToFolder(contentsOf: [Data("2".utf8)], to: p, in: .documents) },
        Operation(name: "retrieve [Data]") { h, p in
            try expect(try h.store.retrieveFolder(from: p, in: .documents) == ["0", "1", "2"].map { Data($0.utf8) }, "items")
            try h.store.remove(p, from: .documents)
        },
        Operation(name: "materialize") { h, p in
            let url = try h.store.materialize(h.resource, to: p, in: .documents)
            try expect(try Data(contentsOf: url) == Data("resource".utf8), "materialized copy")
            try h.store.remove(p, from: .documents)
        },
        Operation(name: "DiskCache(name:in:)") { h, p in
            let cache = try DiskCache(name: p, in: h.folder.container())
            try cache.set(Data("entry".utf8), for: "k")
            try expect(try cache.data(for: "k") == Data("entry".utf8), "cache entry")
            try h.store.remove(p, from: .caches)
        },
    ]

    /// Where an ordinary path's item must be.
    static func expectedPath(_ harness: Harness, _ components: [String]) -> String {
        ([harness.documents] + components).joined(separator: "/")
    }

    @Test("hostile names through every operation that takes a path, DiskCache keys and app groups")
    func everyNameThroughEveryOperation() throws {
        let harness = try Harness()
        let folder = harness.folder
        let sentinel = try folder.snapshot("outside")
        var attempts = 0
        for (template, outcome) in Self.names {
            let name = template.replacingOccurrences(of: "<outside>", with: folder.path + "/outside")
            let label = String(reflecting: name.count > 40 ? String(name.prefix(20)) + "…(\(name.utf8.count) bytes)" : name)
            let before = try folder.snapshot()
            switch outcome {
            case .rejected:
                for operation in Self.operations {
                    attempts += 1
                    do {
                        try operation.run(harness, name)
                        Issue.record("\(operation.name) \(label): accepted, expected invalidPath")
                    } catch let error as StowageError {
                        #expect(error.code == .invalidPath && error.path == name,
                                "\(operation.name) \(label): \(error.debugDescription)")
                    } catch {
                        Issue.record("\(operation.name) \(label): accepted, expected invalidPath (\(error))")
                    }
                }
                #expect(try folder.snapshot() == before, "\(label): something changed")
            case .inside(let components):
                let expected = Self.expectedPath(harness, components)
                for operation in Self.operations {
                    attempts += 1
                    do {
                        try operation.run(harness, name)
                    } catch {
                        Issue.record("\(operation.name) \(label): \(error)")
                    }
                    if operation.name == "save Data" {
                        #expect(folder.exists(String(expected.dropFirst(folder.path.count + 1))), "\(label) saved elsewhere")
                    }
                }
                #expect(try harness.store.url(for: name, in: .documents).path(percentEncoded: false) == expected, "\(label) url")
                // Outside the locations nothing changed; inside, only folders on the way remain.
                let after = try folder.snapshot()
                let locations = ["container/Documents", "container/Library/Caches"]
                func outsideLocations(_ snapshot: [String: String]) -> [String: String] {
                    snapshot.filter { entry in !locations.contains { entry.key == $0 || entry.key.hasPrefix($0 + "/") } }
                }
                #expect(outsideLocations(after) == outsideLocations(before), "\(label): something outside the locations changed")
                let onTheWay = Set(components.indices.dropLast().map {
                    "container/Documents/" + components[...$0].joined(separator: "/")
                })
                let added = Set(after.keys).subtracting(before.keys).subtracting(onTheWay)
                #expect(added.subtracting(["container/Library/Caches/moved"]).allSatisfy { $0.hasPrefix("container/Library/Caches/") && after[$0]!.hasSuffix(" folder") },
                        "\(label): left \(added.sorted())")
            }
            // Keys of a DiskCache are never paths: any string is an ordinary key inside the cache.
            attempts += 1
            do {
                try harness.cache.set(Data("value".utf8), for: name)
                #expect(try harness.cache.data(for: name) == Data("value".utf8), "key \(label)")
                try harness.cache.remove(name)
                #expect(try harness.cache.data(for: name) == nil, "key \(label) removed")
            } catch {
                Issue.record("key \(label): \(error)")
            }
            // An app-group identifier is one folder name: it holds no '/', is not '.' or '..'.
            attempts += 1
            let bytes = Array(name.utf8)
            let validGroup = !bytes.isEmpty && !bytes.contains(UInt8(ascii: "/")) && !bytes.contains(0)
                && name != "." && name != ".." && bytes.count <= 255
            do {
                try harness.store.save(Data("group".utf8), to: "f", in: .sharedContainer(name))
                #expect(validGroup, "group \(label) accepted")
                #expect(try folder.read("container/Shared/AppGroup/\(name)/f") == "group")
                try harness.store.clear(.sharedContainer(name))
                try FileManager.default.removeItem(atPath: folder.path + "/container/Shared/AppGroup/\(name)")
            } catch let error as StowageError {
                #expect(!validGroup && error.code == .invalidArgument, "group \(label): \(error.debugDescription)")
            }
            #expect(try folder.snapshot("outside") == sentinel, "\(label): the sentinel tree changed")
        }
        #expect(try harness.store.retrieve(Data.self, from: "inside.bin", in: .documents) == Data("inside".utf8))
        let rejected = Self.names.filter { if case .rejected = $0.1 { true } else { false } }.count
        print("hostile paths: \(Self.names.count) names (\(rejected) rejected, \(Self.names.count - rejected) ordinary) "
            + "x \(Self.operations.count) path operations + DiskCache key + app group = \(attempts) attempts")
        #expect(Self.names.count >= 40)
    }

    @Test("a link planted inside the container that points outside is never followed")
    func plantedLink() throws {
        let harness = try Harness()
        let (folder, store) = (harness.folder, harness.store)
        let before = try folder.snapshot("outside")
        try FileManager.default.createSymbolicLink(atPath: harness.documents + "/escape", withDestinationPath: folder.path + "/outside")
        try FileManager.default.createSymbolicLink(atPath: harness.documents + "/file-link", withDestinationPath: folder.path + "/outside/x")
        try FileManager.default.createSymbolicLink(atPath: harness.caches + "/escape", withDestinationPath: folder.path + "/outside")

        expectStowageError(.invalidPath) { try store.save(Data("evil".utf8), to: "escape/x", in: .documents) }
        expectStowageError(.invalidPath) { try store.retrieve(Data.self, from: "file-link", in: .documents) }
        expectStowageError(.invalidPath) { try store.appendToFolder(Data("evil".utf8), to: "escape", in: .documents) }
        expectStowageError(.invalidPath) { try DiskCache(name: "escape", in: folder.container()) }
        #expect(try folder.snapshot("outside") == before)
        // Then every operation; on the links themselves some succeed (saving over a link
        // replaces the link, removing it removes the link), none reaches what they point to.
        var attempts = 0
        for path in ["escape/x", "escape/new/y", "escape/deep/y", "file-link", "escape"] {
            for operation in Self.operations {
                attempts += 1
                do {
                    try operation.run(harness, path)
                } catch let error as StowageError where error.code == .invalidPath || error.code == .notFound {
                    continue  // refused at the link, or nothing there to act on
                } catch {
                    if path.hasPrefix("escape/") { Issue.record("\(operation.name) \(path): \(error)") }
                }
                #expect(try folder.snapshot("outside") == before, "\(operation.name) \(path) changed the outside")
            }
        }
        print("planted links: 5 paths x \(Self.operations.count) operations = \(attempts) attempts")

        // Saving over a link replaces the link itself; removing and clearing remove only links.
        try? store.remove("file-link", from: .documents)
        try? store.remove("escape", from: .documents)
        try store.clear(.documents)
        try store.clear(.caches)
        #expect(try folder.snapshot("outside") == before)
        #expect(try folder.read("outside/x") == "sentinel")
    }

    @Test("a folder swapped for a link after it was opened cannot redirect the write")
    func swappedFolder() throws {
        let harness = try Harness()
        let (folder, store) = (harness.folder, harness.store)
        let before = try folder.snapshot("outside")
        try store.save(Data("1".utf8), to: "work/a", in: .documents)
        // Swap: the real folder moves away, a link to the outside takes its name.
        try FileManager.default.moveItem(atPath: harness.documents + "/work", toPath: harness.documents + "/work-moved")
        try FileManager.default.createSymbolicLink(atPath: harness.documents + "/work", withDestinationPath: folder.path + "/outside")
        expectStowageError(.invalidPath) { try store.save(Data("evil".utf8), to: "work/x", in: .documents) }
        expectStowageError(.invalidPath) { try store.remove("work/x", from: .documents) }
        try store.clear(.documents)  // removes the link itself, never what it points to
        #expect(try folder.snapshot("outside") == before)
    }

    @Test("a DiskCache whose folder is swapped for a link after it was made never follows the link")
    func swappedCacheFolder() throws {
        let harness = try Harness()
        let folder = harness.folder
        let before = try folder.snapshot("outside")
        let cache = try DiskCache(name: "thumbnails", in: folder.container(), limits: DiskCache.Limits(maximumCount: 1))
        try cache.set(Data("1".utf8), for: "a")
        try FileManager.default.moveItem(atPath: harness.caches + "/thumbnails", toPath: harness.caches + "/thumbnails-moved")
        try FileManager.default.createSymbolicLink(atPath: harness.caches + "/thumbnails", withDestinationPath: folder.path + "/outside")
        expectStowageError(.invalidPath) { try cache.set(Data("evil".utf8), for: "b") }
        expectStowageError(.invalidPath) { _ = try cache.data(for: "a") }
        expectStowageError(.invalidPath) { try cache.remove("a") }
        expectStowageError(.invalidPath) { try cache.removeAll() }
        expectStowageError(.invalidPath) { try cache.sweep() }
        #expect(try folder.snapshot("outside") == before)
        // A folder removed behind the cache's back (by clearing Caches, say) is made again.
        try FileManager.default.removeItem(atPath: harness.caches + "/thumbnails")
        try cache.set(Data("2".utf8), for: "c")
        #expect(try cache.data(for: "c") == Data("2".utf8))
    }

    @Test("a folder swapped back and forth with a link to the outside, while every operation runs, never leads outside")
    func racingSwap() async throws {
        let harness = try Harness()
        let folder = harness.folder
        let before = try folder.snapshot("outside")
        try harness.store.save(Data("1".utf8), to: "work/x", in: .documents)
        try FileManager.default.createSymbolicLink(atPath: harness.documents + "/link", withDestinationPath: folder.path + "/outside")
        // The swapper exchanges `work` and `link` atomically (renameat2 RENAME_EXCHANGE), as fast as it can.
        let documents = try OpenFile.openFolder(atPath: harness.documents, followingLinks: false)
        let descriptor = documents.descriptor
        let stop = Flag()
        let swapper = Thread {
            while !stop.isSet { try? Sys.renameat2(descriptor, "work", descriptor, "link", exchange: true) }
        }
        swapper.start()
        defer { stop.set() }
        var attempts = 0
        var outcomes: [String: Int] = [:]
        // At least 3 s, and on until the link was met (however the two threads get scheduled),
        // up to 60 s.
        let start = Date()
        while Date() < start + 3 || (outcomes["invalidPath", default: 0] == 0 && Date() < start + 60) {
            for path in ["work/x", "work/deep/y", "work"] {
                for operation in Self.operations {
                    attempts += 1
                    do {
                        try operation.run(harness, path)
                        outcomes["done", default: 0] += 1
                    } catch let error as StowageError {
                        outcomes["\(error.code)", default: 0] += 1
                    } catch {
                        outcomes["check failed", default: 0] += 1  // the item moved under us: fine
                    }
                }
            }
        }
        stop.set()
        let stopped = Date()
        while !swapper.isFinished && Date() < stopped + 30 { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(swapper.isFinished, "the swapper stopped within 30 s")
        withExtendedLifetime(documents) {}
        #expect(try folder.snapshot("outside") == before, "an operation went through the link")
        #expect(outcomes["invalidPath", default: 0] > 0, "the link was met: \(outcomes)")
        print("racing swap: \(attempts) operations while a folder and a link to the outside were exchanged; outcomes \(outcomes.sorted { $0.key < $1.key })")
    }
}

/// A flag set once by one thread and read by another.
///
/// `@unchecked Sendable`: the value is read and written only under `lock`.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
