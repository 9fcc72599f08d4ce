/// The variables of this process's environment that name folders, read as bytes and refused
/// where a `String` cannot carry them.
///
/// Foundation's `ProcessInfo.environment` turns a value that is not UTF-8 into U+FFFD: with
/// `HOME=$'/home/sx\377'` the default container would be under `/home/sx\u{FFFD}`, another
/// user's folder perhaps, and clearing its caches would remove another folder's files. Stowage
/// reads `HOME`, `XDG_*_HOME`, `TMPDIR` and `STOWAGE_APP` through this type instead.
public enum ProcessEnvironment {
    /// The variables the default container is made from (see ``Container/default(appIdentifier:environment:)``).
    public static let containerVariables = ["HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "TMPDIR"]

    /// The value of the variable `name` (`getenv(3)`), or `nil` when it is not set.
    ///
    /// ```swift
    /// let app = try ProcessEnvironment.value(of: "STOWAGE_APP") ?? "stowage"
    /// ```
    ///
    /// - Throws: ``StowageError/Code/invalidArgument`` naming the variable when its value is
    ///   not UTF-8.
    public static func value(of name: String) throws -> String? {
        guard let bytes = Sys.environmentBytes(name) else { return nil }
        guard RawPath.isUTF8(bytes) else {
            throw StowageError(.invalidArgument, operation: .locate,
                               reason: "the environment variable \(name) is not UTF-8, so the folder it names cannot be "
                               + "carried exactly (a repaired name would be another folder); set it to a UTF-8 path")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The values of the variables `names` that are set.
    ///
    /// - Throws: As ``value(of:)``, for the first that is not UTF-8.
    public static func values(of names: [String]) throws -> [String: String] {
        var values: [String: String] = [:]
        for name in names {
            if let value = try value(of: name) { values[name] = value }
        }
        return values
    }
}
