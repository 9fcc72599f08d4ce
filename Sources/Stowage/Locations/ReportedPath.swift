import Foundation

/// How reports write a path that came from the file system, whose bytes need not be UTF-8
/// (<doc:Architecture>, bytes at every boundary): `path` is the text, with U+FFFD for bytes that are not UTF-8, and `pathBase64`,
/// only when that text is not exact, holds the exact bytes, so a reader can always act on the
/// name. Used by every report that names what a walk met (usage items and issues, swept files,
/// audit findings).
enum ReportedPath {
    /// The text of `bytes`: exact when they are UTF-8, with U+FFFD for each bad sequence otherwise.
    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// Encodes `text` under `path`, and `bytes` in Base64 under `base64` only when they are not UTF-8.
    static func encode<Key: CodingKey>(text: String, bytes: [UInt8], path: Key, base64: Key,
                                       into container: inout KeyedEncodingContainer<Key>) throws {
        try container.encode(text, forKey: path)
        if !RawPath.isUTF8(bytes) {
            try container.encode(Data(bytes).base64EncodedString(), forKey: base64)
        }
    }

    /// Decodes what ``encode(text:bytes:path:base64:into:)`` wrote: the text and the exact bytes
    /// (those of `pathBase64` when present, else the text's UTF-8).
    static func decode<Key: CodingKey>(path: Key, base64: Key, from container: KeyedDecodingContainer<Key>) throws
        -> (text: String, bytes: [UInt8]) {
        let text = try container.decode(String.self, forKey: path)
        guard let encoded = try container.decodeIfPresent(String.self, forKey: base64) else { return (text, Array(text.utf8)) }
        guard let bytes = Data(base64Encoded: encoded) else {
            throw DecodingError.dataCorruptedError(forKey: base64, in: container, debugDescription: "not Base64")
        }
        return (text, Array(bytes))
    }
}
