import AudioFrontEnd

/// `--far-end-only off|on|KEY=VALUE,...` of `afe process`: stronger echo settings while no near end is likely
/// (``FrontEndConfiguration/farEndOnlyEcho``) for tuning on the scenario matrix; keys not given keep the
/// setting's defaults.
enum FarEndOnlyOption {
    static let keys = "level (-1 as configured, 0 low, 1 moderate, 2 high), extended (-1 as configured, 0 or 1), late-echo (0 or 1: the late-echo suppressor acts only then), quiet-ms, freeze (0 or 1: the echo gate keeps its levels then), first-stage (0: evidence from the output's gate, 1: from a gate on the speex stage's margins), level-db (evidence: the speex stage's output this far above its residual level), both (0 or 1: the output's gate is evidence too)"

    static func parse(_ text: String) throws -> FrontEndConfiguration.FarEndOnlyEcho? {
        if text == "off" { return nil }
        var c = FrontEndConfiguration.FarEndOnlyEcho()
        if text == "on" { return c }
        for (key, value, number) in try KeyValueOption.pairs(text, option: "--far-end-only", keys: keys) {
            guard Float(number) == value || key == "level-db" else {
                throw ArgumentReader.Failure(message: "--far-end-only: \(key) takes a whole number, not \(value)")
            }
            switch key {
            case "level":
                c.suppressionLevel = number < 0 ? nil : WebRTCEchoCanceller.Configuration.SuppressionLevel(rawValue: Int32(clamping: number))
                if number >= 0 && c.suppressionLevel == nil {
                    throw ArgumentReader.Failure(message: "--far-end-only: level takes -1, 0, 1 or 2, not \(number)")
                }
            case "extended":
                guard (-1...1).contains(number) else {
                    throw ArgumentReader.Failure(message: "--far-end-only: extended takes -1, 0 or 1, not \(number)")
                }
                c.extendedFilter = number < 0 ? nil : number == 1
            case "late-echo": c.lateEchoOnly = number != 0
            case "quiet-ms": c.quietMilliseconds = number
            case "freeze": c.freezesGate = number != 0
            case "level-db": c.evidence = .firstStageLevel(value)
            case "both": c.evidenceFromBoth = number != 0
            case "first-stage": c.evidence = number != 0 ? .firstStage : .output
            default: throw ArgumentReader.Failure(message: "--far-end-only: unknown key '\(key)' (keys: \(keys))")
            }
        }
        return c
    }
}
