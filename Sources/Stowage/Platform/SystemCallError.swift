/// A failed system call: its name and `errno`. Thrown by the Platform layer only; the
/// capability layers turn it into a ``StowageError`` that names the operation and path.
struct SystemCallError: Error, Sendable, Equatable {
    /// The `errno` value.
    var errno: Int32
    /// The C function that failed, such as `"openat"`.
    var call: String
}
