/// A parameter NeoNui refuses: the result code the call returns and a log line naming the key.
struct NuiParameterError: Error, Equatable, CustomStringConvertible {
    var code: NuiResultCode
    /// The key with its path, e.g. `nls_config.sample_rate`.
    var key: String
    var message: String

    init(_ code: NuiResultCode, _ key: String, _ message: String) {
        self.code = code
        self.key = key
        self.message = message
    }

    var description: String { "parameter \(key): \(message) (\(code.name))" }
}
