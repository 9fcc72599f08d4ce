import Foundation

/// A check that a file holds one JSON array, read once from start to end in bounded memory
/// (a 64 KiB buffer and at most ``maximumDepth`` bytes of nesting), never decoded into values.
///
/// It accepts what Foundation's decoder reads: RFC 8259 text in UTF-8 whose first value is an
/// array, with blanks around tokens and the trailing comma Foundation allows before a `]` or `}`
/// (`[1,]`, `{"a":1,}`), nested up to 512 levels. It refuses at the first byte that cannot
/// continue such a text, so a NUL byte (never part of JSON, and what a hole in a sparse file
/// reads as) ends the check at once, however large the file. The cost is one pass over the
/// bytes: ``JSONArrayFile`` runs it only on a file that Stowage did not last write.
struct JSONArrayCheck {
    /// The deepest nesting Foundation's decoder reads (513 levels it refuses).
    static let maximumDepth = 512

    /// Why the first `size` bytes of `file` are not one JSON array, or `nil` when they are.
    static func problem(in file: OpenFile, size: Int64) throws -> String? {
        #if DEBUG
        TestProbe.record(.arrayCheck)
        #endif
        var check = JSONArrayCheck()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var offset: Int64 = 0
        while offset < size {
            let count = Int(min(Int64(buffer.count), size - offset))
            let read = try buffer.withUnsafeMutableBytes { raw in
                try Sys.preadAll(file.descriptor, UnsafeMutableRawBufferPointer(rebasing: raw[0..<count]), at: offset)
            }
            if read == 0 { break }  // cut short meanwhile: what was read is judged
            for index in 0..<read {
                if let problem = check.take(buffer[index]) { return "at byte \(offset + Int64(index)), \(problem)" }
            }
            offset += Int64(read)
        }
        return check.problemAtEnd()
    }

    private enum Mode {
        /// Before the array's `[`.
        case start
        /// After a `:`: a value must follow.
        case value
        /// After an array's `[` or `,`: a value or the `]`.
        case element
        /// After an object's `{` or `,`: a key or the `}`.
        case member
        /// After a key: its `:`.
        case colon
        /// After a value: a `,` or the closing bracket.
        case afterValue
        /// Inside a string (a key when `isKey`).
        case string(isKey: Bool)
        /// Inside a number.
        case number
        /// Inside `true`, `false` or `null`: the bytes still to come.
        case literal(ArraySlice<UInt8>)
        /// After the array's `]`: only blanks.
        case end
    }

    /// Where in a number the scan is (RFC 8259's grammar, state by state).
    private enum NumberPart { case minus, zero, integer, point, fraction, exponentMark, exponentSign, exponent }

    private var mode = Mode.start
    /// The open `[` and `{`, innermost last.
    private var openers: [UInt8] = []
    private var number = NumberPart.minus
    // Inside a string: an escape under way, the hex digits of a `\u` still to come, whether a
    // high surrogate waits for its low half, and the UTF-8 continuation bytes still to come.
    private var escaped = false
    private var hexDigitsLeft = 0
    private var codeUnit: UInt16 = 0
    private var awaitsLowSurrogate = false
    private var continuationLeft = 0
    private var continuationRange: ClosedRange<UInt8> = 0x80...0xBF

    private static func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x21...0x7E: "an unexpected '\(Character(Unicode.Scalar(byte)))'"
        default: "an unexpected byte 0x\(String(byte, radix: 16, uppercase: true))"
        }
    }

    /// Takes the next byte; returns what is wrong with it, if anything.
    private mutating func take(_ byte: UInt8) -> String? {
        // Never JSON, anywhere: what a hole in a sparse file reads as.
        if byte == 0 { return "a NUL byte" }
        switch mode {
        case .string(let isKey):
            return takeInString(byte, isKey: isKey)
        case .number:
            if let problem = takeInNumber(byte) { return problem }
            if case .number = mode { return nil }
            return take(byte)  // the byte after the number
        case .literal(let rest):
            guard byte == rest.first else { return "\(Self.describe(byte)) in a literal" }
            let remaining = rest.dropFirst()
            if remaining.isEmpty { valueEnded() } else { mode = .literal(remaining) }
            return nil
        default:
            break
        }
        if JSONArrayFile.isBlank(byte) { return nil }
        switch mode {
        case .start:
            guard byte == UInt8(ascii: "[") else { return Self.describe(byte) }
            return open(byte)
        case .value:
            return beginValue(byte)
        case .element:
            if byte == UInt8(ascii: "]") { return close(byte) }
            return beginValue(byte)
        case .member:
            if byte == UInt8(ascii: "}") { return close(byte) }
            guard byte == UInt8(ascii: "\"") else { return "\(Self.describe(byte)) where a key should be" }
            mode = .string(isKey: true)
        case .colon:
            guard byte == UInt8(ascii: ":") else { return "\(Self.describe(byte)) where a ':' should be" }
            mode = .value
        case .afterValue:
            switch byte {
            case UInt8(ascii: ","): mode = openers.last == UInt8(ascii: "[") ? .element : .member
            case UInt8(ascii: "]"), UInt8(ascii: "}"): return close(byte)
            default: return "\(Self.describe(byte)) after a value"
            }
        case .end:
            return "\(Self.describe(byte)) after the array's end"
        case .string, .number, .literal:
            break  // taken above
        }
        return nil
    }

    private mutating func beginValue(_ byte: UInt8) -> String? {
        switch byte {
        case UInt8(ascii: "\""): mode = .string(isKey: false)
        case UInt8(ascii: "["), UInt8(ascii: "{"): return open(byte)
        case UInt8(ascii: "-"): (mode, number) = (.number, .minus)
        case UInt8(ascii: "0"): (mode, number) = (.number, .zero)
        case UInt8(ascii: "1")...UInt8(ascii: "9"): (mode, number) = (.number, .integer)
        case UInt8(ascii: "t"): mode = .literal(Array("rue".utf8)[...])
        case UInt8(ascii: "f"): mode = .literal(Array("alse".utf8)[...])
        case UInt8(ascii: "n"): mode = .literal(Array("ull".utf8)[...])
        default: return "\(Self.describe(byte)) where a value should be"
        }
        return nil
    }

    private mutating func open(_ byte: UInt8) -> String? {
        guard openers.count < Self.maximumDepth else { return "nesting deeper than \(Self.maximumDepth) levels" }
        openers.append(byte)
        mode = byte == UInt8(ascii: "[") ? .element : .member
        return nil
    }

    private mutating func close(_ byte: UInt8) -> String? {
        let opener = byte == UInt8(ascii: "]") ? UInt8(ascii: "[") : UInt8(ascii: "{")
        guard openers.last == opener else { return "\(Self.describe(byte)) that closes no open '\(Character(Unicode.Scalar(opener)))'" }
        openers.removeLast()
        valueEnded()
        return nil
    }

    private mutating func valueEnded() {
        mode = openers.isEmpty ? .end : .afterValue
    }

    private mutating func takeInString(_ byte: UInt8, isKey: Bool) -> String? {
        if continuationLeft > 0 {
            guard continuationRange.contains(byte) else { return "invalid UTF-8 in a string" }
            continuationLeft -= 1
            continuationRange = 0x80...0xBF
            return nil
        }
        if hexDigitsLeft > 0 {
            guard let digit = Self.hexValue(byte) else { return "\(Self.describe(byte)) in a '\\u' escape" }
            codeUnit = codeUnit << 4 | UInt16(digit)
            hexDigitsLeft -= 1
            if hexDigitsLeft == 0 {
                let isHigh = (0xD800...0xDBFF).contains(codeUnit), isLow = (0xDC00...0xDFFF).contains(codeUnit)
                if awaitsLowSurrogate {
                    guard isLow else { return "a high surrogate escape without its low half" }
                    awaitsLowSurrogate = false
                } else if isLow {
                    return "a low surrogate escape without its high half"
                } else {
                    awaitsLowSurrogate = isHigh
                }
            }
            return nil
        }
        if escaped {
            escaped = false
            if byte == UInt8(ascii: "u") {
                (hexDigitsLeft, codeUnit) = (4, 0)
                return nil
            }
            if awaitsLowSurrogate { return "a high surrogate escape without its low half" }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                 UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                return nil
            default:
                return "\(Self.describe(byte)) after a '\\' in a string"
            }
        }
        if awaitsLowSurrogate && byte != UInt8(ascii: "\\") { return "a high surrogate escape without its low half" }
        switch byte {
        case UInt8(ascii: "\\"):
            escaped = true
        case UInt8(ascii: "\""):
            if isKey { mode = .colon } else { valueEnded() }
        case 0x01..<0x20:
            return "a control character (0x\(String(byte, radix: 16, uppercase: true))) in a string"
        case 0x80...:
            switch byte {
            case 0xC2...0xDF: continuationLeft = 1
            case 0xE0: (continuationLeft, continuationRange) = (2, 0xA0...0xBF)
            case 0xED: (continuationLeft, continuationRange) = (2, 0x80...0x9F)
            case 0xE1...0xEF: continuationLeft = 2
            case 0xF0: (continuationLeft, continuationRange) = (3, 0x90...0xBF)
            case 0xF4: (continuationLeft, continuationRange) = (3, 0x80...0x8F)
            case 0xF1...0xF3: continuationLeft = 3
            default: return "invalid UTF-8 in a string"
            }
        default:
            break
        }
        return nil
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Takes a byte inside a number: the number goes on, or ends (the mode moves on and the
    /// caller takes the byte again), or the byte cannot follow.
    private mutating func takeInNumber(_ byte: UInt8) -> String? {
        let isDigit = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        switch (number, byte) {
        case (.minus, UInt8(ascii: "0")): number = .zero
        case (.minus, _) where isDigit: number = .integer
        case (.integer, _) where isDigit: break
        case (.zero, UInt8(ascii: ".")), (.integer, UInt8(ascii: ".")): number = .point
        case (.point, _) where isDigit: number = .fraction
        case (.fraction, _) where isDigit: break
        case (.zero, UInt8(ascii: "e")), (.zero, UInt8(ascii: "E")), (.integer, UInt8(ascii: "e")), (.integer, UInt8(ascii: "E")),
             (.fraction, UInt8(ascii: "e")), (.fraction, UInt8(ascii: "E")):
            number = .exponentMark
        case (.exponentMark, UInt8(ascii: "+")), (.exponentMark, UInt8(ascii: "-")): number = .exponentSign
        case (.exponentMark, _) where isDigit, (.exponentSign, _) where isDigit: number = .exponent
        case (.exponent, _) where isDigit: break
        case (.zero, _), (.integer, _), (.fraction, _), (.exponent, _):
            valueEnded()  // the number is whole; the byte belongs to what follows
        default:
            return "\(Self.describe(byte)) in a number"
        }
        return nil
    }

    /// What is wrong with the text ending where it does, or `nil` after the array's end.
    private func problemAtEnd() -> String? {
        switch mode {
        case .end: nil
        case .start: "no '[' at its start"
        case .string: "the file ends inside a string"
        default: "the file ends before the array does"
        }
    }
}
