import Foundation

/// The fill folder's record of its files, rewritten as each file is created.
struct FillManifest: Codable, Sendable {
    static let fileName = "manifest.json"
    static let filePrefix = "fill-"
    static let currentFormat = 1
    /// The extended attribute every fill file carries, whose value is the manifest's id.
    static let markerAttribute = ExtendedAttributes.stowagePrefix + "fill"

    struct Entry: Codable, Sendable, Hashable {
        var name: String
        var device: UInt64
        var inode: UInt64
    }

    var format = FillManifest.currentFormat
    var id = String(UInt64.random(in: .min ... .max), radix: 16)
    /// When the first fill began, in seconds since 1970 (a number: formatting a date as text
    /// costs Foundation milliseconds the first time, which a fill of a few milliseconds notices).
    var created = Date().timeIntervalSince1970
    /// The volume's available bytes when the first fill began.
    var availableBefore: Int64
    var files: [Entry] = []

    init(availableBefore: Int64) { self.availableBefore = availableBefore }

    /// The highest number in a fill file's name: 9 digits, so the next number never overflows.
    static let highestFileNumber = 999_999_999

    /// Whether `name` is a fill file's name, as ``nextFileName(after:)`` makes them: the prefix
    /// and 1 to 9 ASCII digits, one path component that cannot lead out of the fill folder.
    static func isFileName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        let prefix = Array(filePrefix.utf8)
        let digits = String(highestFileNumber).count
        return bytes.starts(with: prefix) && (prefix.count + 1...prefix.count + digits).contains(bytes.count)
            && bytes[prefix.count...].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// The next file's name: one after the highest number in use, or after `name` if higher;
    /// `nil` when that number would need more than 9 digits (``isFileName(_:)``).
    func nextFileName(after name: String? = nil) -> String? {
        let numbers = (files.map(\.name) + [name].compactMap { $0 }).compactMap { Int($0.dropFirst(Self.filePrefix.count)) }
        let next = (numbers.max() ?? 0) + 1
        guard next <= Self.highestFileNumber else { return nil }
        let number = String(next)
        return Self.filePrefix + String(repeating: "0", count: max(0, 6 - number.count)) + number
    }
}
