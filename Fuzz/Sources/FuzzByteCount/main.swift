// Fuzzes `ByteCount(parsing:percentOf:)`: any text either parses to a size in range or throws
// `invalidArgument`; nothing traps (overflow, index out of range).
import FuzzSupport
import Stowage

runFuzzer { start, count in
    let input = bytes(start, count)
    let total = Int64(input.first ?? 0) * 1_000_003
    let text = String(decoding: input.dropFirst(), as: UTF8.self)
    for percentOf in [nil, total] {
        do {
            let size = try ByteCount(parsing: text, percentOf: percentOf)
            precondition(size.bytes >= 0, "negative size \(size.bytes) from '\(text)'")
            if let percentOf { precondition(!text.contains("%") || size.bytes <= percentOf, "over 100% of \(percentOf)") }
        } catch let error as StowageError {
            precondition(error.code == .invalidArgument, "unexpected \(error.debugDescription)")
        } catch {
            preconditionFailure("not a StowageError: \(error)")
        }
    }
    return 0
}
