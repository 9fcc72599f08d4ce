import Foundation

// The one mechanism of the reports' JSON for what synthesized `Codable` cannot say by itself
// (see <doc:JSONVocabulary>): three property wrappers, each with the container methods that the
// synthesized conformances call for it. A report declares its properties, marks these, and
// writes no `encode(to:)` or `init(from:)` of its own.

/// An optional written as `null` when it has no value, never left out as synthesized
/// `Encodable` leaves it: the vocabulary's "keys are never left out". Read back from `null` or
/// from a missing key as `nil`.
///
/// ```swift
/// struct ContainerJSON: Encodable {
///     @NullWhenAbsent var root: String?   // "root": null
/// }
/// ```
@propertyWrapper
public struct NullWhenAbsent<Value> {
    /// The value, or `nil`.
    public var wrappedValue: Value?

    /// Wraps `wrappedValue`.
    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }
}

extension NullWhenAbsent: Encodable where Value: Encodable {
    /// Writes the value, or `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension NullWhenAbsent: Decodable where Value: Decodable {
    /// Reads the value, or `nil` for `null`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }
}

extension NullWhenAbsent: Equatable where Value: Equatable {}
extension NullWhenAbsent: Hashable where Value: Hashable {}
extension NullWhenAbsent: Sendable where Value: Sendable {}

/// A flag written only when it is set, as `true`: a key that appears only in the rare case (a
/// cancelled scan or sweep), so the usual document is unchanged. Read back as `false` when the
/// key is missing.
@propertyWrapper
public struct OmittedWhenFalse: Codable, Hashable, Sendable {
    /// The flag.
    public var wrappedValue: Bool

    /// Wraps `wrappedValue`.
    public init(wrappedValue: Bool) { self.wrappedValue = wrappedValue }

    /// Writes the flag (a report's container leaves it out when it is `false`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }

    /// Reads the flag.
    public init(from decoder: any Decoder) throws {
        wrappedValue = try decoder.singleValueContainer().decode(Bool.self)
    }
}

/// A path's exact bytes beside its text (a property named `path`), written in Base64 only when
/// the text is not exact, that is when the bytes are not UTF-8 (see `ReportedPath`). Its
/// coding key names the JSON key, `pathBase64`; read back from it, or, when it is missing, as the
/// UTF-8 of the `path` key's text.
@propertyWrapper
public struct Base64WhenNotUTF8: Codable, Hashable, Sendable {
    /// The exact bytes.
    public var wrappedValue: [UInt8]

    /// Wraps `wrappedValue`.
    public init(wrappedValue: [UInt8]) { self.wrappedValue = wrappedValue }

    /// Writes the bytes in Base64 (a report's container leaves them out when they are UTF-8).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Data(wrappedValue).base64EncodedString())
    }

    /// Reads bytes written in Base64.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let bytes = Data(base64Encoded: try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not Base64")
        }
        wrappedValue = Array(bytes)
    }
}

extension KeyedEncodingContainer {
    /// Leaves the flag out when it is `false`.
    public mutating func encode(_ flag: OmittedWhenFalse, forKey key: Key) throws {
        if flag.wrappedValue { try encode(true, forKey: key) }
    }

    /// Leaves the bytes out when they are UTF-8 (the `path` text then says them exactly).
    public mutating func encode(_ bytes: Base64WhenNotUTF8, forKey key: Key) throws {
        if !RawPath.isUTF8(bytes.wrappedValue) { try encode(Data(bytes.wrappedValue).base64EncodedString(), forKey: key) }
    }
}

extension KeyedDecodingContainer {
    /// `nil` for a missing key as for `null`.
    public func decode<Value: Decodable>(_ type: NullWhenAbsent<Value>.Type, forKey key: Key) throws -> NullWhenAbsent<Value> {
        NullWhenAbsent(wrappedValue: try decodeIfPresent(Value.self, forKey: key))
    }

    /// `false` for a missing key.
    public func decode(_ type: OmittedWhenFalse.Type, forKey key: Key) throws -> OmittedWhenFalse {
        OmittedWhenFalse(wrappedValue: try decodeIfPresent(Bool.self, forKey: key) ?? false)
    }

    /// The Base64 under `key`, or, when it is missing, the UTF-8 of the text under `path`.
    public func decode(_ type: Base64WhenNotUTF8.Type, forKey key: Key) throws -> Base64WhenNotUTF8 {
        if contains(key) { return try decode(Base64WhenNotUTF8.self, forKeyPresent: key) }
        guard let textKey = Key(stringValue: "path") else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no path beside the bytes"))
        }
        return Base64WhenNotUTF8(wrappedValue: Array(try decode(String.self, forKey: textKey).utf8))
    }

    private func decode(_ type: Base64WhenNotUTF8.Type, forKeyPresent key: Key) throws -> Base64WhenNotUTF8 {
        guard let bytes = Data(base64Encoded: try decode(String.self, forKey: key)) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not Base64")
        }
        return Base64WhenNotUTF8(wrappedValue: Array(bytes))
    }
}
