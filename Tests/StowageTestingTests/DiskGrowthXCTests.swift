import Foundation
import Stowage
import StowageTesting
import StowageTestSupport
import XCTest

/// `withDiskGrowthCheck` in XCTest: a thrown `DiskGrowthExceeded` fails the test.
final class DiskGrowthXCTests: XCTestCase {
    func testACacheThatNeverEvictsIsCaughtAndOneThatCleansUpPasses() throws {
        let scratch = try ScratchContainer()
        let caches = try scratch.container.url(for: .caches)
        XCTAssertThrowsError(try withDiskGrowthCheck(in: [caches], atMost: 8192) {
            for index in 0..<4 { try Data(count: 4096).write(to: caches.appending(path: "entry-\(index)")) }
        }) { error in
            let exceeded = error as? DiskGrowthExceeded
            XCTAssertEqual(exceeded?.growth.inodeCount, 4)
            XCTAssertEqual(exceeded?.growth.logicalBytes, 4 * 4096)
        }
        try withDiskGrowthCheck(in: [caches]) {
            for index in 0..<4 { try FileManager.default.removeItem(at: caches.appending(path: "entry-\(index)")) }
        }
    }
}
