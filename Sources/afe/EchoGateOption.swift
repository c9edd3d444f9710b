import AudioFrontEnd

/// `--echo-gate KEY=VALUE,...` of `afe process`: the echo speech gate's settings for tuning on the scenario
/// matrix (``FrontEndConfiguration/EchoGate``); keys not given keep the library's defaults.
enum EchoGateOption {
    static let keys = "hold-ms, resume-ms, after-ms, converged-db, echo-margin-db, residual-margin-db, playback-onset-ms, "
        + "playback-gap-ms, backdate-ms"

    static func parse(_ text: String, into gate: inout FrontEndConfiguration.EchoGate) throws {
        for item in text.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let number = Float(parts[1]), number.isFinite else {
                throw ArgumentReader.Failure(message: "--echo-gate takes KEY=NUMBER,... (keys: \(keys)), not '\(item)'")
            }
            let whole = Int(exactly: number.rounded()) ?? -1
            switch parts[0] {
            case "hold-ms": gate.holdMilliseconds = whole
            case "resume-ms": gate.resumeMilliseconds = whole
            case "after-ms": gate.afterPlaybackMilliseconds = whole
            case "converged-db": gate.convergedDecibels = number
            case "echo-margin-db": gate.echoMarginDecibels = number
            case "residual-margin-db": gate.residualMarginDecibels = number
            case "playback-onset-ms": gate.playbackOnsetMilliseconds = whole
            case "playback-gap-ms": gate.playbackOnsetGapMilliseconds = whole
            case "backdate-ms": gate.startBackdateMilliseconds = whole
            default: throw ArgumentReader.Failure(message: "--echo-gate: unknown key '\(parts[0])' (keys: \(keys))")
            }
        }
    }
}
