import AudioFrontEnd

/// `--noise-onset off|DEV_DB,MS_PER_DB,MAX_MS` of `afe process`: the VAD's longer onset in fluctuating noise
/// (``FrontEndConfiguration/FluctuatingNoiseOnset``) for tuning on the scenario matrix; `off` turns it off.
enum NoiseOnsetOption {
    static func parse(_ text: String) throws -> FrontEndConfiguration.FluctuatingNoiseOnset? {
        if text == "off" { return nil }
        let parts = text.split(separator: ",").map { Float($0) }
        guard parts.count == 3, let deviation = parts[0], let perDecibel = parts[1], let maximum = parts[2],
              deviation.isFinite, perDecibel.isFinite, let whole = Int(exactly: maximum.rounded()) else {
            throw ArgumentReader.Failure(message: "--noise-onset takes off or DEV_DB,MS_PER_DB,MAX_MS, not '\(text)'")
        }
        return FrontEndConfiguration.FluctuatingNoiseOnset(deviationDecibels: deviation, millisecondsPerDecibel: perDecibel,
                                                           maximumMilliseconds: whole)
    }
}
