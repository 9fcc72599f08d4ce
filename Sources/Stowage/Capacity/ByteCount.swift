/// A number of bytes that parses and prints the way people write sizes.
///
/// Parsing accepts `4096`, `512MB`, `512 MB`, `1.5GiB`, `2G`, `0`, and `10%` (of a volume's
/// total, which you supply). Decimal units (`kB`, `MB`, `GB`, `TB`, `PB`, `EB`) are powers of
/// 1000, as `df -H` and Apple's file-size formatter count; binary units (`KiB`, `MiB`, ...)
/// and the bare letters `K`, `M`, `G`, `T`, `P`, `E` are powers of 1024, as GNU `dd`,
/// `fallocate` and `du` read them. Units are case-insensitive.
///
/// Printing uses one system, decimal or binary, never a mix:
///
/// ```swift
/// let size = try ByteCount(parsing: "1.5 GiB")   // 1_610_612_736 bytes
/// size.formatted(.binary)                        // "1.5 GiB"
/// size.formatted(.decimal)                       // "1.6 GB"
/// try ByteCount(parsing: "10%", percentOf: 500_000_000_000)  // 50 GB
/// ```
public struct ByteCount: Hashable, Comparable, Sendable, Codable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The number of bytes.
    public var bytes: Int64

    /// A count of `bytes` bytes.
    public init(_ bytes: Int64) { self.bytes = bytes }

    /// A count from an integer literal, in bytes.
    public init(integerLiteral value: Int64) { bytes = value }

    /// Whether `lhs` is fewer bytes than `rhs`.
    public static func < (lhs: ByteCount, rhs: ByteCount) -> Bool { lhs.bytes < rhs.bytes }

    /// The count in decimal units with one decimal, such as `1.5 GB`.
    public var description: String { formatted() }

    /// Encodes as a plain number of bytes.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(bytes)
    }

    /// Decodes from a plain number of bytes.
    public init(from decoder: any Decoder) throws {
        bytes = try decoder.singleValueContainer().decode(Int64.self)
    }
}

/// Decimal (powers of 1000) or binary (powers of 1024) units.
public struct ByteCountStyle: Hashable, Sendable, CustomStringConvertible {
    let base: Int64
    let symbols: [String]

    /// Powers of 1000: B, kB, MB, GB, TB, PB, EB (as `df -H` and Apple's file-size formatter).
    public static let decimal = ByteCountStyle(base: 1000, symbols: ["B", "kB", "MB", "GB", "TB", "PB", "EB"])
    /// Powers of 1024: B, KiB, MiB, GiB, TiB, PiB, EiB (as `df -h`, with IEC names).
    public static let binary = ByteCountStyle(base: 1024, symbols: ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"])

    /// `decimal` or `binary`.
    public var description: String { base == 1000 ? "decimal" : "binary" }
}
