import Foundation

/// How reports write a path that came from the file system, whose bytes need not be UTF-8
/// (<doc:Architecture>, bytes at every boundary): `path` is the text, with U+FFFD for bytes that are not UTF-8, and `pathBase64`,
/// only when that text is not exact, holds the exact bytes, so a reader can always act on the
/// name. Used by every report that names what a walk met (usage items and issues, swept files,
/// audit findings), through ``Base64WhenNotUTF8``.
enum ReportedPath {
    /// The text of `bytes`: exact when they are UTF-8, with U+FFFD for each bad sequence otherwise.
    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
