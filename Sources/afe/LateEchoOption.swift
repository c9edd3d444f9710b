import AudioFrontEnd

/// `--late-echo off|on|KEY=VALUE,...` of `afe process`: the residual-echo suppressor after the echo chain
/// (``FrontEndConfiguration/lateEchoSuppression``) for tuning on the scenario matrix; keys not given keep the
/// stage's defaults.
enum LateEchoOption {
    static let keys = "max-db, decay-ms, over-db, quantile, spare (0 or 1)"

    static func parse(_ text: String) throws -> LateEchoSuppressor.Configuration? {
        if text == "off" { return nil }
        var c = LateEchoSuppressor.Configuration()
        if text == "on" { return c }
        for (key, value, _) in try KeyValueOption.pairs(text, option: "--late-echo", keys: keys) {
            switch key {
            case "max-db": c.maximumSuppressionDecibels = value
            case "decay-ms": c.decayMilliseconds = value
            case "over-db": c.overestimateDecibels = value
            case "quantile": c.quantile = value
            case "spare": c.spareNearEnd = value != 0
            default: throw ArgumentReader.Failure(message: "--late-echo: unknown key '\(key)' (keys: \(keys))")
            }
        }
        return c
    }
}
