import Testing
@testable import Stowage

/// Counts in text output and in messages: one of anything is singular, every other number, 0
/// included, plural.
@Suite("Noun")
struct NounTests {
    @Test("0 files, 1 file, 2 files; an irregular plural; the count written as asked")
    func noun() {
        #expect([0, 1, 2].map { Noun.file.counted($0) } == ["0 files", "1 file", "2 files"])
        #expect([0, 1, 2].map { Noun.entry.counted($0) } == ["0 entries", "1 entry", "2 entries"])
        #expect([0, 1, 2].map { Noun.byte.counted(Int64($0)) } == ["0 bytes", "1 byte", "2 bytes"])
        #expect(Noun("emptied folder").counted(Int64(1)) == "1 emptied folder")
        #expect(Noun.file.counted(1_000, number: { "\($0 / 1000)k" }) == "1k files")
    }
}
