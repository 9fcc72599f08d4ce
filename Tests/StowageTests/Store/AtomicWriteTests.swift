import Foundation
import Testing
@testable import Stowage

/// Atomic writes that must not replace, made deterministic by a fault point: another writer
/// creates the target between the temporary file's write and its rename.
@Suite("AtomicWrite")
struct AtomicWriteTests {
    @Test("a write that must not replace fails with EEXIST when the target appears before its rename, leaving it and no temporary file")
    func noReplaceLosesTheRace() throws {
        let folder = TestFolder()
        let probe = TestProbe()
        probe.on(.atomicWriteBeforeRename) { _ in try Data("theirs".utf8).write(to: folder.file("a.json")) }
        let parent = try OpenFile.openFolder(atPath: folder.path, followingLinks: false)
        #expect(throws: SystemCallError(errno: .fileExists, call: "renameat2")) {
            try TestProbe.$installed.withValue(probe) {
                try AtomicWrite.write(Data("mine".utf8), into: parent, name: "a.json", durable: false, protection: nil, replacing: false)
            }
        }
        #expect(try folder.read("a.json") == "theirs")
        #expect(folder.leftoverTemporaryItems().isEmpty)
    }

    @Test("an append creating a new array appends to the one another writer created meanwhile, never replaces it")
    func appendCreatingLosesTheRace() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data(), to: "placeholder", in: .documents)  // the folder exists
        let probe = TestProbe()
        probe.on(.atomicWriteBeforeRename) { hit in
            if hit == 1 { try Data("[99]".utf8).write(to: folder.file("container/Documents/a.json")) }
        }
        try TestProbe.$installed.withValue(probe) { try store.append(1, to: "a.json", in: .documents) }
        #expect(try store.retrieve([Int].self, from: "a.json", in: .documents) == [99, 1])
        #expect(folder.leftoverTemporaryItems().isEmpty)
    }
}
