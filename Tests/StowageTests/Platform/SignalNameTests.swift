import Foundation
import Testing
@testable import Stowage

/// `Signal`'s names: every POSIX signal by its own name, as a room's ending and the JSON schema give it.
@Suite("Signal names")
struct SignalNameTests {
    @Test("every POSIX signal is named as <signal.h> names it; an unnamed number says so")
    func names() {
        let expected: [(Int32, String)] = [
            (SIGHUP, "SIGHUP"), (SIGINT, "SIGINT"), (SIGQUIT, "SIGQUIT"), (SIGILL, "SIGILL"), (SIGTRAP, "SIGTRAP"),
            (SIGABRT, "SIGABRT"), (SIGBUS, "SIGBUS"), (SIGFPE, "SIGFPE"), (SIGKILL, "SIGKILL"), (SIGUSR1, "SIGUSR1"),
            (SIGSEGV, "SIGSEGV"), (SIGUSR2, "SIGUSR2"), (SIGPIPE, "SIGPIPE"), (SIGALRM, "SIGALRM"), (SIGTERM, "SIGTERM"),
            (SIGCHLD, "SIGCHLD"), (SIGCONT, "SIGCONT"), (SIGSTOP, "SIGSTOP"), (SIGTSTP, "SIGTSTP"), (SIGTTIN, "SIGTTIN"),
            (SIGTTOU, "SIGTTOU"), (SIGURG, "SIGURG"), (SIGXCPU, "SIGXCPU"), (SIGXFSZ, "SIGXFSZ"), (SIGVTALRM, "SIGVTALRM"),
            (SIGPROF, "SIGPROF"), (SIGWINCH, "SIGWINCH"), (SIGIO, "SIGIO"), (SIGSYS, "SIGSYS"),
        ]
        for (number, name) in expected {
            #expect(Signal(rawValue: number).description == name)
        }
        #expect(Signal(rawValue: 40).description == "signal 40", "a real-time signal has no name of its own")
    }
}
