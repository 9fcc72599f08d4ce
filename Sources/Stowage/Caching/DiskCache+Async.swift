import Foundation

extension DiskCache {
    /// Stores `data` under `key` on a thread of the caches' lane, as `set(_:for:expiresAfter:)`.
    ///
    /// - Throws: `CancellationError` when the task is cancelled before the write begins (then
    ///   nothing changed); otherwise as the synchronous form.
    public func set(_ data: Data, for key: String, expiresAfter: Duration? = nil) async throws {
        try await set(data, for: key, expirySeconds: expiresAfter?.inSeconds)
    }

    /// Stores an encoded value under `key` on a thread of the caches' lane.
    public func set<Value: Encodable>(_ value: Value, for key: String, expiresAfter: Duration? = nil) async throws {
        try await set(try encode(value, key), for: key, expirySeconds: expiresAfter?.inSeconds)
    }

    /// The async set itself, its expiry in seconds (as the synchronous one).
    func set(_ data: Data, for key: String, expirySeconds: TimeInterval?) async throws {
        try await offActor { try self.set(data, for: key, expirySeconds: expirySeconds) }
    }

    /// The data stored under `key`, or `nil` on a miss: from memory at once, else read on a
    /// thread of the caches' lane.
    ///
    /// - Throws: `CancellationError` when the task is cancelled before the read begins;
    ///   otherwise as `data(for:)`.
    public func data(for key: String) async throws -> Data? {
        let now = Self.wallClock()
        if memory.capacity > 0, !verified.wouldBeDue(Self.uptime, every: 1),
           let hit = memory.lookup(key, generation: index.generation, now: now) {
            // The access goes on disk once a minute, as for a hit from disk (off the actor too).
            if hit.recordDue { try await offActor { try self.run(key) { try self.recordAccess(key) } } }
            return hit.data
        }
        return try await offActor { try self.data(for: key) }
    }

    /// The value stored under `key`, or `nil` on a miss.
    public func value<Value: Decodable>(_ type: Value.Type, for key: String) async throws -> Value? {
        try decode(type, try await data(for: key), key)
    }

    /// Removes the entry under `key` on a thread of the caches' lane.
    public func remove(_ key: String) async throws {
        try await offActor { try self.remove(key) }
    }

    /// Removes every entry, as ``removeAll()``, on a thread of the long-running lane, reporting progress as a
    /// sweep does (``Sweeper/sweep(_:dryRun:now:allowingSystemFolders:progressInterval:progress:)``);
    /// cancelling the task stops before the next removal and returns what was removed until then
    /// (``SweepReport/wasCancelled``). Cancellation is not an error.
    @discardableResult
    public func removeAll(progressInterval: Duration = WorkProgress.defaultInterval,
                          progress: (@Sendable (WorkProgress) -> Void)? = nil) async throws -> SweepReport {
        let cancellation = CancellationFlag()
        return try await LongRunningWork.run(progressInterval: progressInterval, progress: progress,
                                             cancel: { cancellation.cancel() }) { reporter in
            try self.removeAll(cancellation: cancellation, reporter: reporter)
        }
    }

    /// Runs `body` on a thread of ``BlockingLane/cache`` (a fixed number of threads, however
    /// many tasks call at once), after checking the task was not cancelled, with the task's
    /// simulated figures and storage budget (task-local values, which the lane's thread does not
    /// inherit: see ``SimulationContext``).
    private func offActor<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try Task.checkCancellation()
        let simulation = SimulationContext.current
        return try await BlockingLane.cache.run { try simulation.run(body) }
    }
}
