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
/// is), ``name(_:)`` as ncdu escapes a name (every control character as `\u00XX`, and the bytes
/// as they are, UTF-8 or not).
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
