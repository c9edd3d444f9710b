import AudioFrontEnd

/// `--vad-edges off|on|MARGIN_DB,LEAD_MS,TRAIL_MS[,GAP_MS[,MAX_DEV_DB[,PEAK_RANGE_DB]]]` of `afe process`: segment starts and ends searched with a lower
/// threshold outside playback (``FrontEndConfiguration/SpeechEdges``); `on` takes its defaults, `off` turns it off;
/// the fields not given keep their defaults.
enum SpeechEdgesOption {
    static func parse(_ text: String) throws -> FrontEndConfiguration.SpeechEdges? {
        if text == "off" { return nil }
        if text == "on" { return .init() }
        let d = FrontEndConfiguration.SpeechEdges()
        guard let v = NumberListOption.numbers(text, required: 3, defaults: [Float(d.maximumGapMilliseconds),
                                                                             d.maximumNoiseDeviationDecibels, d.peakRangeDecibels]),
              let lead = NumberListOption.whole(v[1]), let trail = NumberListOption.whole(v[2]),
              let gap = NumberListOption.whole(v[3]) else {
            throw ArgumentReader.Failure(message: "--vad-edges takes off, on or MARGIN_DB,LEAD_MS,TRAIL_MS[,GAP_MS[,MAX_DEV_DB[,PEAK_RANGE_DB]]], not '\(text)'")
        }
        return .init(marginDecibels: v[0], maximumLeadMilliseconds: lead, maximumTrailMilliseconds: trail,
                     maximumGapMilliseconds: gap, maximumNoiseDeviationDecibels: v[4], peakRangeDecibels: v[5])
    }
}
