import Foundation
import Testing
@testable import Stowage

/// What a durable write syncs, and that an atomic-only write syncs nothing: read from the
/// Platform layer's record of durability calls (debug builds), by inode.
@Suite("Durability: what is synced")
struct DurabilityTests {
    func inode(_ path: String) -> UInt64 {
        var status = stat()
        lstat(path, &status)
        return UInt64(status.st_ino)
    }

    @Test("a durable save syncs the new file's data and then its folder; an atomic-only save syncs nothing")
    func save() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data(), to: "Inbox/placeholder", in: .documents, options: .atomicOnly)  // the folders exist
        let inbox = folder.path + "/container/Documents/Inbox"
        let durable = TestProbe()
        try TestProbe.$installed.withValue(durable) {
            try store.save([1, 2, 3], to: "Inbox/a.json", in: .documents, options: .durable)
        }
        #expect(durable.durabilityCalls.map(\.event) == [.syncData, .syncFolder])
        #expect(durable.durabilityCalls.map(\.inode) == [inode(inbox + "/a.json"), inode(inbox)])

        let atomicOnly = TestProbe()
        try TestProbe.$installed.withValue(atomicOnly) {
            try store.save([4], to: "Inbox/a.json", in: .documents, options: .atomicOnly)
            try store.save(Data("x".utf8), to: "Inbox/b.bin", in: .documents, options: .atomicOnly)
            try store.append(5, to: "Inbox/a.json", in: .documents, options: .atomicOnly)
        }
        #expect(atomicOnly.durabilityCalls.isEmpty, "\(atomicOnly.durabilityCalls)")
        #expect(try store.retrieve([Int].self, from: "Inbox/a.json", in: .documents) == [4, 5])
    }

    @Test("a durable append syncs its journal and the array's data; Documents is durable by default")
    func append() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save([1], to: "a.json", in: .documents)
        let documents = folder.path + "/container/Documents"
        let probe = TestProbe()
        try TestProbe.$installed.withValue(probe) { try store.append(2, to: "a.json", in: .documents) }
        let array = inode(documents + "/a.json")
        let calls = probe.durabilityCalls
        #expect(calls.contains(TestProbe.Sync(event: .syncData, device: calls.first?.device ?? 0, inode: array)),
                "the array's data is synced: \(calls)")
        #expect(calls.filter { $0.event == .syncData && $0.inode != array }.count == 1, "and the journal's: \(calls)")
        #expect(calls.contains { $0.event == .syncFolder && $0.inode == inode(documents) }, "the journal's entry: \(calls)")
        #expect(try store.retrieve([Int].self, from: "a.json", in: .documents) == [1, 2])
    }
}
