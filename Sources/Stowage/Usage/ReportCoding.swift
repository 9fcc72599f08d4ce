/// The helpers the reports' hand-written `Codable` conformances share, for the two things
/// synthesized `Codable` cannot say (see <doc:JSONVocabulary>): a flag written only when it is
/// set (`wasCancelled`), and a path written as text plus its exact bytes (``ReportedPath``).
/// Everything else a report writes is its properties under their own names.
extension KeyedEncodingContainer {
    /// Writes `true` under `key` when `flag` is set, and nothing otherwise: a key that appears
    /// only in the rare case (a cancelled scan or sweep), so the usual document is unchanged.
    mutating func encodeIfTrue(_ flag: Bool, forKey key: Key) throws {
        if flag { try encode(true, forKey: key) }
    }
}

extension KeyedDecodingContainer {
    /// Reads what ``KeyedEncodingContainer/encodeIfTrue(_:forKey:)`` wrote: `false` when absent.
    func decodeFlag(forKey key: Key) throws -> Bool {
        try decodeIfPresent(Bool.self, forKey: key) ?? false
    }
}
