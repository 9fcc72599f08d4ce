import Testing
@testable import Stowage

@Suite("RelativePath")
struct RelativePathTests {
    @Test("accepts ordinary names, spaces, Unicode, % and newlines, folding repeated slashes",
          arguments: [
              ("message.json", ["message.json"]),
              ("Inbox/2024/message.json", ["Inbox", "2024", "message.json"]),
              ("my file.bin", ["my file.bin"]),
              ("100%/done", ["100%", "done"]),
              ("Ünïcödé/日本語.txt", ["Ünïcödé", "日本語.txt"]),
              ("line\nbreak", ["line\nbreak"]),
              ("a//b/", ["a", "b"]),
              ("..hidden", ["..hidden"]),
              ("...", ["..."]),
              (".config", [".config"]),
              // A combining mark after a slash makes one Character of the two; the split is
              // still at the slash byte, as the kernel splits.
              ("a/\u{301}b", ["a", "\u{301}b"]),
              ("\u{301}x/..\u{301}", ["\u{301}x", "..\u{301}"]),
          ])
    func accepts(path: String, components: [String]) throws {
        #expect(try RelativePath(path).components == components)
    }

    @Test("rejects paths that could leave the location or name nothing",
          arguments: [
              "", "/", "/etc/passwd", "..", "../x", "a/../../b", "a/..", "./a", "a/./b", ".", "a\0b",
              String(repeating: "x", count: 256), "a/" + String(repeating: "é", count: 128),
              ".stowage-tmp-1234", "folder/.stowage-append-1",
              // Regressions: checked by Character, these passed as one harmless-looking name
              // that the kernel reads as `..` or as an absolute path.
              "../\u{301}x", "a/../\u{301}b", "/\u{301}etc/passwd", ".stowage-\u{301}tmp",
          ])
    func rejects(path: String) {
        let error = expectStowageError(.invalidPath) { try RelativePath(path) }
        #expect(error?.path == path)
        #expect(error?.reason?.isEmpty == false)
    }

    @Test("accepts a name of exactly 255 bytes")
    func longestName() throws {
        let name = String(repeating: "n", count: 255)
        #expect(try RelativePath(name).name == name)
    }

    @Test("accepts a path of exactly 3072 bytes and rejects one of 3073, however its names are cut")
    func longestPath() throws {
        // 11 names of 255 bytes, one of 254 and one of 1, with their 12 slashes: 3072 bytes.
        let longest = Array(repeating: String(repeating: "n", count: 255), count: 11).joined(separator: "/") + "/"
            + String(repeating: "e", count: 254) + "/a"
        #expect(longest.utf8.count == 3072)
        #expect(try RelativePath(longest).components.count == 13)
        for tooLong in [longest + "x", String(repeating: "a/", count: 1536) + "b", String(repeating: "é/", count: 1025)] {
            #expect(tooLong.utf8.count > 3072)
            let error = expectStowageError(.invalidPath) { try RelativePath(tooLong) }
            #expect(error?.reason?.contains("longer than 3072 bytes") == true, "\(String(describing: error?.reason))")
        }
    }

    @Test("names its parts")
    func parts() throws {
        let path = try RelativePath("a/b/c.json")
        #expect(path.name == "c.json")
        #expect(Array(path.folders) == ["a", "b"])
        #expect(path.string == "a/b/c.json")
        #expect(path.description == "a/b/c.json")
    }
}
