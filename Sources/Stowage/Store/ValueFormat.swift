import Foundation

/// How a ``Store`` turns Codable values into bytes and back.
///
/// ``JSONFormat`` is the default; ``PropertyListFormat`` stores property lists. Conform your
/// own type to plug in another encoder (CBOR, MessagePack, ...).
///
/// ```swift
/// let store = Store(container: container, format: .propertyList(.binary))
/// ```
public protocol ValueFormat: Sendable {
    /// Encodes one value.
    func encode<Value: Encodable>(_ value: Value) throws -> Data
    /// Decodes one value.
    func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value
    /// Whether the encoding is JSON, which lets ``Store`` append to an array file in place,
    /// at a cost proportional to the appended value. Other formats append by rewriting the
    /// whole array.
    var isJSON: Bool { get }
}

extension ValueFormat {
    /// Not JSON unless a format says so.
    public var isJSON: Bool { false }
}

/// JSON through Foundation's `JSONEncoder` and `JSONDecoder`.
///
/// Pass your own configured coders to choose date strategies, key strategies or output
/// formatting. Appending works with any output formatting, pretty-printed included.
public struct JSONFormat: ValueFormat {
    /// The encoder used for every value.
    public let encoder: JSONEncoder
    /// The decoder used for every value.
    public let decoder: JSONDecoder

    /// JSON with the given coders (default coders when omitted).
    ///
    /// Foundation's coders are thread-safe, so one `Store` can encode from many threads at once.
    /// - Important: Change the coders' settings before handing them over, not afterwards.
    public init(encoder: JSONEncoder = JSONEncoder(), decoder: JSONDecoder = JSONDecoder()) {
        self.encoder = encoder
        self.decoder = decoder
    }

    /// Encodes `value` as JSON.
    public func encode<Value: Encodable>(_ value: Value) throws -> Data { try encoder.encode(value) }

    /// Decodes a `Value` from JSON.
    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try decoder.decode(type, from: data)
    }

    /// Always `true`.
    public var isJSON: Bool { true }
}

/// Property lists through Foundation's `PropertyListEncoder` and `PropertyListDecoder`.
public struct PropertyListFormat: ValueFormat {
    /// The serialization: `.xml` or `.binary`.
    public let serialization: PropertyListSerialization.PropertyListFormat

    /// A property-list format, binary by default.
    public init(_ serialization: PropertyListSerialization.PropertyListFormat = .binary) {
        self.serialization = serialization
    }

    /// Encodes `value` as a property list.
    public func encode<Value: Encodable>(_ value: Value) throws -> Data {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = serialization
        return try encoder.encode(value)
    }

    /// Decodes a `Value` from a property list.
    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try PropertyListDecoder().decode(type, from: data)
    }
}

extension ValueFormat where Self == JSONFormat {
    /// JSON with default coders.
    public static var json: JSONFormat { JSONFormat() }
    /// JSON with your coders' settings.
    public static func json(encoder: JSONEncoder = JSONEncoder(), decoder: JSONDecoder = JSONDecoder()) -> JSONFormat {
        JSONFormat(encoder: encoder, decoder: decoder)
    }
}

extension ValueFormat where Self == PropertyListFormat {
    /// Property lists in the given serialization (binary by default).
    public static func propertyList(_ serialization: PropertyListSerialization.PropertyListFormat = .binary) -> PropertyListFormat {
        PropertyListFormat(serialization)
    }
}
