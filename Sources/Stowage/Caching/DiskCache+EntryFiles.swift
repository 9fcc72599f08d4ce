import Foundation

extension DiskCache {
    private static let magic = Array("STOWAGE-CACHE-2\n".utf8)

    /// The fan-out folder and file name of a key.
    ///
    /// The fan-out folder is the top byte of the first hash after a finaliser (MurmurHash3's
    /// `fmix64`): FNV-1a's own top byte barely changes when keys differ only at their end, and
    /// put 87 keys `p0-t0-N` in 3 of the 256 folders.
    static func fileName(for key: String) -> (String, String) {
        let bytes = Array(key.utf8)
        let first = AppendJournal.checksum(bytes)
        let second = AppendJournal.checksum(bytes + [0x5A])
        let name = String(first, radix: 16).leftPadded(16) + String(second, radix: 16).leftPadded(16)
        return (String(mixed(first) >> 56, radix: 16).leftPadded(2), name)
    }

    /// MurmurHash3's 64-bit finaliser: every bit of `hash` moves every bit of the result.
    private static func mixed(_ hash: UInt64) -> UInt64 {
        var value = hash
        value ^= value >> 33
        value &*= 0xff51_afd7_ed55_8ccd
        value ^= value >> 33
        value &*= 0xc4ce_b9fe_1a85_ec53
        value ^= value >> 33
        return value
    }

    /// An entry starts with the magic, the key's length (4 bytes) and UTF-8 bytes, the expiry
    /// (8 bytes, a `Double`'s bits, 0 for never) and the data's length (8 bytes), all little
    /// endian; the data follows. The length tells a whole entry from one cut short (a write that
    /// was not synced, then a power loss, can leave a file shorter than it was written).
    static func header(key: String, expiry: Double, dataLength: Int) -> Data {
        var data = Data(magic)
        let keyBytes = Array(key.utf8)
        withUnsafeBytes(of: UInt32(keyBytes.count).littleEndian) { data.append(contentsOf: $0) }
        data.append(contentsOf: keyBytes)
        withUnsafeBytes(of: expiry.bitPattern.littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt64(dataLength).littleEndian) { data.append(contentsOf: $0) }
        return data
    }

    /// The key, expiry and where the data starts; `nil` for anything but a whole entry.
    static func parse(_ content: Data) -> (key: String, expiry: Double, dataOffset: Int)? {
        guard case .entry(let key, let expiry, let dataOffset) = parseHeader(content, fileSize: content.count) else { return nil }
        return (key, expiry, dataOffset)
    }

    /// What the first bytes of an entry file of `fileSize` bytes say.
    enum Header: Equatable {
        /// A whole entry: its key, expiry, and where its data starts.
        case entry(key: String, expiry: Double, dataOffset: Int)
        /// The header goes on past `prefix`: read this many bytes and ask again.
        case needs(Int)
        /// Not an entry, or one cut short or grown.
        case corrupt
    }

    /// Parses the header at the start of `prefix`, the first bytes of an entry file of `fileSize`
    /// bytes: whole only if its data's length is exactly what follows the header in the file.
    static func parseHeader(_ prefix: Data, fileSize: Int) -> Header {
        let start = prefix.startIndex
        guard fileSize >= magic.count + 4 else { return .corrupt }
        guard prefix.count >= magic.count + 4 else { return .needs(magic.count + 4) }
        guard prefix.prefix(magic.count).elementsEqual(magic) else { return .corrupt }
        let keyLength = Int(littleEndian(prefix, at: start + magic.count, count: 4))
        let dataOffset = magic.count + 4 + keyLength + 16
        guard fileSize >= dataOffset else { return .corrupt }
        guard prefix.count >= dataOffset else { return .needs(dataOffset) }
        let keyStart = start + magic.count + 4
        let key = String(decoding: prefix[keyStart..<keyStart + keyLength], as: UTF8.self)
        let expiry = Double(bitPattern: littleEndian(prefix, at: keyStart + keyLength, count: 8))
        let dataLength = littleEndian(prefix, at: keyStart + keyLength + 8, count: 8)
        guard UInt64(fileSize - dataOffset) == dataLength else { return .corrupt }
        return .entry(key: key, expiry: expiry, dataOffset: dataOffset)
    }

    /// The little-endian number in the `count` bytes of `content` at `index`.
    private static func littleEndian(_ content: Data, at index: Int, count: Int) -> UInt64 {
        content[index..<index + count].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
    }
}

extension String {
    func leftPadded(_ length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
