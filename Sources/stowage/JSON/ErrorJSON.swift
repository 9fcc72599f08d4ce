import Stowage

/// Any command's failure with `--json` (`error.json`), and the figures of an `error` event with
/// `--json-lines`: the error's code, what was being done, where, and the system's `errno`.
struct ErrorJSON: Encodable {
    /// The error's fields; every key is present, `null` when not known.
    struct Body: Encodable {
        var code: String
        var operation: String
        /// The location's identifier (`caches`), as every report names a location.
        @NullWhenAbsent var location: String?
        @NullWhenAbsent var path: String?
        @NullWhenAbsent var errno: Int?
        var message: String
    }

    var error: Body

    init(error: Body) { self.error = error }

    init(_ error: StowageError) {
        self.error = Body(code: error.code.description, operation: error.operation.name,
                          location: error.location?.identifier, path: error.path,
                          errno: error.errno.map { Int($0.rawValue) }, message: error.description)
    }
}
