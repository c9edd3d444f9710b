/// A parameter NeoNui refuses: the result code the call returns and a log line naming the key.
package struct NuiParameterError: Error, Equatable, CustomStringConvertible {
    package var code: NuiResultCode
    /// The key with its path, e.g. `nls_config.sample_rate`.
    package var key: String
    package var message: String

    package init(_ code: NuiResultCode, _ key: String, _ message: String) {
        self.code = code
        self.key = key
        self.message = message
    }

    package var description: String { "parameter \(key): \(message) (\(code.name))" }
}
