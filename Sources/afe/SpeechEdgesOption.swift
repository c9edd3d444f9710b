import AudioFrontEnd

/// `--vad-edges off|on|MARGIN_DB,LEAD_MS,TRAIL_MS[,GAP_MS[,MAX_DEV_DB[,PEAK_RANGE_DB]]]` of `afe process`: segment starts and ends searched with a lower
/// threshold outside playback (``FrontEndConfiguration/SpeechEdges``); `on` takes its defaults, `off` turns it off;
/// the fields not given keep their defaults.
enum SpeechEdgesOption {
    static func parse(_ text: String) throws -> FrontEndConfiguration.SpeechEdges? {
        if text == "off" { return nil }
        if text == "on" { return .init() }
        let parts = text.split(separator: ",").map { Float($0) }
        let defaults = FrontEndConfiguration.SpeechEdges()
        guard (3...6).contains(parts.count), let margin = parts[0], margin.isFinite, let lead = parts[1],
              let trail = parts[2], let gap = parts.count >= 4 ? parts[3] : Float(defaults.maximumGapMilliseconds),
              let deviation = parts.count >= 5 ? parts[4] : defaults.maximumNoiseDeviationDecibels, deviation.isFinite,
              let range = parts.count == 6 ? parts[5] : defaults.peakRangeDecibels, range.isFinite,
              let leadMs = Int(exactly: lead.rounded()), let trailMs = Int(exactly: trail.rounded()),
              let gapMs = Int(exactly: gap.rounded()) else {
            throw ArgumentReader.Failure(message: "--vad-edges takes off, on or MARGIN_DB,LEAD_MS,TRAIL_MS[,GAP_MS[,MAX_DEV_DB[,PEAK_RANGE_DB]]], not '\(text)'")
        }
        return .init(marginDecibels: margin, maximumLeadMilliseconds: leadMs, maximumTrailMilliseconds: trailMs,
                     maximumGapMilliseconds: gapMs, maximumNoiseDeviationDecibels: deviation,
                     peakRangeDecibels: range)
    }
}
