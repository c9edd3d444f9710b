import AudioFrontEnd

/// `--echo-gate KEY=VALUE,...` of `afe process`: the echo speech gate's settings for tuning on the scenario
/// matrix (``FrontEndConfiguration/EchoGate``); keys not given keep the library's defaults.
enum EchoGateOption {
    static let keys = "hold-ms, resume-ms, after-ms, converged-db, echo-margin-db, residual-margin-db, playback-onset-ms, "
        + "playback-gap-ms, backdate-ms, tail-ms, tail-margin-db, strong-onset-ms, strong-residual-db, strong-reduction-db, "
        + "barge-in-start (0 or 1), no-echo-open (0 or 1)"

    static func parse(_ text: String, into gate: inout FrontEndConfiguration.EchoGate) throws {
        for (key, number, whole) in try KeyValueOption.pairs(text, option: "--echo-gate", keys: keys) {
            switch key {
            case "hold-ms": gate.holdMilliseconds = whole
            case "resume-ms": gate.resumeMilliseconds = whole
            case "after-ms": gate.afterPlaybackMilliseconds = whole
            case "converged-db": gate.convergedDecibels = number
            case "echo-margin-db": gate.echoMarginDecibels = number
            case "residual-margin-db": gate.residualMarginDecibels = number
            case "playback-onset-ms": gate.playbackOnsetMilliseconds = whole
            case "playback-gap-ms": gate.playbackOnsetGapMilliseconds = whole
            case "backdate-ms": gate.startBackdateMilliseconds = whole
            case "tail-ms": gate.tailDecayMilliseconds = whole
            case "tail-margin-db": gate.tailMarginDecibels = number
            case "strong-onset-ms": gate.strongOnsetMilliseconds = whole
            case "strong-residual-db": gate.strongResidualDecibels = number
            case "strong-reduction-db": gate.strongReductionDecibels = number
            case "barge-in-start": gate.startsOnBargeIn = try flag(key, number, whole)
            case "no-echo-open": gate.opensWithoutEcho = try flag(key, number, whole)
            default: throw ArgumentReader.Failure(message: "--echo-gate: unknown key '\(key)' (keys: \(keys))")
            }
        }
    }

    private static func flag(_ key: String, _ number: Float, _ whole: Int) throws -> Bool {
        guard whole == 0 || whole == 1, number == Float(whole) else {
            let shown = number == Float(whole) ? String(whole) : String(number)
            throw ArgumentReader.Failure(message: "--echo-gate: \(key) must be 0 or 1, not \(shown)")
        }
        return whole == 1
    }
}
