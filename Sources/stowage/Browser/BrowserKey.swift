/// A key the browser acts on, decoded from the bytes a terminal sends (ANSI/VT100 cursor keys in
/// both their normal and application forms, and single bytes).
enum BrowserKey: Equatable {
    case up, down, pageUp, pageDown, home, end
    /// Right, `l`, enter.
    case open
    /// Left, `h`, backspace.
    case back
    /// A key with no escape sequence (`q`, `d`, `?`, `y`, ...), or Ctrl-C as `\u{3}`.
    case character(Character)
    /// Escape alone (cancels a question).
    case escape

    /// The keys in `bytes`, in order; an escape sequence the browser does not know is skipped
    /// whole, a byte it does not know is skipped.
    static func decode(_ bytes: [UInt8]) -> [BrowserKey] {
        var keys: [BrowserKey] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case 0x1B:
                guard index < bytes.count, bytes[index] == UInt8(ascii: "[") || bytes[index] == UInt8(ascii: "O") else {
                    keys.append(.escape)
                    continue
                }
                // CSI or SS3: parameters, then one final byte (0x40-0x7E).
                var end = index + 1
                while end < bytes.count, !(0x40...0x7E).contains(bytes[end]) { end += 1 }
                guard end < bytes.count else { index = bytes.count; continue }
                let parameters = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
                index = end + 1
                switch (bytes[end], parameters) {
                case (UInt8(ascii: "A"), _): keys.append(.up)
                case (UInt8(ascii: "B"), _): keys.append(.down)
                case (UInt8(ascii: "C"), _): keys.append(.open)
                case (UInt8(ascii: "D"), _): keys.append(.back)
                case (UInt8(ascii: "H"), _), (UInt8(ascii: "~"), "1"), (UInt8(ascii: "~"), "7"): keys.append(.home)
                case (UInt8(ascii: "F"), _), (UInt8(ascii: "~"), "4"), (UInt8(ascii: "~"), "8"): keys.append(.end)
                case (UInt8(ascii: "~"), "5"): keys.append(.pageUp)
                case (UInt8(ascii: "~"), "6"): keys.append(.pageDown)
                default: break
                }
            case UInt8(ascii: "k"): keys.append(.up)
            case UInt8(ascii: "j"): keys.append(.down)
            case UInt8(ascii: "l"), 0x0D, 0x0A: keys.append(.open)
            case UInt8(ascii: "h"), 0x7F, 0x08: keys.append(.back)
            case UInt8(ascii: "g"): keys.append(.home)
            case UInt8(ascii: "G"): keys.append(.end)
            case 0x02: keys.append(.pageUp)    // Ctrl-B, as in less and vi
            case 0x06: keys.append(.pageDown)  // Ctrl-F
            case 0x03: keys.append(.character("\u{3}"))
            case 0x20...0x7E: keys.append(.character(Character(Unicode.Scalar(byte))))
            default: break
            }
        }
        return keys
    }
}
