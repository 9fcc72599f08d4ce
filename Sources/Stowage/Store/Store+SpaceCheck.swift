extension Store {
    /// Throws ``StowageError/Code/noSpace`` when new files of `sizes` bytes, each rounded up to
    /// whole blocks, do not fit the write's requirement on the volume of `location`; does nothing
    /// without a requirement.
    func checkSpace(forFiles sizes: [Int64], in location: Location, options: WriteOptions,
                    operation: StowageError.Operation, path: String) throws {
        guard let requirement = options.spaceRequirement else { return }
        let capacity = try VolumeCapacity.measure(container.existingAncestor(of: container.url(for: location)),
                                                  reclaimable: 0)
        let needed = sizes.reduce(0) { $0 + capacity.roundedToBlocks($1) }
        let limit = requirement == .important ? capacity.availableForImportantUsageBytes : capacity.availableForOpportunisticUsageBytes
        guard needed > limit else { return }
        let reason = requirement == .important
            ? "not enough space on the volume"
            : "not enough space for optional data: the volume keeps \(ByteCount(VolumeCapacity.headroom(forTotal: capacity.totalBytes)).formatted()) free"
        throw StowageError(.noSpace, operation: operation, location: location, path: path,
                           reason: reason + (capacity.isSimulated ? " (simulated capacity)" : ""),
                           neededBytes: needed, availableBytes: limit)
    }
}
