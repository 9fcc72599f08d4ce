import Foundation
import Testing
@testable import stowage

/// The columns a text takes and the trimming of tables: the fast paths give what the general
/// ones give.
@Suite("Terminal text")
struct TerminalTextTests {
    static let samples = [
        "", "a", "Documents", "12.3 kB", "name with spaces", "tab\there", "bell\u{07}", "del\u{7F}", "\u{1B}[2J",
        "é", "e\u{301}", "├── ", "│   └── ", "████▌  ", "日本語", "Ａ", "👍", "👍🏽", "🇫🇷", "❤️", "a\u{200B}b", "\u{85}", "mixed 日本 and ascii",
        // Rows of trees and size bars (ASCII with box drawing and blocks), and what must leave
        // their shortcut: a combining mark, a variation selector, a joiner, a scalar just outside.
        "43.3 MB  [████████████████████]  100%  ├─ assets-9/", "│   └── ░▒▓", "█\u{301}", "├\u{FE0F}", "─\u{200D}─", "a\u{24FF}─",
        "\u{2500}\u{259F}\u{25A0}", "\u{1F}─", "─\u{7F}",
    ]

    @Test("printable ASCII takes a column a byte; anything else is measured a character at a time",
          arguments: samples)
    func width(text: String) {
        let general = text.reduce(0) { $0 + TerminalText.width(of: $1) }
        #expect(TerminalText.width(of: text) == general)
    }

    @Test("a character of one scalar from U+00A0 to U+10FF, or of box drawing and block elements, measures as its properties say")
    func shortcutRanges() {
        // The two ranges and the scalars just outside them (U+009F a control, U+1100 wide, U+25FD an emoji).
        let scalars = (0x9F...0x1100).compactMap(Unicode.Scalar.init) + (0x24FF...0x25FF).compactMap(Unicode.Scalar.init)
        let differing = scalars.filter { TerminalText.width(of: Character($0)) != TerminalText.measuredWidth(of: Character($0)) }
        #expect(differing.isEmpty, "\(differing.map { String($0.value, radix: 16) })")
        #expect(TerminalText.width(of: "├── █▌ é") == 8)
        #expect(TerminalText.width(of: "\u{9F}\u{A0}\u{10FF}\u{1100}\u{2500}\u{259F}\u{25FD}") == 0 + 1 + 1 + 2 + 1 + 1 + 2)
    }

    @Test("the width of printable ASCII is its length, and a control character takes no column")
    func asciiWidth() {
        #expect(TerminalText.width(of: "SIZE  SHARE") == 11)
        #expect(TerminalText.width(of: "a\u{7F}b") == 2)
        #expect(TerminalText.width(of: "a\u{1F}b") == 2)
        #expect(TerminalText.width(of: "日本") == 4)
    }

    @Test("trimmingNewlines equals trimmingCharacters(in: .newlines)",
          arguments: samples + ["\n", "\n\n", "\r\n", "a\n", "\na", "\n a \n", "a\nb", "\u{2028}x\u{2029}", "\u{85}y\u{0B}\u{0C}",
                                "\r\nline\r\n", " \n", "\n\t"])
    func trimming(text: String) {
        #expect(text.trimmingNewlines() == text.trimmingCharacters(in: .newlines))
    }
}
