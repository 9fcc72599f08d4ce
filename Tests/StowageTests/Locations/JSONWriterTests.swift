import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

/// `JSONWriter` against Foundation's `JSONEncoder` as the command configures it (pretty-printed,
/// sorted keys, slashes not escaped): the same bytes for strings of every hostile kind, integers
/// at both ends of Int64 and UInt64, and empty and nested arrays and objects; and ncdu's escaping
/// of names, bytes kept.
@Suite("JSONWriter: JSONEncoder's bytes, and ncdu's names")
struct JSONWriterTests {
    static func encoded(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// `values` as an array, written by `write` for each.
    static func written<Value>(_ values: [Value], _ write: (inout JSONWriter, Value) -> Void) -> String {
        var writer = JSONWriter()
        writer.beginArray()
        for value in values {
            writer.element()
            write(&writer, value)
        }
        writer.endArray()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Hostile strings: every ASCII character alone, and runs of control characters, quotes,
    /// backslashes, slashes, DEL, U+2028 and U+2029, U+FFFD (a repaired byte), combining marks,
    /// characters of two to four bytes, escapes at the start and at the end.
    static let hostileStrings: [String] = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) } + [
        "", "a\"b\\c/d", "\\\\\"\"", "\u{0}\u{1}\u{1f}\u{7f}", "\u{8}\u{9}\u{a}\u{b}\u{c}\u{d}\u{e}", "line\u{2028}para\u{2029}end",
        "n\u{FFFD}x", "e\u{301}\u{302}/", "é漢😀\u{10FFFF}", "\"starts", "ends\\", "/usr/share/doc", "tab\there\nnext\r\n",
        String(repeating: "\u{1b}[31m", count: 20), "\u{FEFF}bom", "\u{200B}\u{200D}",
    ]

    @Test("strings: every ASCII character, control characters, quotes, backslashes, slashes, U+2028, U+FFFD as JSONEncoder writes them")
    func strings() throws {
        #expect(Self.written(Self.hostileStrings) { $0.string($1) } == (try Self.encoded(Self.hostileStrings)))
    }

    @Test("strings: 2,000 random ones from a hostile alphabet as JSONEncoder writes them")
    func randomStrings() throws {
        var random = SeededRandom(for: "JSONWriterTests/randomStrings")
        let alphabet = Array("aZ09 /\\\"\u{0}\u{8}\u{9}\u{a}\u{c}\u{d}\u{1f}\u{7f}\u{85}\u{a0}\u{2028}\u{2029}\u{FFFD}é😀\u{301}".unicodeScalars)
        let strings = (0..<2000).map { _ in
            String(String.UnicodeScalarView((0..<Int.random(in: 0...24, using: &random)).map { _ in alphabet.randomElement(using: &random)! }))
        }
        #expect(Self.written(strings) { $0.string($1) } == (try Self.encoded(strings)))
    }

    @Test("integers at both ends of Int64 and UInt64, and around each power of ten, as JSONEncoder writes them")
    func integers() throws {
        var signed: [Int64] = [.min, .min + 1, -1, 0, 1, .max - 1, .max]
        var power: Int64 = 1
        for _ in 0..<18 {
            power *= 10
            signed += [power - 1, power, power + 1, -power + 1, -power, -power - 1]
        }
        #expect(Self.written(signed) { $0.integer($1) } == (try Self.encoded(signed)))
        let unsigned: [UInt64] = [0, 1, UInt64(Int64.max), UInt64(Int64.max) + 1, .max - 1, .max]
        #expect(Self.written(unsigned) { $0.integer($1) } == (try Self.encoded(unsigned)))
        let ints: [Int] = [.min, -7, 0, 7, .max]
        #expect(Self.written(ints) { $0.integer($1) } == (try Self.encoded(ints)))
    }

    @Test("dates: whole and fractional seconds, before 1970, at 9999's end and after, as JSONEncoder's .iso8601 writes them")
    func dates() throws {
        var random = SeededRandom(for: "JSONWriterTests/dates")
        var seconds: [Double] = [0, 1, 59, 60, 86_399, 86_400, 951_782_400, 951_868_799, 1_764_350_000, 1.5, 0.999, -0.5, -1, -86_401,
                                 253_402_300_799, 253_402_300_799.5, 253_402_300_800, 1e12, -62_135_596_800, -1e11]
        seconds += (0..<3000).map { _ in Double(Int64.random(in: 0..<253_402_300_800, using: &random)) }
        seconds += (0..<200).map { _ in Double.random(in: -1e11...1e12, using: &random) }
        let dates = seconds.map { Date(timeIntervalSince1970: $0) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        #expect(Self.written(dates) { $0.date($1) } == String(decoding: try encoder.encode(dates), as: UTF8.self))
    }

    @Test("a path's keys: path, and pathBase64 only when the bytes are not UTF-8, as Base64WhenNotUTF8 has them written")
    func pathKeys() throws {
        struct Named: Encodable {
            var path: String
            @Base64WhenNotUTF8 var pathBytes: [UInt8]
            private enum CodingKeys: String, CodingKey { case path, pathBytes = "pathBase64" }
        }
        let paths: [[UInt8]] = [Array("/a/b".utf8), [0x2F, 0xFF, 0x22], Array("/é\\\n".utf8), [0xC3], []]
        let written = Self.written(paths) { writer, bytes in
            writer.beginObject()
            writer.path(ReportedPath.text(bytes), bytes: bytes)
            writer.endObject()
        }
        #expect(written == (try Self.encoded(paths.map { Named(path: ReportedPath.text($0), pathBytes: $0) })))
    }

    /// A value of every shape the writer lays out: empty and nested arrays and objects, `null`,
    /// booleans, at several levels.
    struct Shapes: Encodable {
        var empty: [Int] = []
        var emptyObject: [String: Int] = [:]
        var flag = true
        var nested: [[[Int]]] = [[], [[]], [[1, -2], []]]
        var none: Int? = nil
        var objects: [Inner] = [Inner(), Inner()]
        var off = false

        struct Inner: Encodable {
            var a: [String: Int] = [:]
            var b: [Int] = [3]
        }

        private enum CodingKeys: String, CodingKey { case empty, emptyObject, flag, nested, none, objects, off }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(empty, forKey: .empty)
            try container.encode(emptyObject, forKey: .emptyObject)
            try container.encode(flag, forKey: .flag)
            try container.encode(nested, forKey: .nested)
            try container.encodeNil(forKey: .none)
            try container.encode(objects, forKey: .objects)
            try container.encode(off, forKey: .off)
        }
    }

    @Test("layout: empty and nested arrays and objects, null and booleans indented as JSONEncoder's prettyPrinted")
    func layout() throws {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("empty")
        writer.beginArray()
        writer.endArray()
        writer.key("emptyObject")
        writer.beginObject()
        writer.endObject()
        writer.key("flag")
        writer.bool(true)
        writer.key("nested")
        writer.beginArray()
        for inner in Shapes().nested {
            writer.element()
            writer.beginArray()
            for numbers in inner {
                writer.element()
                writer.beginArray()
                for number in numbers {
                    writer.element()
                    writer.integer(number)
                }
                writer.endArray()
            }
            writer.endArray()
        }
        writer.endArray()
        writer.key("none")
        writer.null()
        writer.key("objects")
        writer.beginArray()
        for _ in 0..<2 {
            writer.element()
            writer.beginObject()
            writer.key("a")
            writer.beginObject()
            writer.endObject()
            writer.key("b")
            writer.beginArray()
            writer.element()
            writer.integer(3)
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
        writer.key("off")
        writer.bool(false)
        writer.endObject()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == (try Self.encoded(Shapes())))
        var empty = JSONWriter()
        empty.beginArray()
        empty.endArray()
        #expect(String(decoding: empty.bytes, as: UTF8.self) == (try Self.encoded([Int]())))
    }

    @Test("ncdu's names: quote and backslash escaped, every control character as \\u00XX, every other byte as it is")
    func ncduNames() {
        var writer = JSONWriter()
        writer.name(Array(UInt8(0)...UInt8(255))[...])
        var expected: [UInt8] = [0x22]
        for byte in 0...255 {
            if byte < 0x20 {
                expected += Array(String(format: "\\u%04x", byte).utf8)
            } else {
                expected += byte == 0x22 || byte == 0x5C ? [0x5C, UInt8(byte)] : [UInt8(byte)]
            }
        }
        expected.append(0x22)
        #expect(writer.bytes == expected)
        var plain = JSONWriter()
        plain.name(Array("sub/q\"b\\s\tt\n".utf8)[2...])
        #expect(plain.bytes == Array(#""b/q\"b\\s\u0009t\u000a""#.utf8))
    }
}
