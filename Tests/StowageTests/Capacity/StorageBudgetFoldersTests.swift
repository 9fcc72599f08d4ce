import Testing
@testable import Stowage

/// The budget's model of folder growth (``FolderGrowth``): the folder as the budget first meets it.
@Suite("StorageBudget: folders met for the first time")
struct StorageBudgetFoldersTests {
    private let folder = StorageBudget.FolderKey(device: 1, inode: 2)

    @Test("a folder whose names can be read is charged by them: an empty one takes a name in its one block")
    func readFolder() throws {
        let budget = StorageBudget(available: 0, blockSize: 4096)
        let charge = try #require(budget.addEntry(nameLength: 40, to: folder) { [] })
        #expect(charge.blocks == 0, "a name fits the folder's block: nothing more taken, though nothing is available")
    }

    @Test("a folder whose names cannot be read counts as full: its next name grows it (root and two leaves), refused when those blocks are not there")
    func unreadFolder() throws {
        let full = StorageBudget(available: 0, blockSize: 4096)
        #expect(full.addEntry(nameLength: 1, to: folder) { nil } == nil, "the growth needs two blocks and none is available")
        let exact = StorageBudget(available: 2 * 4096, blockSize: 4096)
        let charge = try #require(exact.addEntry(nameLength: 1, to: folder) { nil })
        #expect(charge.blocks == 2, "the one block becomes the htree's root, with two leaves")
        let short = StorageBudget(available: 4096, blockSize: 4096)
        #expect(short.addEntry(nameLength: 1, to: folder) { nil } == nil, "one block short")
    }
}
