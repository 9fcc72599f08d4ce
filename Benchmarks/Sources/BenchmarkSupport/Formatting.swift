#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Small text and process helpers for the generators' reports, without Foundation.

/// Writes a line to standard error (with `write`: Swift 6 rejects the C global `stderr`).
public func printError(_ message: String) {
    var line = message + "\n"
    line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// The current working folder, or "." if it cannot be read.
public func currentDirectory() -> String {
    guard let pointer = getcwd(nil, 0) else { return "." }
    defer { free(pointer) }
    return String(cString: pointer)
}

/// `path` made absolute (against the current folder), without a trailing slash, as the
/// generators join paths with "/".
public func absolutePath(_ path: String) -> String {
    var absolute = path.hasPrefix("/") ? path : currentDirectory() + "/" + path
    while absolute.count > 1 && absolute.hasSuffix("/") { absolute.removeLast() }
    return absolute
}

/// 1234567 as "1,234,567".
public func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var result = ""
    for (index, digit) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
        result.append(digit)
    }
    return value < 0 ? "-" + result : result
}

/// Bytes in binary units: "1.53 GiB".
public func binary(_ bytes: Int) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1024 && unit < units.count - 1 {
        value /= 1024
        unit += 1
    }
    return unit == 0 ? "\(bytes) B" : "\(fixed(value, 2)) \(units[unit])"
}

/// `value` with exactly `decimals` decimals (Foundation's `String(format:)` without Foundation).
public func fixed(_ value: Double, _ decimals: Int) -> String {
    var scale = 1
    for _ in 0 ..< decimals { scale *= 10 }
    let scaled = Int((value * Double(scale)).rounded())
    let fraction = String(scaled % scale)
    let padded = String(repeating: "0", count: decimals - fraction.count) + fraction
    return decimals == 0 ? "\(scaled)" : "\(scaled / scale).\(padded)"
}

/// Seconds since the epoch as a UTC date and time: "2025-11-21 14:03:59 UTC".
public func utcDate(_ seconds: Int) -> String {
    var time = time_t(seconds)
    var parts = tm()
    guard gmtime_r(&time, &parts) != nil else { return "\(seconds) s since the epoch" }
    var buffer = [CChar](repeating: 0, count: 32)
    let count = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S UTC", &parts)
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// The time elapsed since `start` on `clock`, in seconds.
public func seconds(since start: ContinuousClock.Instant, on clock: ContinuousClock = ContinuousClock()) -> Double {
    let elapsed = clock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
}
