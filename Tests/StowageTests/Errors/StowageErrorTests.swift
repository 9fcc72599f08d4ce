import Foundation
import Testing
@testable import Stowage

@Suite("StowageError")
struct StowageErrorTests {
    @Test("describes the operation, the path and the cause in one sentence")
    func description() {
        let error = StowageError(.noSpace, operation: .save, location: .caches, path: "feed.json",
                                 errno: .noSpace, systemCall: "write", neededBytes: 12_000_000, availableBytes: 3_000_000)
        #expect(error.description == "save 'Caches/feed.json' failed: no space left on device (needed 12 MB, 3 MB available)")
    }

    @Test("an absolute path is shown alone, also beside a location: never 'Documents//tmp/...' or 'Caches//'")
    func absolutePathWithLocation() {
        let measured = StowageError(.wrongKind, operation: .locate, location: .documents, path: "/tmp/x/file/Documents",
                                    errno: .notFolder)
        #expect(measured.displayPath == "/tmp/x/file/Documents")
        #expect(measured.description == "locate '/tmp/x/file/Documents' failed: not a directory")
        #expect(StowageError(.refused, operation: .clear, location: .caches, path: "/").displayPath == "/")
        #expect(StowageError(.notFound, operation: .clear, location: .caches, path: "a/b").displayPath == "Caches/a/b")
        #expect(StowageError(.notFound, operation: .clear, location: .caches, path: "").displayPath == "Caches")
    }

    @Test("matches codes in catch clauses")
    func matching() {
        do {
            throw StowageError(.notFound, operation: .retrieve, location: .documents, path: "a")
        } catch StowageError.alreadyExists {
            Issue.record("matched the wrong code")
        } catch StowageError.notFound {
            // expected
        } catch {
            Issue.record("did not match: \(error)")
        }
        do {
            throw StowageError(.refused, operation: .fill, path: "/")
        } catch StowageError.busy {
            Issue.record("matched the wrong code")
        } catch StowageError.refused {
            // expected
        } catch {
            Issue.record("did not match: \(error)")
        }
    }

    @Test("maps errno values to codes")
    func errnoCodes() {
        #expect(StowageError.Code(errno: Errno(rawValue: ENOENT)) == .notFound)
        #expect(StowageError.Code(errno: Errno(rawValue: ENOSPC)) == .noSpace)
        #expect(StowageError.Code(errno: Errno(rawValue: EDQUOT)) == .noSpace)
        #expect(StowageError.Code(errno: Errno(rawValue: EACCES)) == .permissionDenied)
        #expect(StowageError.Code(errno: Errno(rawValue: EROFS)) == .permissionDenied)
        #expect(StowageError.Code(errno: Errno(rawValue: EEXIST)) == .alreadyExists)
        #expect(StowageError.Code(errno: Errno(rawValue: ENOTSUP)) == .unsupported)
        #expect(StowageError.Code(errno: Errno(rawValue: ELOOP)) == .invalidPath)
        #expect(StowageError.Code(errno: Errno(rawValue: EIO)) == .ioFailure)
    }

    @Test("decoding errors name the coding path")
    func decodingDescription() {
        struct Value: Decodable { var count: Int }
        do {
            _ = try JSONDecoder().decode(Value.self, from: Data(#"{"count":"x"}"#.utf8))
            Issue.record("a string decoded as an Int")
        } catch {
            let wrapped = StowageError(.decodingFailed, operation: .retrieve, location: .documents, path: "v.json", underlying: error)
            #expect(wrapped.description.hasPrefix("retrieve 'Documents/v.json' failed: the content could not be decoded: type mismatch"))
            #expect(wrapped.description.contains(".count"))
        }
    }
}
