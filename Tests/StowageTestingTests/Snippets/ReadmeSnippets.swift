import Foundation
import Stowage
import StowageTesting
import Testing

/// Runs the README's StowageTesting example (the region below is the README's block: the
/// package's `SnippetTests`, in StowageTests, checks every document's blocks against the
/// regions of both test targets).
@Suite("README: StowageTesting")
struct ReadmeExampleTests {
    let scratch: ScratchContainer
    var scratchFolder: URL { scratch.folder }

    init() throws { scratch = try ScratchContainer("readme") }

    // snippet README/storage-budget
    @Test(.simulatedStorage(available: 40_960, inodes: 100))  // 10 blocks of 4 KiB, 100 inodes
    func draftSurvivesAFullDisk() throws {
        let store = Store(container: Container(root: scratchFolder))
        try store.save(Data(count: 4_096), to: "draft.bin", in: .documents)
        let error = #expect(throws: StowageError.self) {
            try store.save(Data(count: 40_960), to: "draft.bin", in: .documents)  // 10 blocks beside the old one
        }
        #expect(error?.code == .noSpace && error?.path == "draft.bin")
        #expect(try store.retrieve(Data.self, from: "draft.bin", in: .documents).count == 4_096)  // intact
    }
    // end snippet
}
