import Foundation

// The spellings of DiskCache's API before its figures carried their units and its expiries were
// Durations, kept for one release; each forwards to the new one.

extension DiskCache {
    /// Stores `data` under `key`, its expiry in seconds: the earlier spelling of
    /// `set(_:for:expiresAfter:)` with a `Duration`. `nil` or `.infinity` for never, 0 or less
    /// (`-.infinity` too) already expired; NaN is ``StowageError/Code/invalidArgument``.
    @available(*, deprecated, message: "give expiresAfter as a Duration, such as .seconds(60)")
    @_disfavoredOverload
    public func set(_ data: Data, for key: String, expiresAfter: TimeInterval?) throws {
        try set(data, for: key, expirySeconds: expiresAfter)
    }

    /// Stores an encoded value under `key`, its expiry in seconds (the earlier spelling).
    @available(*, deprecated, message: "give expiresAfter as a Duration, such as .seconds(60)")
    @_disfavoredOverload
    public func set<Value: Encodable>(_ value: Value, for key: String, expiresAfter: TimeInterval?) throws {
        try set(try encode(value, key), for: key, expirySeconds: expiresAfter)
    }

    /// Stores `data` under `key` on a thread of the caches' lane, its expiry in seconds (the
    /// earlier spelling).
    @available(*, deprecated, message: "give expiresAfter as a Duration, such as .seconds(60)")
    @_disfavoredOverload
    public func set(_ data: Data, for key: String, expiresAfter: TimeInterval?) async throws {
        try await set(data, for: key, expirySeconds: expiresAfter)
    }

    /// Stores an encoded value under `key` on a thread of the caches' lane, its expiry in seconds
    /// (the earlier spelling).
    @available(*, deprecated, message: "give expiresAfter as a Duration, such as .seconds(60)")
    @_disfavoredOverload
    public func set<Value: Encodable>(_ value: Value, for key: String, expiresAfter: TimeInterval?) async throws {
        try await set(try encode(value, key), for: key, expirySeconds: expiresAfter)
    }

    /// ``memoryCostBytes``, in its earlier spelling.
    @available(*, deprecated, renamed: "memoryCostBytes")
    public var memoryCost: Int { memoryCostBytes }
}

extension DiskCache.Limits {
    /// Limits, in the earlier spelling of the figures' names.
    @available(*, deprecated, renamed: "init(maximumAllocatedBytes:maximumCount:lowWatermark:memoryCapacityBytes:)")
    @_disfavoredOverload
    public init(maximumAllocatedSize: Int64? = nil, maximumCount: Int? = nil, lowWatermark: Double = 0.8,
                memoryCapacity: Int = DiskCache.Limits.defaultMemoryCapacityBytes) {
        self.init(maximumAllocatedBytes: maximumAllocatedSize, maximumCount: maximumCount, lowWatermark: lowWatermark,
                  memoryCapacityBytes: memoryCapacity)
    }

    /// ``maximumAllocatedBytes``, in its earlier spelling.
    @available(*, deprecated, renamed: "maximumAllocatedBytes")
    public var maximumAllocatedSize: Int64? {
        get { maximumAllocatedBytes }
        set { maximumAllocatedBytes = newValue }
    }

    /// ``memoryCapacityBytes``, in its earlier spelling.
    @available(*, deprecated, renamed: "memoryCapacityBytes")
    public var memoryCapacity: Int {
        get { memoryCapacityBytes }
        set { memoryCapacityBytes = newValue }
    }

    /// ``defaultMemoryCapacityBytes``, in its earlier spelling.
    @available(*, deprecated, renamed: "defaultMemoryCapacityBytes")
    public static var defaultMemoryCapacity: Int { defaultMemoryCapacityBytes }
}
