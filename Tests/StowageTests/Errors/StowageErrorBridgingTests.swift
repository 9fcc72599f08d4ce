import Foundation
import Testing
@testable import Stowage

@Suite("StowageError as LocalizedError and NSError")
struct StowageErrorBridgingTests {
    static let noSpace = StowageError(.noSpace, operation: .save, location: .caches, path: "feed.json", errno: .noSpace,
                                      systemCall: "write", neededBytes: 12_000_000, availableBytes: 3_000_000)

    @Test("localizedDescription is the sentence, not 'The operation could not be completed'")
    func localizedDescription() {
        let error: any Error = Self.noSpace
        #expect(error.localizedDescription
            == "save 'Caches/feed.json' failed: no space left on device (needed 12 MB, 3 MB available)")
    }

    @Test("LocalizedError gives a reason and, where one is known, a suggestion")
    func localizedError() {
        let error = Self.noSpace
        #expect(error.errorDescription == error.description)
        #expect(error.failureReason == "No space left on device (needed 12 MB, 3 MB available).")
        #expect(error.recoverySuggestion?.contains("Container.relieve(toAvailableBytes:)") == true)
        let exists = StowageError(.alreadyExists, operation: .save, location: .documents, path: "Album")
        #expect(exists.recoverySuggestion?.contains("replacesExistingFolder") == true)
        let path = StowageError(.invalidPath, operation: .save, location: .documents, path: "../x",
                                reason: "'..' is not allowed in a path")
        #expect(path.failureReason == "'..' is not allowed in a path.")
        #expect(path.recoverySuggestion?.contains("relative to the location") == true)
        #expect(StowageError(.notFound, operation: .retrieve, location: .documents, path: "a").recoverySuggestion != nil)
        #expect(StowageError(.permissionDenied, operation: .save, location: .documents, path: "a").recoverySuggestion != nil)
        #expect(StowageError(.ioFailure, operation: .save, location: .documents, path: "a", errno: .ioError).recoverySuggestion == nil)
    }

    @Test("prints what Disk's README 'Debugging' example prints: useful values through NSError")
    func diskDebuggingExample() throws {
        let folder = TestFolder("bridging")
        let store = folder.store()
        do {
            _ = try store.retrieve(Data.self, from: "Album/missing.png", in: .documents)
            Issue.record("retrieved a missing file")
        } catch {
            // Disk's README writes `catch let error as NSError`, which matches on Apple platforms only;
            // `error as NSError` bridges on both.
            let error = error as NSError
            #expect(error.localizedDescription == "retrieve 'Documents/Album/missing.png' failed: no such file or folder")
            #expect(error.domain == "Stowage")
            #expect(error.code == StowageError.Code.notFound.errorCode)
            #expect(error.code == 1)
            #expect(error.localizedFailureReason == "No such file or folder.")
            #expect(error.localizedRecoverySuggestion?.isEmpty == false)
            #expect(error.userInfo[NSFilePathErrorKey] as? String == "Documents/Album/missing.png")
        }
    }

    @Test("the user info holds the description, the path and the errno as the underlying error")
    func userInfo() throws {
        let error = Self.noSpace as NSError
        #expect(error.userInfo[NSLocalizedDescriptionKey] as? String == Self.noSpace.description)
        #expect(error.userInfo[NSFilePathErrorKey] as? String == "Caches/feed.json")
        let underlying = try #require(error.userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(underlying.domain == NSPOSIXErrorDomain)
        #expect(underlying.code == Int(ENOSPC))
    }

    @Test("a decoding failure's underlying error is the DecodingError")
    func decodingUnderlying() {
        struct Value: Decodable { var count: Int }
        do {
            _ = try JSONDecoder().decode(Value.self, from: Data(#"{"count":"x"}"#.utf8))
        } catch {
            let wrapped = StowageError(.decodingFailed, operation: .retrieve, location: .documents, path: "v.json",
                                       underlying: error) as NSError
            #expect(wrapped.code == 4)
            #expect(wrapped.userInfo[NSUnderlyingErrorKey] != nil)
            #expect(wrapped.localizedDescription.hasPrefix("retrieve 'Documents/v.json' failed: the content could not be decoded"))
        }
    }

    @Test("every code has its own stable error code")
    func stableCodes() {
        let codes: [(StowageError.Code, Int)] = [
            (.notFound, 1), (.alreadyExists, 2), (.invalidPath, 3), (.decodingFailed, 4), (.encodingFailed, 5),
            (.noSpace, 6), (.permissionDenied, 7), (.unsupported, 8), (.wrongKind, 9), (.invalidArgument, 10),
            (.ioFailure, 11), (.refused, 12), (.busy, 13),
        ]
        for (code, number) in codes {
            #expect(code.errorCode == number, "\(code)")
            #expect((StowageError(code, operation: .save) as NSError).code == number, "\(code)")
        }
    }

    @Test("conforming to LocalizedError and CustomNSError keeps catch StowageError.notFound working")
    func matchingAfterBridging() {
        #if canImport(Darwin)
        // Apple platforms turn a bridged NSError back into the StowageError; Linux Foundation does not.
        let bridged: any Error = StowageError(.notFound, operation: .retrieve, location: .documents, path: "a") as NSError
        #expect((bridged as? StowageError)?.code == .notFound)
        #endif
        let error: any Error = StowageError(.notFound, operation: .retrieve, location: .documents, path: "a")
        #expect((error as? StowageError)?.code == .notFound)
        do {
            throw StowageError(.notFound, operation: .retrieve, location: .documents, path: "a")
        } catch StowageError.notFound {
        } catch {
            Issue.record("did not match: \(error)")
        }
    }
}
