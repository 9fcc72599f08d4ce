import Testing
@testable import Stowage

@Suite("RawPath")
struct RawPathTests {
    @Test("appending puts one slash between names, none after a trailing one, and nothing for the root")
    func appending() {
        let name = RawPath(bytes: Array("a".utf8) + [0xFF])
        #expect(RawPath("/tmp/x").appending(name).bytes == Array("/tmp/x/a".utf8) + [0xFF])
        #expect(RawPath("/").appending(name).bytes == Array("/a".utf8) + [0xFF], "never //a")
        #expect(RawPath.root.appending(name) == name)
        #expect(RawPath("/tmp/x").appending(.root) == RawPath("/tmp/x"), "never /tmp/x/")
        #expect(!name.isUTF8 && name.description == "a\u{FFFD}")
    }
}
