import Foundation
import Stowage
import StowageTesting
import Testing
import XCTest

/// The landing page's examples (Sources/StowageTesting/StowageTesting.docc/StowageTesting.md),
/// run: in Swift Testing with the trait, and in XCTest with the helper.
@Suite("StowageTesting landing page")
struct StowageTestingSnippets {
    let scratch: ScratchContainer
    var scratchFolder: URL { scratch.folder }

    init() throws { scratch = try ScratchContainer("landing") }

    // snippet StowageTesting/trait
    @Test(.simulatedStorage(available: 40_960))   // 10 blocks of 4,096 bytes
    func draftSurvivesAFullDisk() throws {
        let store = Store(container: Container(root: scratchFolder))
        try store.save(Data(count: 4_096), to: "draft.bin", in: .documents)
        let error = #expect(throws: StowageError.self) {
            try store.save(Data(count: 40_960), to: "draft.bin", in: .documents)
        }
        #expect(error?.code == .noSpace)
        #expect(try store.retrieve(Data.self, from: "draft.bin", in: .documents).count == 4_096)
    }
    // end snippet

    var container: Container { scratch.container }

    /// What the disk-leak example's code under test does: writes thumbnails and removes them.
    func renderAndDiscardThumbnails(in folder: URL) throws {
        for index in 0..<3 { try Data(count: 1000).write(to: folder.appending(path: "t\(index).png")) }
        for index in 0..<3 { try FileManager.default.removeItem(at: folder.appending(path: "t\(index).png")) }
    }

    // snippet StowageTesting/disk-leak
    @Test func thumbnailsLeaveNothingBehind() throws {
        let caches = try container.url(for: .caches)
        try withDiskGrowthCheck(in: [caches], atMost: 8_192, inodes: 2) {
            try renderAndDiscardThumbnails(in: caches)
        }
    }
    // end snippet
}

/// The landing page's XCTest example.
final class StowageTestingXCTestSnippets: XCTestCase {
    private var scratch: ScratchContainer!
    private var store: Store { scratch.store }

    override func setUpWithError() throws { scratch = try ScratchContainer("landing-xctest") }
    override func tearDown() { scratch = nil }

    // snippet StowageTesting/helper
    func testDraftSurvivesAFullDisk() throws {
        try withSimulatedStorage(available: 40_960) {
            try store.save(Data(count: 4_096), to: "draft.bin", in: .documents)
            XCTAssertThrowsError(try store.save(Data(count: 40_960), to: "draft.bin", in: .documents))
        }
    }
    // end snippet
}
