import Foundation
import Testing

/// The tests that take long (ranges of hundreds of rooms, matrices of loop-mounted file systems,
/// the runs against models and the fuzzing): `.ci/run` runs them, a plain `swift test` skips them
/// and says so, so that a contributor's first `swift test` is short.
public enum LongTests {
    /// The variable that turns them on: `STOWAGE_LONG_TESTS=1 swift test` (`.ci/run` sets it).
    public static let variable = "STOWAGE_LONG_TESTS"

    /// Whether this run takes the long tests: `STOWAGE_LONG_TESTS` is `1`.
    public static var areEnabled: Bool { ProcessInfo.processInfo.environment[variable] == "1" }
}

extension Trait where Self == ConditionTrait {
    /// A test (or suite) that runs only when `STOWAGE_LONG_TESTS=1`; skipped otherwise, with a
    /// comment saying what makes it long and how to run it (Swift Testing prints it as
    /// `Test ... skipped: "..."`, never as a pass).
    ///
    /// - Parameter what: what makes it long, with the time it took when measured (for the skip's comment).
    public static func long(_ what: String, sourceLocation: SourceLocation = #_sourceLocation) -> Self {
        .enabled(if: LongTests.areEnabled,
                 Comment(rawValue: "a long test (\(what)): `\(LongTests.variable)=1 swift test --filter ...` runs it, and .ci/run does"),
                 sourceLocation: sourceLocation)
    }
}
