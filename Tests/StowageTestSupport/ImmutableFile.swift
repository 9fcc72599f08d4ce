import CStowageTestShims
import Foundation
import Testing

/// A file made immutable (`chattr +i`: not even root can remove it) for as long as this value
/// lives: the flag is cleared when it goes, also when the test fails, so that the test's folder
/// can be removed. Where the file system has no such flag, the test is cancelled with the
/// reason printed, never passed silently.
public final class ImmutableFile: Sendable {
    /// The file.
    public let path: String

    /// Makes the file at `path` immutable.
    public init(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        self.path = path
        if let failure = Self.setFlag(path, on: true) {
            let reason = "the immutable flag cannot be set on \(path) (\(failure))"
            print("SKIPPED: \(reason)")
            try Test.cancel(Comment(rawValue: reason), sourceLocation: sourceLocation)
        }
    }

    deinit { _ = Self.setFlag(path, on: false) }

    /// Sets or clears the flag; the failure's description, or `nil`.
    private static func setFlag(_ path: String, on: Bool) -> String? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        defer { close(descriptor) }
        return cstowage_test_set_immutable(descriptor, on ? 1 : 0) == 0 ? nil : String(cString: strerror(errno))
    }
}
