import Foundation

extension DiskCache {
    /// Size, count and memory limits.
    public struct Limits: Sendable, Hashable {
        /// The most allocated bytes the entries may take.
        public var maximumAllocatedBytes: Int64?
        /// The most entries.
        public var maximumCount: Int?
        /// The fraction of a limit an eviction goes down to (0 < x ≤ 1).
        public var lowWatermark: Double
        /// The most bytes of entry data kept in memory; 0 turns the memory tier off. Entries
        /// larger than a quarter of it are never kept in memory.
        public var memoryCapacityBytes: Int

        /// The memory tier's capacity unless given: 8 MiB.
        public static let defaultMemoryCapacityBytes = 8 << 20

        /// Limits; none on disk unless given, and an 8 MiB memory tier.
        public init(maximumAllocatedBytes: Int64? = nil, maximumCount: Int? = nil, lowWatermark: Double = 0.8,
                    memoryCapacityBytes: Int = Limits.defaultMemoryCapacityBytes) {
            self.maximumAllocatedBytes = maximumAllocatedBytes
            self.maximumCount = maximumCount
            self.lowWatermark = lowWatermark
            self.memoryCapacityBytes = memoryCapacityBytes
        }

        /// Why these limits cannot be kept, or `nil`.
        var problem: String? {
            if let problem = SweepPolicy(maximumAllocatedBytes: maximumAllocatedBytes, maximumCount: maximumCount,
                                         lowWatermark: lowWatermark).problem { return problem }
            if memoryCapacityBytes < 0 { return "the memory capacity cannot be negative" }
            return nil
        }

        /// Whether `totals` exceed a limit.
        func areExceeded(by totals: CacheIndex.Totals) -> Bool {
            (maximumAllocatedBytes.map { totals.allocatedBytes > $0 } ?? false) || (maximumCount.map { totals.count > $0 } ?? false)
        }

        /// What an eviction for these limits removes: least recently used first, down to the low watermark.
        var evictionPolicy: SweepPolicy {
            SweepPolicy(maximumAllocatedBytes: maximumAllocatedBytes, maximumCount: maximumCount, order: .leastRecentlyUsed,
                        lowWatermark: lowWatermark)
        }
    }
}
