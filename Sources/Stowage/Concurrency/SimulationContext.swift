/// What the calling task simulates, carried to the threads Stowage moves work to: the figures of
/// `SimulatedCapacity.withFigures`, the storage budget of `StowageTesting`, and in debug
/// builds the ``TestProbe`` installed (so a test's fault points and counts reach async work too).
///
/// Both are task-local values, which a `Thread`, a Dispatch queue or the workers of
/// `DispatchQueue.concurrentPerform` do not inherit: work there would measure the real volume
/// and write past the budget. Every hop takes the context on the calling side (``current``) and
/// binds it again on the other (``run(_:)``): ``LongRunningWork`` (scans, fills, sweeps, relief,
/// the async `Store.clear` and `Container.capacity`), the async forms of ``DiskCache``, and the
/// removal threads of a sweep.
struct SimulationContext: Sendable {
    /// The simulated figures of the current task (`SimulatedCapacity.withFigures`), in bytes.
    @TaskLocal static var figures: (available: Int64, total: Int64?)?

    let figures: (available: Int64, total: Int64?)?
    let budget: (any BudgetAccounting)?
    #if DEBUG
    let probe: TestProbe?
    #endif

    /// The calling task's.
    static var current: SimulationContext {
        #if DEBUG
        SimulationContext(figures: Self.figures, budget: BudgetSeam.current, probe: TestProbe.installed)
        #else
        SimulationContext(figures: Self.figures, budget: BudgetSeam.current)
        #endif
    }

    /// Runs `body` with this context bound (as it is when nothing is simulated: no binding).
    func run<T>(_ body: () throws -> T) rethrows -> T {
        #if DEBUG
        if let probe { return try TestProbe.$installed.withValue(probe) { try bound(body) } }
        #endif
        return try bound(body)
    }

    private func bound<T>(_ body: () throws -> T) rethrows -> T {
        guard figures != nil || budget != nil else { return try body() }
        return try Self.$figures.withValue(figures) {
            try BudgetSeam.$current.withValue(budget, operation: body)
        }
    }
}
