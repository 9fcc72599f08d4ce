#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Sys {
    /// `SIGTERM`: asks a process to stop, as `kill` does by default.
    package static let terminationSignal: Int32 = SIGTERM
}

#if DEBUG
/// Signals to this process, for ``TestProbe``'s fault points in child processes (debug builds).
extension Sys {
    /// `SIGKILL`: stops the process at once, as a crash or a power loss would.
    package static let killSignal: Int32 = SIGKILL
    /// `kill(2)` of this process with `signal` (process-directed, so whichever thread handles it does).
    package static func signalProcess(_ signal: Int32) {
        _ = kill(getpid(), signal)
    }
}
#endif
