import Foundation

/// Figures that every capacity query and space check reports instead of the real ones, so an
/// app's low-storage code paths can be tested without filling a disk.
///
/// Three ways to switch it on, the first that applies wins:
/// 1. `withFigures(available:total:_:)` (synchronous and `async` forms): for the current task and the tasks it creates (safe
///    in parallel tests, since other tasks are not affected).
/// 2. ``install(available:total:)``: for the whole process until the returned ``Installation``
///    is removed (a debug menu's "pretend storage is low").
/// 3. The environment variables `STOWAGE_SIMULATED_AVAILABLE` and `STOWAGE_SIMULATED_TOTAL`
///    (sizes such as `200MB`; read at each query), for a process you start, such as the app
///    under test or `stowage info`.
///
/// Sizes of real files are unaffected; only volume figures are. ``VolumeCapacity/isSimulated``
/// says when figures are simulated.
///
/// These figures stay where they are whatever is written. For figures that move with the
/// writes, and writes that fail when the space is spent, use the simulated volume of the
/// `StowageTesting` library (`withSimulatedStorage`, the `.simulatedStorage` trait); inside one,
/// its figures come before all three of these.
///
/// ```swift
/// try SimulatedCapacity.withFigures(available: 50_000_000) {
///     #expect(throws: StowageError.self) {
///         try store.save(video, to: "v.mov", in: .documents,
///                        options: WriteOptions(spaceRequirement: .opportunistic))
///     }
/// }
/// ```
public enum SimulatedCapacity {
    /// Simulated free space for an unprivileged writer.
    public struct Figures: Sendable, Hashable {
        /// Bytes available.
        public var availableBytes: Int64
        /// The volume's total bytes; `nil` keeps the real total.
        public var totalBytes: Int64?

        /// Figures with `availableBytes` free of `totalBytes` (the real total when `nil`).
        public init(availableBytes: Int64, totalBytes: Int64? = nil) {
            self.availableBytes = availableBytes
            self.totalBytes = totalBytes
        }
    }

    /// The environment variable holding simulated available bytes, such as `200MB`.
    public static let availableVariable = "STOWAGE_SIMULATED_AVAILABLE"
    /// The environment variable holding a simulated volume total, such as `1GB`.
    public static let totalVariable = "STOWAGE_SIMULATED_TOTAL"

    /// The figures of `withFigures(available:total:_:)` for the current task
    /// (held by ``SimulationContext``, which carries them to Stowage's threads).
    static var taskFigures: Figures? {
        SimulationContext.figures.map { Figures(availableBytes: $0.available, totalBytes: $0.total) }
    }

    /// Runs `body` with simulated figures for the current task and its child tasks.
    public static func withFigures<T>(available: ByteCount, total: ByteCount? = nil, _ body: () throws -> T) rethrows -> T {
        try SimulationContext.$figures.withValue((available.bytes, total?.bytes), operation: body)
    }

    /// Runs `body` with simulated figures for the current task and its child tasks.
    public static func withFigures<T>(available: ByteCount, total: ByteCount? = nil,
                                      _ body: () async throws -> T) async rethrows -> T {
        try await SimulationContext.$figures.withValue((available.bytes, total?.bytes), operation: body)
    }

    /// Installs figures for the whole process; they stay until ``Installation/remove()``.
    /// Installations nest: removing one restores what was there before it.
    @discardableResult
    public static func install(available: ByteCount, total: ByteCount? = nil) -> Installation {
        ProcessFigures.shared.push(Figures(availableBytes: available.bytes, totalBytes: total?.bytes))
    }

    /// A process-wide installation of simulated figures.
    public struct Installation: Sendable, Hashable {
        let identifier: UInt64

        /// Removes these figures. Removing twice is harmless.
        public func remove() { ProcessFigures.shared.remove(identifier) }
    }

    /// The figures in force for the caller, or `nil` when nothing is simulated: those of a
    /// simulated volume of `StowageTesting` first, moving with the caller's writes.
    ///
    /// - Throws: ``StowageError/Code/invalidArgument`` when an environment variable holds
    ///   something that is not a size, naming the variable.
    public static func current(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Figures? {
        try current(variable: { environment[$0] })
    }

    /// ``current(environment:)`` reading the process's own environment one variable at a time:
    /// what a check repeated many times a second can afford (see ``PressureWatcher``).
    static func currentInProcess() throws -> Figures? {
        try current(variable: Sys.environmentVariable)
    }

    private static func current(variable: (String) -> String?) throws -> Figures? {
        // A storage budget (StowageTesting) is a simulated volume whose figures move with the
        // task's writes: it comes first.
        if let budget = StorageBudget.current { return budget.figures }
        if let figures = taskFigures { return figures }
        if let figures = ProcessFigures.shared.top { return figures }
        guard let availableText = variable(availableVariable), !availableText.isEmpty else { return nil }
        func parse(_ text: String, _ variable: String) throws -> Int64 {
            do {
                return try ByteCount(parsing: text).bytes
            } catch let error as StowageError {
                throw error.replacing(reason: "\(variable): " + (error.reason ?? "not a size"))
            }
        }
        let total = try variable(totalVariable).flatMap { $0.isEmpty ? nil : $0 }.map { try parse($0, totalVariable) }
        return Figures(availableBytes: try parse(availableText, availableVariable), totalBytes: total)
    }
}

/// The process-wide stack of installed figures.
///
/// `@unchecked Sendable`: both fields are read and written only while `lock` is held.
private final class ProcessFigures: @unchecked Sendable {
    static let shared = ProcessFigures()
    private let lock = NSLock()
    private var stack: [(identifier: UInt64, figures: SimulatedCapacity.Figures)] = []
    private var nextIdentifier: UInt64 = 1

    var top: SimulatedCapacity.Figures? { lock.withLock { stack.last?.figures } }

    func push(_ figures: SimulatedCapacity.Figures) -> SimulatedCapacity.Installation {
        lock.withLock {
            let identifier = nextIdentifier
            nextIdentifier += 1
            stack.append((identifier, figures))
            return SimulatedCapacity.Installation(identifier: identifier)
        }
    }

    func remove(_ identifier: UInt64) {
        lock.withLock { stack.removeAll { $0.identifier == identifier } }
    }
}
