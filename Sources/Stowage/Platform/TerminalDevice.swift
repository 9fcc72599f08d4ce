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
