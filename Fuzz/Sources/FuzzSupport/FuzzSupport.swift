import CFuzzerDriver
import Foundation

/// Hands the process to libFuzzer, which calls `target` with each input, and exits with its status.
///
/// The target must trap (`precondition`) on any property violation: libFuzzer reports a crash
/// with the input that caused it.
public func runFuzzer(_ target: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, target))
}

/// The input as bytes.
public func bytes(_ start: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
    guard let start, count > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: start, count: count))
}
