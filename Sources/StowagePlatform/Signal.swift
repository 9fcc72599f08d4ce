#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A signal, under a Swift name: what ``RoomProcess/send(_:)`` sends and
/// ``RoomReport/Ending/signalled(_:)`` reports.
///
/// Values differ between systems (`SIGUSR1` is 10 on Linux and 30 on Darwin), so compare with
/// these constants, not numbers.
///
/// ```swift
/// try room.send(.terminate)
/// if case .signalled(let signal) = try room.wait().ending { print("ended by \(signal)") }   // "SIGTERM"
/// ```
public struct Signal: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The number, as the system's `<signal.h>` defines it.
    public var rawValue: Int32

    /// The signal numbered `rawValue`.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// `SIGINT`: interrupted from the terminal (Control-C).
    public static let interrupt = Signal(rawValue: SIGINT)
    /// `SIGTERM`: asked to stop, as `kill` does by default.
    public static let terminate = Signal(rawValue: SIGTERM)
    /// `SIGHUP`: the terminal went away.
    public static let hangUp = Signal(rawValue: SIGHUP)
    /// `SIGQUIT`: quit from the terminal (Control-\\), with a core dump.
    public static let quit = Signal(rawValue: SIGQUIT)
    /// `SIGKILL`: stopped at once; cannot be caught.
    public static let kill = Signal(rawValue: SIGKILL)
    /// `SIGWINCH`: the terminal's size changed. For the command (`package`): its browser redraws.
    package static let windowSizeChanged = Signal(rawValue: SIGWINCH)
    /// `SIGUSR1`: the first signal left to programs.
    public static let user1 = Signal(rawValue: SIGUSR1)
    /// `SIGUSR2`: the second signal left to programs.
    public static let user2 = Signal(rawValue: SIGUSR2)

    /// The POSIX signals, which Linux and Darwin both have (under different numbers for some).
    private static let names: [Int32: String] = [
        SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP", SIGABRT: "SIGABRT",
        SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGUSR1: "SIGUSR1", SIGSEGV: "SIGSEGV", SIGUSR2: "SIGUSR2",
        SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM", SIGCHLD: "SIGCHLD", SIGCONT: "SIGCONT", SIGSTOP: "SIGSTOP",
        SIGTSTP: "SIGTSTP", SIGTTIN: "SIGTTIN", SIGTTOU: "SIGTTOU", SIGURG: "SIGURG", SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ",
        SIGVTALRM: "SIGVTALRM", SIGPROF: "SIGPROF", SIGWINCH: "SIGWINCH", SIGIO: "SIGIO", SIGSYS: "SIGSYS",
    ]

    /// The signal's name as `<signal.h>` spells it (`SIGSEGV`), for every POSIX signal; `signal
    /// 40` for one without a POSIX name (a real-time signal).
    public var description: String { Self.names[rawValue] ?? "signal \(rawValue)" }

    /// Ends this process by this signal, as the command it stands for was ended (so that a shell
    /// sees the same ending), without a core dump of this process; exits with 128 + the number if
    /// the signal does not end it. For command-line tools that pass a child's ending through, as
    /// `env`, `timeout` and `stowage run` do.
    public func endThisProcess() -> Never {
        #if canImport(Glibc)
        let core = __rlimit_resource_t(RLIMIT_CORE.rawValue)
        #else
        let core = RLIMIT_CORE
        #endif
        var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = getrlimit(core, &noCore)
        noCore.rlim_cur = 0
        _ = setrlimit(core, &noCore)
        _ = signal(rawValue, SIG_DFL)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        sigaddset(&unblocked, rawValue)
        sigprocmask(SIG_UNBLOCK, &unblocked, nil)
        raise(rawValue)
        exit(128 + rawValue)
    }
}
