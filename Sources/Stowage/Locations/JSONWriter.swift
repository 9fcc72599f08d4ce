import Foundation

/// JSON written straight into bytes, for documents too large for Foundation's `JSONEncoder` to
/// write quickly (a comparison of two scans has hundreds of thousands of values, and the encoder
/// builds a generic container of each before writing it) and for ncdu's export format.
///
/// Two layouts share it. The pretty-printed one is exactly `JSONEncoder`'s (Foundation on Linux,
/// swift-foundation: `JSONWriterTests` compares the bytes) with
/// `[.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]`, the command's one format
/// (`JSONOutput`): `{` or `[` and a newline; each element on its own line, indented two spaces a
/// level, a key written `"key" : value`, elements separated by `,` and a newline; the closing
/// bracket on its own line at the opening one's level, so that an empty array is `[`, an empty
/// line, and `]`. The caller writes keys in sorted order (the encoder's `.sortedKeys`: by
/// Unicode scalars on Linux; the reports' keys sort the same by any rule). ncdu's one-item-a-line
/// layout is written with ``raw(_:)`` and ``integer(_:)`` around ``name(_:)``.
///
/// Strings are escaped in one of two ways: ``string(_:)`` as `JSONEncoder` escapes them (`"` and
/// `\` with a backslash; `\b`, `\t`, `\n`, `\f`, `\r`; the other control characters below U+0020
/// as `\u00XX` in lowercase hexadecimal; everything else, `/`, DEL and U+2028 included, as it
/// is), ``name(_:)`` for ncdu's format (every control character as `\u00XX`, and the other bytes
/// as they are, UTF-8 or not: ncdu reads back the same name; ncdu 1.18 itself writes `\n` for a
/// newline and `\u007f` for DEL, the same name in other bytes).
///
/// It nests without limit: `JSONEncoder` refuses 512 levels of arrays and objects (a breakdown
/// item 255 folders deep in `usage --json`) and failed the command there; the writer writes the
/// whole tree (which a reader with the same limit, `JSONDecoder`, cannot read back).
package struct JSONWriter {
    /// What has been written.
    package private(set) var bytes: [UInt8] = []
    /// Two spaces for each level of the open array or object (pretty-printed layout): what
    /// starts each of its lines.
    private var indentation: [UInt8] = []
    /// Whether the open array or object has no element yet.
    private var isEmpty = true

    /// An empty writer, with room for `capacity` bytes.
    package init(capacity: Int = 1 << 16) {
        bytes.reserveCapacity(capacity)
    }

    /// Writes `text` as it is.
    package mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Writes `value` in decimal, as `JSONEncoder` writes an integer (`-` before a negative one).
    package mutating func integer(_ value: some BinaryInteger) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = UInt64(value.magnitude)
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // up to 20 digits, written from the end
        withUnsafeMutableBytes(of: &digits) { buffer in
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: buffer[start...])
        }
    }

    /// `date` as `JSONEncoder`'s `.iso8601` strategy formats it where the figures are not
    /// computed here: swift-foundation's encoder (Linux) formats with `Date.ISO8601FormatStyle`;
    /// Apple's Foundation with `ISO8601DateFormatter` (the two differ before the year 1 and after
    /// 9999). Decided by which Foundation is there, not by the platform.
    private static func iso8601(_ date: Date) -> String {
        #if canImport(FoundationEssentials)
        date.formatted(.iso8601)
        #else
        ISO8601DateFormatter().string(from: date)
        #endif
    }

    /// Writes `date` as a JSON string, as `JSONEncoder`'s `.iso8601` strategy writes it
    /// (`2026-11-22T17:35:00Z`: UTC, whole seconds rounded down). Whole seconds of the years
    /// 1970 to 9999 are written here; other dates through Foundation's ISO 8601 format.
    package mutating func date(_ date: Date) {
        let seconds = date.timeIntervalSince1970
        guard seconds >= 0, seconds < 253_402_300_800, seconds == seconds.rounded(.down) else {
            return string(Self.iso8601(date))
        }
        let whole = Int(seconds), days = whole / 86_400, time = whole % 86_400
        // The civil date of a day count (Howard Hinnant's `civil_from_days`, days since 1970).
        let shifted = days + 719_468, era = shifted / 146_097, dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1, month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        bytes.append(UInt8(ascii: "\""))
        digits(year, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(month, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(day, 2)
        bytes.append(UInt8(ascii: "T"))
        digits(time / 3600, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(time / 60 % 60, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(time % 60, 2)
        raw("Z\"")
    }

    /// Writes `value` (not negative) in `count` decimal digits, zeros first.
    private mutating func digits(_ value: Int, _ count: Int) {
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }

    // MARK: - Strings

    /// Writes `text` as a JSON string, escaped as `JSONEncoder` escapes it.
    package mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { escape($0, shortForms: true) }
    }

    /// Writes `name` (bytes, UTF-8 or not) as a JSON string, escaped as ncdu escapes a name.
    package mutating func name(_ name: ArraySlice<UInt8>) {
        name.withUnsafeBufferPointer { escape($0, shortForms: false) }
    }

    /// `text` between quotes, `"` and `\` escaped with a backslash, each control character below
    /// U+0020 as `\u00XX`, or, with `shortForms`, as `\b`, `\t`, `\n`, `\f` or `\r` where it is one
    /// of those; every other byte as it is. Runs of bytes that need no escape are copied whole.
    private mutating func escape(_ text: UnsafeBufferPointer<UInt8>, shortForms: Bool) {
        bytes.append(UInt8(ascii: "\""))
        var start = 0
        for index in text.indices {
            let byte = text[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[start..<index]))
            start = index + 1
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
            case 0x08 where shortForms: bytes.append(UInt8(ascii: "b"))
            case 0x09 where shortForms: bytes.append(UInt8(ascii: "t"))
            case 0x0A where shortForms: bytes.append(UInt8(ascii: "n"))
            case 0x0C where shortForms: bytes.append(UInt8(ascii: "f"))
            case 0x0D where shortForms: bytes.append(UInt8(ascii: "r"))
            default:
                let hex: StaticString = "0123456789abcdef"
                bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          hex.utf8Start[Int(byte >> 4)], hex.utf8Start[Int(byte & 15)]])
            }
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[start...]))
        bytes.append(UInt8(ascii: "\""))
    }

    // MARK: - Pretty-printed arrays and objects

    /// Opens an object: what follows is its keys and values, then ``endObject()``.
    package mutating func beginObject() { begin(UInt8(ascii: "{")) }

    /// Closes the open object.
    package mutating func endObject() { end(UInt8(ascii: "}")) }

    /// Opens an array: what follows is its elements, each after ``element()``, then ``endArray()``.
    package mutating func beginArray() { begin(UInt8(ascii: "[")) }

    /// Closes the open array.
    package mutating func endArray() { end(UInt8(ascii: "]")) }

    /// Starts the open object's next value, under `key` (a key that needs no escape).
    package mutating func key(_ key: StaticString) {
        element()
        bytes.append(UInt8(ascii: "\""))
        raw(key)
        raw("\" : ")
    }

    /// Starts the open array's next element.
    package mutating func element() {
        if !isEmpty { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\n"))
        isEmpty = false
        indent()
    }

    /// Writes `elements` as an array, each by `write`.
    package mutating func array<Element>(_ elements: some Sequence<Element>, _ write: (inout JSONWriter, Element) -> Void) {
        beginArray()
        for value in elements {
            element()
            write(&self, value)
        }
        endArray()
    }

    /// Writes the keys of a path that came from the file system, as ``Base64WhenNotUTF8`` has
    /// them written: `path`, its text, and `pathBase64`, the bytes in Base64, only when they
    /// are not UTF-8 (the keys' sorted order: nothing sorts between the two).
    package mutating func path(_ text: String, bytes pathBytes: [UInt8]) {
        key("path")
        string(text)
        if !RawPath.isUTF8(pathBytes) {
            key("pathBase64")
            string(Data(pathBytes).base64EncodedString())
        }
    }

    /// Writes `null`.
    package mutating func null() { raw("null") }

    /// Writes `true` or `false`.
    package mutating func bool(_ value: Bool) { value ? raw("true") : raw("false") }

    private mutating func begin(_ bracket: UInt8) {
        bytes.append(bracket)
        indentation += [UInt8(ascii: " "), UInt8(ascii: " ")]
        isEmpty = true
    }

    private mutating func end(_ bracket: UInt8) {
        bytes.append(UInt8(ascii: "\n"))
        if isEmpty { bytes.append(UInt8(ascii: "\n")) }
        indentation.removeLast(2)
        indent()
        bytes.append(bracket)
        isEmpty = false
    }

    private mutating func indent() { bytes.append(contentsOf: indentation) }
}
