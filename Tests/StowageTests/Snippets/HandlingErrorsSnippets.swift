import Foundation
import Testing
@testable import Stowage

/// The snippets of "Handling errors" (HandlingErrors.md; the `NSError` one is the README's too), run
/// against the test's own folders.
@Suite("Snippets: Errors")
struct HandlingErrorsSnippets {
    struct Feed: Codable {
        var items: [String]
    }

    static func catchByCode(store: Store, show: (Feed) -> Void) throws -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet HandlingErrors/catch
        do {
            let feed = try store.retrieve(Feed.self, from: "feed.json", in: .caches)
            show(feed)
        } catch StowageError.notFound {
            // first launch: nothing cached yet
        } catch let error as StowageError where error.code == .decodingFailed {
            print(error.path ?? "", error.underlying ?? error)   // feed.json, and the DecodingError
        }
        // end snippet
        return printed
    }

    static func catchByErrno(store: Store, video: Data, showStorageFullAlert: (String) -> Void) throws {
        // snippet HandlingErrors/errno
        do {
            try store.save(video, to: "video.mov", in: .documents)
        } catch let error as StowageError where error.errno == .noSpace || error.errno == .quotaExceeded {
            showStorageFullAlert(error.localizedDescription)
        }
        // end snippet
    }

    static func nsError(store: Store) -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet HandlingErrors/nserror
        do {
            try store.save(Data("x".utf8), to: "../escape", in: .documents)
        } catch StowageError.notFound {
            // nothing to do
        } catch {
            let error = error as NSError  // `catch let error as NSError` matches on Apple platforms only
            print(error.localizedDescription)  // save 'Documents/../escape' failed: '..' is not allowed in a path
            print(error.domain, error.code)  // Stowage 3
            print(error.localizedFailureReason ?? "")  // '..' is not allowed in a path.
            print(error.localizedRecoverySuggestion ?? "")  // Give a path relative to the location, such as "Folder/file.json": ...
        }
        // end snippet
        return printed
    }

    @Test("a missing feed is caught as notFound, a corrupt one by its code with the path and the DecodingError")
    func catchByCode() throws {
        let folder = TestFolder("snippet-errors-code")
        let store = folder.store()
        var shown = 0
        #expect(try Self.catchByCode(store: store) { _ in shown += 1 }.isEmpty)
        try store.save(Data("{".utf8), to: "feed.json", in: .caches)
        let printed = try Self.catchByCode(store: store) { _ in shown += 1 }
        #expect(printed.count == 1 && printed[0].hasPrefix("feed.json ") && printed[0].contains("dataCorrupted"), "\(printed)")
        #expect(shown == 0)
    }

    @Test("a write that meets a full volume is caught by its errno, with a sentence to show")
    func catchByErrno() throws {
        let folder = TestFolder("snippet-errors-errno")
        let volume = try ScratchVolume.mount(size: "1m", in: folder)
        let store = Store(container: Container(root: volume.url))
        var alerts: [String] = []
        try Self.catchByErrno(store: store, video: Data(count: 2_000_000)) { alerts.append($0) }
        #expect(alerts.count == 1 && alerts[0].hasPrefix("save 'Documents/video.mov' failed: no space left on device"), "\(alerts)")
    }

    @Test("the NSError example prints what its comments say")
    func nsError() throws {
        let folder = TestFolder("snippet-errors-nserror")
        let printed = Self.nsError(store: folder.store())
        let comments = try SnippetTests.printComments(ofRegion: "HandlingErrors/nserror")
        #expect(printed.count == 4 && comments.count == 4)
        for (line, comment) in zip(printed, comments) {
            let expected = comment.hasSuffix("...") ? String(comment.dropLast(3)) : comment
            #expect(line.hasPrefix(expected), "printed \(line), the document says \(comment)")
        }
    }
}
