#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Stowage's Platform layer supports Darwin, Glibc and Musl systems")
#endif
import CStowageShims

/// What the `stowage` command asks of the terminals its standard streams are on: whether they
/// are terminals, and their size. For the command's use (`package`), not part of the library's
/// API: the library never prints.
package enum TerminalDevice {
    /// The standard input, output and error descriptors.
    package static let standardInput: Int32 = 0
    package static let standardOutput: Int32 = 1
    package static let standardError: Int32 = 2

    /// Opens `/dev/null` on each standard stream that is closed (`stowage ... >&-`), as careful
    /// Unix tools do at start: otherwise the next file or pipe the command opens takes that
    /// number, and what the command prints lands in it (a signal trap's pipe read a table row
    /// as a signal, and a range of rooms ended "interrupted" with no signal sent). What is then
    /// written to the stream is dropped, as a closed stream drops it.
    ///
    /// Best effort: where `/dev/null` cannot be opened (no `/dev`), the stream stays closed.
    /// An open stream is one `fstat(2)` succeeds on (on a closed one it fails with `EBADF`).
    package static func openNullDeviceOnClosedStandardStreams() {
        for stream in [standardInput, standardOutput, standardError] where (try? Sys.fstat(stream)) == nil {
            // The lowest free number is the stream's: those below it are open by now.
            guard let descriptor = try? Sys.openNullDeviceAcrossExec() else { return }
            if descriptor != stream { try? Sys.close(descriptor) }
        }
    }

    /// Whether `descriptor` is open on a terminal (`isatty(3)`).
    package static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

    /// The columns and rows of the terminal `descriptor` is open on (`ioctl(TIOCGWINSZ)`), or
    /// `nil` when it is no terminal or the terminal does not tell (a size of 0).
    package static func size(of descriptor: Int32) -> (columns: Int, rows: Int)? {
        var columns: UInt16 = 0
        var rows: UInt16 = 0
        // Any failure means "no terminal size": nil, as documented.
        guard (try? Sys.retrying("ioctl(TIOCGWINSZ)") { cstowage_terminal_size(descriptor, &columns, &rows) }) != nil else {
            return nil
        }
        return columns > 0 ? (Int(columns), Int(rows)) : nil
    }
}
