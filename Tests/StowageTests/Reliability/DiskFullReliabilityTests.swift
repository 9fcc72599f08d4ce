import Foundation
import Testing
@testable import Stowage

/// Every write of the Store and the DiskCache, and a fill, on a real tmpfs that Stowage's own
/// filler has filled to the last block: each must fail with `noSpace` naming its path, leave
/// what was there byte for byte, and leave no temporary file behind.
@Suite("Reliability: a full disk")
struct DiskFullReliabilityTests {
    /// A write to attempt on the full volume: its name, the path it must name, and the call.
    struct Attempt {
        var name: String
        var path: String
        var run: () throws -> Void
    }

    @Test("every write on a full volume is noSpace with its path, and changes nothing")
    func everyWrite() throws {
        let folder = TestFolder()
        let volume = try ScratchVolume.mount(size: "8m", in: folder)
        let container = Container(root: volume.url)
        let store = Store(container: container)
        // A cache that is full evicts its own entries to make room (DiskCacheFullDiskTests): here it
        // must only be left as it was by everything else that fails.
        let cache = try DiskCache(name: "thumbs", in: container)

        // What is there before the disk fills: a value, data, an array, a numbered folder,
        // a cache entry, and a resource outside the volume to materialize.
        try store.save(Message(id: 1, text: "kept"), to: "value.json", in: .documents)
        try store.save(Data("kept data".utf8), to: "blob.bin", in: .applicationSupport)
        try store.save([Message(id: 1, text: "first")], to: "log.json", in: .documents)
        try store.saveFolder([Data("zero".utf8)], to: "frames", in: .caches)
        try cache.set(Data("kept entry".utf8), for: "old key")
        try folder.write(String(repeating: "r", count: 100_000), to: "resource.bin")

        let report = try Filler(plan: FillPlan(volume: volume.url, goal: .leaving(0))).fill()
        #expect(report.ending == .goalReached)
        // The volume's own figure (fstatvfs), not VolumeCapacity's: a simulated-capacity test
        // elsewhere in this process may have installed figures for the whole process meanwhile.
        let available = try OpenFile.openFolder(atPath: volume.path, followingLinks: true).spaceFigures().available
        #expect(available == 0, "the filler filled the volume")
        let relative = volume.url.lastPathComponent
        let before = try contentSnapshot(folder, relative)

        let big = Data(repeating: 0x42, count: 64 << 10)
        let bigText = String(repeating: "x", count: 64 << 10)
        let attempts: [Attempt] = [
            Attempt(name: "save a value over an old one", path: "value.json") {
                try store.save(Message(id: 2, text: bigText), to: "value.json", in: .documents)
            },
            Attempt(name: "save a new value", path: "new/value.json") {
                try store.save(Message(id: 3, text: bigText), to: "new/value.json", in: .documents)
            },
            Attempt(name: "save data over old data", path: "blob.bin") {
                try store.save(big, to: "blob.bin", in: .applicationSupport)
            },
            Attempt(name: "save a folder of data", path: "frames") {
                try store.saveFolder([big, big], to: "frames", in: .caches, options: WriteOptions(replacesExistingFolder: true))
            },
            Attempt(name: "append a value", path: "log.json") {
                try store.append(Message(id: 2, text: bigText), to: "log.json", in: .documents)
            },
            Attempt(name: "append values", path: "log.json") {
                try store.append(contentsOf: [Message(id: 3, text: bigText)], to: "log.json", in: .documents)
            },
            Attempt(name: "append data to a numbered folder", path: "frames") {
                try store.appendToFolder(big, to: "frames", in: .caches)
            },
            Attempt(name: "append data items", path: "frames") {
                try store.appendToFolder(contentsOf: [big], to: "frames", in: .caches)
            },
            Attempt(name: "materialize a resource", path: "resource.bin") {
                try store.materialize(folder.file("resource.bin"), to: "resource.bin")
            },
            Attempt(name: "fill more", path: volume.path) {
                try Filler(plan: FillPlan(volume: volume.url, goal: .consuming(1_000_000))).fill()
            },
        ]
        for attempt in attempts {
            let error = expectStowageError(.noSpace) { try attempt.run() }
            #expect(error?.path?.hasSuffix(attempt.path) == true || error?.path?.hasPrefix(attempt.path) == true,
                    "\(attempt.name): the error names \(attempt.path): \(String(describing: error))")
            let after = try contentSnapshot(folder, relative)
            // What was there is unchanged; the only thing a failed write may leave is an empty
            // folder it created on the way (as `mkdir -p` would).
            let changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.filter { path in
                !(before[path] == nil && after[path] == "folder"
                    && ((try? FileManager.default.contentsOfDirectory(atPath: volume.path + "/" + path).isEmpty) ?? false))
            }
            #expect(changed.isEmpty, "\(attempt.name): changed \(changed.sorted())")
            #expect(folder.leftoverTemporaryItems(in: relative, prefixes: [TemporaryItem.prefix, ".stowage-append"]).isEmpty,
                    "\(attempt.name): no temporary file remains")
        }
        print("Disk full: \(attempts.count) write operations tried on a full tmpfs, each noSpace, nothing changed")

        try FillFolder(in: volume.url).release()
        #expect(try store.retrieve(Message.self, from: "value.json", in: .documents) == Message(id: 1, text: "kept"))
        #expect(try store.retrieve([Message].self, from: "log.json", in: .documents) == [Message(id: 1, text: "first")])
        #expect(try cache.data(for: "old key") == Data("kept entry".utf8))
        try store.append(Message(id: 2, text: "after"), to: "log.json", in: .documents)
        #expect(try store.retrieve([Message].self, from: "log.json", in: .documents).count == 2, "writes work again once space is back")
    }

    /// Names and file contents below `relative` (files compared whole, with inode and time;
    /// folders by name only, since a failed write may create and remove a temporary file in
    /// them), without the fill folder.
    private func contentSnapshot(_ folder: TestFolder, _ relative: String) throws -> [String: String] {
        try folder.snapshot(relative).filter { !$0.key.hasPrefix(FillFolder.name) }.mapValues { value in
            value.hasSuffix(" folder") ? "folder" : value
        }
    }
}
