extension AudioFrontEndError {
    /// Throws ``Code/invalidConfiguration`` unless `value` is a whole multiple of `step`
    /// (e.g. durations that must be whole 10 ms frames).
    static func checkMultiple(_ value: Int, of step: Int, _ name: String) throws {
        guard value % step == 0 else {
            throw AudioFrontEndError(.invalidConfiguration, "\(name) must be a multiple of \(step), not \(value)")
        }
    }
}
