import Foundation
import Testing
@testable import Stowage

@Suite("Errno")
struct ErrnoTests {
    /// Opens a missing file in a fresh temporary folder through the Platform layer.
    func openMissingFile() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "errno-\(UUID().uuidString)")
        _ = try Sys.open(folder.path(percentEncoded: false) + "/missing", Sys.readOnly)
    }

    @Test("catch Errno.noSuchEntry matches a failed call with ENOENT, and not one with another errno")
    func matchesByName() throws {
        var matched = false
        do {
            try openMissingFile()
        } catch Errno.noSuchEntry {
            matched = true
        }
        #expect(matched)
        #expect(!(Errno.permissionDenied ~= SystemCallError(errno: .noSuchEntry, call: "open")))
        #expect(!(Errno.noSuchEntry ~= CancellationError()))
    }

    @Test("a list of Errno values matches any of them; the failed call keeps its name and errno")
    func listsAndDetails() throws {
        do {
            try openMissingFile()
            Issue.record("opening a missing file succeeded")
        } catch [Errno.fileExists, .noSuchEntry] {
            // matched by the list
        }
        let error = try #require(throws: SystemCallError.self) { try openMissingFile() }
        #expect(error == SystemCallError(errno: .noSuchEntry, call: "open"))
        #expect(error.errno.rawValue == ENOENT)
    }

    @Test("describes itself as strerror does, lowercased, and maps to a StowageError code")
    func description() {
        #expect(Errno.noSuchEntry.description == "no such file or directory")
        #expect(Errno.noSpace.description == "no space left on device")
        #expect(StowageError.Code(errno: .noSpace) == .noSpace)
        #expect(StowageError.Code(errno: .tooManySymbolicLinkLevels) == .invalidPath)
        #expect(Errno.attributesUnsupported.contains(Errno(rawValue: EOPNOTSUPP)))
    }
}
