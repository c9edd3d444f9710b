import AudioFrontEnd

/// `--barge-in off|KEY=VALUE,...` of `afe process`: the barge-in decision's settings for tuning on the scenario
/// matrix (``FrontEndConfiguration/BargeIn``); keys not given keep the library's defaults.
/// `--barge-in-suspicion off|on|KEY=VALUE,...`: the looser suspicion beside it
/// (``FrontEndConfiguration/bargeInSuspicion``), `on` or keys on ``FrontEndConfiguration/suggestedBargeInSuspicion``;
/// a decision `--barge-in` has not changed before it becomes ``FrontEndConfiguration/suggestedBargeInWithSuspicion``
/// (a later `--barge-in`'s keys apply on that).
enum BargeInOption {
    static let keys = "min-ms, gap-ms, residual-db, echo-margin-db, min-level-db, mic-excess-db, reverb-ms, rearm-ms, evidence-db, evidence-offset-db, evidence-miss-db, evidence-min-ms, evidence-warm-ms, band-weight, converged-db, unconverged-ms, fast-gain-ms, band-top, fast-hold-db, coherence, warm-margin-ms, warm-margin-db, pitch"

    static func parse(_ text: String, into configuration: inout FrontEndConfiguration) throws {
        guard text != "off" else { configuration.bargeIn = nil; return }
        configuration.bargeIn = try settings(text, on: configuration.bargeIn ?? FrontEndConfiguration.BargeIn(),
                                             option: "--barge-in")
    }

    static func parseSuspicion(_ text: String, into configuration: inout FrontEndConfiguration) throws {
        guard text != "off" else { configuration.bargeInSuspicion = nil; return }
        let base = configuration.bargeInSuspicion ?? FrontEndConfiguration.suggestedBargeInSuspicion
        configuration.bargeInSuspicion = text == "on" ? base : try settings(text, on: base, option: "--barge-in-suspicion")
        // The decision beside a suspicion, as the NUI SDK sets it (unless `--barge-in` changed it before).
        if configuration.bargeIn == FrontEndConfiguration.BargeIn() {
            configuration.bargeIn = FrontEndConfiguration.suggestedBargeInWithSuspicion
        }
    }

    private static func settings(_ text: String, on base: FrontEndConfiguration.BargeIn,
                                 option: String) throws -> FrontEndConfiguration.BargeIn {
        var settings = base
        for (key, number, whole) in try KeyValueOption.pairs(text, option: "\(option) (or off)", keys: keys) {
            switch key {
            case "min-ms": settings.minimumSpeechMilliseconds = whole
            case "gap-ms": settings.maximumGapMilliseconds = whole
            case "residual-db": settings.nearToResidualDecibels = number
            case "echo-margin-db": settings.echoMarginDecibels = number
            case "min-level-db": settings.minimumLevelDecibels = number
            case "mic-excess-db": settings.micExcessDecibels = number
            case "reverb-ms": settings.reverberationMilliseconds = whole
            case "rearm-ms": settings.rearmMilliseconds = whole
            case "evidence-db": settings.evidenceDecibels = number
            case "evidence-offset-db": settings.evidenceOffsetDecibels = number
            case "evidence-miss-db": settings.evidenceMissDecibels = number
            case "evidence-min-ms": settings.evidenceMinimumMilliseconds = whole
            case "evidence-warm-ms": settings.evidenceWarmUpMilliseconds = whole
            case "band-weight": settings.bandWeight = number
            case "converged-db": settings.convergedDecibels = number
            case "unconverged-ms": settings.unconvergedAfterMilliseconds = whole
            case "fast-gain-ms": settings.fastGainMilliseconds = whole
            case "band-top": settings.bandTop = whole
            case "fast-hold-db": settings.fastHoldDecibels = number
            case "coherence": settings.coherenceLimit = number
            case "warm-margin-ms": settings.marginWarmUpMilliseconds = whole
            case "warm-margin-db": settings.marginWarmUpDecibels = number
            case "pitch": settings.pitchMatchLimit = number
            default: throw ArgumentReader.Failure(message: "\(option): unknown key '\(key)' (keys: \(keys))")
            }
        }
        return settings
    }
}
